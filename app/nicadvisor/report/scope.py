"""What the cover of a report says about its scope: when the inputs were captured (beside when the audit ran and the
report was made), and the vCenter the audit read, to prefill the scope fields a board fills in.

When an input was captured, as far as it can be told:

* a live read (``vcenter://``, ``ssh://``, ``nsx://``, ``local``): when the audit ran (``Audit.created_at``);
* an ESXi vm-support bundle: the date and time in its name (``esx-<host>-2023-05-01--10.22-12345.tgz``, as vm-support
  names it; shared/design/research/vm-support-bundles.md);
* capture files: what their own header states (:func:`stated_date`): the collector script's UTC stamp, a
  ``# captured:`` header, or the date of the dated page their ``# source:`` names; never the file's modification
  time, which says when the copy was written, not when the command ran.

Evidence older than a configurable age (:data:`MAX_EVIDENCE_AGE_DAYS`) before the audit is flagged. Reads the first
:data:`HEAD_BYTES` of at most :data:`MAX_STAT` capture files.
"""
from __future__ import annotations

import datetime as _dt
import os
import re

from nicadvisor.model.audit import Audit
from nicadvisor.parsers.capture_file import BUNDLE_NAME as _BUNDLE, stated_date

#: Most input files whose modification time is read for the cover (a fleet's thousands of files need not all be).
MAX_STAT = 2000
_LIVE = ("vcenter://", "ssh://", "nsx://")


def _when(text: str) -> str:
    try:
        return _dt.datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M %Z").strip()
    except ValueError:
        return text


#: Evidence captured longer ago than this (days, before the audit ran) is flagged on page 1; an audit's own
#: ``evidence_max_age_days`` (``--max-evidence-age``) overrides it.
MAX_EVIDENCE_AGE_DAYS = 365
#: Bytes of a capture file's head read for its header lines.
HEAD_BYTES = 4096
def _read_head(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _day(text: str) -> _dt.date:
    parts = (text.split()[0] + "-01-01")[:10].split("-")
    return _dt.date(int(parts[0]), int(parts[1]), int(parts[2]))


def capture_lines(audit: Audit, max_age_days: int | None = None) -> list[str]:
    """One sentence per kind of input on when it was captured (see the module docstring), then one flagging evidence
    older than ``max_age_days`` (default the audit's ``evidence_max_age_days``, else :data:`MAX_EVIDENCE_AGE_DAYS`)
    before the audit ran; [] without inputs. A capture file's time is what its own header states
    (:func:`stated_date`), never its file date (which says when the copy was written)."""
    live = [i for i in audit.inputs if i.startswith(_LIVE) or i == "local"]
    files = list(dict.fromkeys(i for h in audit.hosts for i in h.inputs if "://" not in i and i != "local"))
    out = []
    dated: list[tuple[_dt.date, str]] = []
    if live:
        out.append(f"live reads ({len(live)} target(s)): when the audit ran, {_when(audit.created_at)}")
    bundles = sorted({m.group(0) for i in files for m in [_BUNDLE.search(os.path.basename(i.split(":", 1)[0]))] if m})
    for name in bundles:
        y, mo, d, h, mi = _BUNDLE.search(name).groups()
        try:
            day = _dt.date(int(y), int(mo), int(d))
        except ValueError:  # a name stating no calendar date (esx-h-2026-13-45--…) says none
            out.append(f"vm-support bundle {name}: no capture time (its name states no calendar date)")
            continue
        out.append(f"vm-support bundle {name}: {y}-{mo}-{d} {h}:{mi} (host time, from its name)")
        dated.append((day, name))
    plain = [i for i in files if not _BUNDLE.search(os.path.basename(i.split(":", 1)[0]))]
    if plain:
        kinds: dict[str, list[str]] = {"collector": [], "header": [], "source": []}
        none = gone = 0
        for path in plain[:MAX_STAT]:
            head = _read_head(path)
            if head is None:
                gone += 1
                continue
            stated = stated_date(head)
            if stated is None:
                none += 1
                continue
            kinds[stated[1]].append(stated[0])
            dated.append((_day(stated[0]), os.path.basename(path)))
        parts = []
        for key, words in (("collector", "stamped by the collector (UTC)"), ("header", "dated by a # captured: header"),
                           ("source", "dated by their # source: line (published)")):
            if kinds[key]:
                lo, hi = min(kinds[key]), max(kinds[key])
                parts.append(f"{len(kinds[key])} {words} {lo}" + (f" to {hi}" if hi != lo else ""))
        if none:
            parts.append(f"{none} state no capture time")
        if gone:
            parts.append(f"{gone} no longer at their paths")
        if len(plain) > MAX_STAT:
            parts.append(f"{len(plain) - MAX_STAT} not read for their date")
        out.append(f"capture files ({len(plain)}): " + "; ".join(parts))
    limit = max_age_days if max_age_days is not None else getattr(audit, "evidence_max_age_days", None)
    limit = MAX_EVIDENCE_AGE_DAYS if limit is None else limit
    try:
        ran = _dt.datetime.fromisoformat(audit.created_at).date()
    except ValueError:
        ran = _dt.date.today()
    old = sorted((d, name) for d, name in dated if (ran - d).days > limit)
    if old:
        out.append(f"OLD EVIDENCE: {len(old)} input(s) captured more than {limit} days before the audit (oldest "
                   f"{old[0][0].isoformat()}, {old[0][1]}): confirm it still describes the hosts, or capture again")
    return out


def vcenters(audit: Audit) -> str:
    """The vCenter / ESXi endpoints the audit read live (``vc.example:443``), comma-separated; "" when none."""
    return ", ".join(i.removeprefix("vcenter://") for i in audit.inputs if i.startswith("vcenter://"))
