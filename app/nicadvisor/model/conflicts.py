"""Evidence from different times (issue 24 §3): two captures of one host that state one fact differently.

A host is often described by captures taken at different moments: an ``esxcli network ip interface list`` after
``esxcli network ip interface set -i vmk0 -m 9000`` says MTU 9000, a ``vmkping -d -s 1500`` from before it failed
with ``sendto() failed (Message too long)`` (the vmknic's MTU was below the 1528-byte frame). Such a pair is a
:class:`Conflict`: the fact, each value with the file it was read from, the command, the line and the capture's own
date (:func:`nicadvisor.parsers.capture_file.capture_time`: the collector's UTC stamp, a ``# captured:`` header, a
vm-support bundle's name, or the date its ``# source:`` line states — a published page's date is the latest the
output can have been captured).

* Both dated and one strictly later than the other: the newer is the one the audit uses (:attr:`Conflict.kept`);
  both values and both dates are shown.
* A capture states no date (or both fall in the same period): their order is unknown; both are shown and neither
  is preferred (``kept`` None; the model keeps the first value read, and every view says it was not preferred).

Pure; imports nothing of NIC Advisor.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: The dates :func:`nicadvisor.parsers.capture_file.stated_date` gives: ``2026-05-01 10:22 UTC``, ``2018-02-20``,
#: ``2017-09``.
_WHEN = re.compile(r"^((?:19|20)\d{2})-(\d{2})(?:-(\d{2}))?(?: (\d{2}:\d{2}))?")


def _span(when: str | None) -> tuple[str, str] | None:
    """The earliest and latest moment ``when`` can mean, as sortable text (``2017-09`` → 2017-09-00 00:00 …
    2017-09-99 99:99); None for no date or one not understood."""
    m = _WHEN.match(when or "")
    if not m:
        return None
    y, mo, d, hm = m.groups()
    lo = f"{y}-{mo}-{d or '00'} {hm or '00:00'}"
    hi = f"{y}-{mo}-{d or '99'} {hm or '99:99'}"
    return lo, hi


def newer(a: str | None, b: str | None) -> int | None:
    """Which of two capture dates is strictly later: 0 (``a``), 1 (``b``), or None when one is missing or their
    periods overlap (``2017-09`` and ``2017-09-14``; two equal dates). Pure."""
    sa, sb = _span(a), _span(b)
    if sa is None or sb is None:
        return None
    if sa[0] > sb[1]:
        return 0
    if sb[0] > sa[1]:
        return 1
    return None


@dataclass(frozen=True)
class ConflictValue:
    """One side of a conflict: ``value`` as shown (``"9000"``, ``"below 1528"``), the ``source`` file (or bundle
    member) and ``command`` it was read from, the output ``line``, and ``captured``: the capture's own date as stated
    (``"2026-05-01 10:22 UTC"``, ``"2018-02-20"``) with ``how`` it was told (``collector``, ``header``, ``bundle``,
    ``source``: a published page's date), None when the capture states none."""

    value: str
    source: str
    command: str
    line: str
    captured: str | None = None
    how: str | None = None

    def when(self) -> str:
        """The date in words: ``2018-02-20 (published)``, ``2026-05-01 10:22 UTC``, ``date not stated``."""
        if not self.captured:
            return "date not stated"
        return self.captured + (" (published)" if self.how == "source" else "")

    def to_dict(self) -> dict[str, Any]:
        """``{"value", "source", "command", "line", "captured", "how"}`` (JSON ``hosts[].conflicts[].values[]``)."""
        return {"value": self.value, "source": self.source, "command": self.command, "line": self.line,
                "captured": self.captured, "how": self.how}


@dataclass(frozen=True)
class Conflict:
    """Two captures of one host that state ``fact`` of ``obj`` (``vmk0``, ``vmnic1``, the host's name for a host
    fact) differently: ``values`` in the order they were read; ``kept`` the index of the value the audit uses (the
    newer capture's), None when their order is unknown (both kept, neither preferred)."""

    obj: str
    fact: str
    values: tuple[ConflictValue, ...]
    kept: int | None = None

    @property
    def order_known(self) -> bool:
        """Whether one capture is known to be newer than the other."""
        return self.kept is not None

    def label(self) -> str:
        """The object and fact in words: ``vmk0 MTU``."""
        return f"{self.obj} {_FACT_WORDS.get(self.fact, self.fact.replace('_', ' '))}"

    def text(self) -> str:
        """One sentence for every view: both values with their files and dates, then which one is used and why."""
        sides = " but ".join(f"{v.value} in {_base(v.source)} ({v.when()})" for v in self.values)
        head = f"{self.label()}: {sides}"
        if self.kept is None:
            why = ("a capture states no date" if any(not v.captured for v in self.values)
                   else "both were captured in the same period")
            return (f"{head}: which is newer is unknown ({why}), so neither is preferred; capture it again to "
                    "tell")
        v = self.values[self.kept]
        return f"{head}: the newer capture ({v.when()}) is used, {v.value}"

    def to_dict(self) -> dict[str, Any]:
        """``{"object", "fact", "values": [...], "kept", "order", "text"}`` (JSON ``hosts[].conflicts[]``;
        ``order`` is ``newer-kept`` or ``unknown``)."""
        return {"object": self.obj, "fact": self.fact, "values": [v.to_dict() for v in self.values],
                "kept": self.kept, "order": "newer-kept" if self.order_known else "unknown", "text": self.text()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Conflict":
        """The inverse of :meth:`to_dict` (``text`` and ``order`` are derived). Raises KeyError/TypeError/ValueError
        on a malformed entry."""
        values = tuple(ConflictValue(value=str(v["value"]), source=str(v["source"]), command=str(v["command"]),
                                     line=str(v["line"]), captured=v.get("captured"), how=v.get("how"))
                       for v in d["values"])
        kept = d.get("kept")
        if kept is not None and not (isinstance(kept, int) and 0 <= kept < len(values)):
            raise ValueError(f"kept {kept!r} is not an index of the values")
        return cls(obj=str(d["object"]), fact=str(d["fact"]), values=values, kept=kept)


#: Fact names as the views write them.
_FACT_WORDS = {"mtu": "MTU", "tso_mss": "TSO MSS", "pci_address": "PCI address"}


def _base(source: str) -> str:
    """The file name of a source (the member of a bundle: ``bundle.tgz:commands/x.txt`` → ``x.txt``)."""
    return source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(":", 1)[-1] or source
