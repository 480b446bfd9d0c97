"""What the cover of a report says about its scope: when the inputs were captured (beside when the audit ran and the
report was made), and the vCenter the audit read, to prefill the scope fields a board fills in.

When an input was captured, as far as it can be told:

* a live read (``vcenter://``, ``ssh://``, ``nsx://``, ``local``): when the audit ran (``Audit.created_at``);
* an ESXi vm-support bundle: the date and time in its name (``esx-<host>-2023-05-01--10.22-12345.tgz``, as vm-support
  names it; shared/design/research/vm-support-bundles.md);
* capture files: they state no capture time; the modification times of the files still at their paths are given as
  "file dates", which say when the copy was written, not when the command ran.

Reads only file modification times (``os.stat``), at most :data:`MAX_STAT` of them.
"""
from __future__ import annotations

import datetime as _dt
import os
import re

from nicadvisor.model.audit import Audit

#: Most input files whose modification time is read for the cover (a fleet's thousands of files need not all be).
MAX_STAT = 2000
_BUNDLE = re.compile(r"esx-.+?-(\d{4})-(\d{2})-(\d{2})--(\d{2})\.(\d{2})")
_LIVE = ("vcenter://", "ssh://", "nsx://")


def _when(text: str) -> str:
    try:
        return _dt.datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M %Z").strip()
    except ValueError:
        return text


def capture_lines(audit: Audit) -> list[str]:
    """One sentence per kind of input on when it was captured (see the module docstring); [] without inputs."""
    live = [i for i in audit.inputs if i.startswith(_LIVE) or i == "local"]
    files = [i for h in audit.hosts for i in h.inputs if "://" not in i and i != "local"]
    out = []
    if live:
        out.append(f"live reads ({len(live)} target(s)): when the audit ran, {_when(audit.created_at)}")
    bundles = sorted({m.group(0) for i in files for m in [_BUNDLE.search(os.path.basename(i.split(":", 1)[0]))] if m})
    for name in bundles:
        y, mo, d, h, mi = _BUNDLE.search(name).groups()
        out.append(f"vm-support bundle {name}: {y}-{mo}-{d} {h}:{mi} (host time, from its name)")
    plain = [i for i in files if not _BUNDLE.search(os.path.basename(i.split(":", 1)[0]))]
    if plain:
        times = []
        for path in plain[:MAX_STAT]:
            try:
                times.append(os.stat(path).st_mtime)
            except OSError:
                continue
        sentence = f"capture files ({len(plain)}): they state no capture time"
        if times:
            lo, hi = (_dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d") for t in (min(times),
                                                                                                        max(times)))
            sentence += f"; their file dates: {lo}" + (f" to {hi}" if hi != lo else "")
        else:
            sentence += " and are no longer at their paths"
        out.append(sentence)
    return out


def vcenters(audit: Audit) -> str:
    """The vCenter / ESXi endpoints the audit read live (``vc.example:443``), comma-separated; "" when none."""
    return ", ".join(i.removeprefix("vcenter://") for i in audit.inputs if i.startswith("vcenter://"))
