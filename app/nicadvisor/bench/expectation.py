"""What a benchmark result should reach on its path (:class:`Expected`) and the tolerance :data:`WITHIN`.

Shared by the expected-value model (:mod:`nicadvisor.bench.expected`) and the results
(:mod:`nicadvisor.bench.results`, which re-exports both): its own module, so that those two import it and not each
other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: A result within this fraction of its expectation is "within" it.
WITHIN = 0.10


@dataclass(frozen=True)
class Expected:
    """What a result should reach on its path, and why.

    ``value`` is in ``unit``: ``"Gbit/s"`` for a stream test (a ceiling: the measured throughput
    should come close to it) or ``"µs"`` for a request/response test (a round-trip time the
    measured latency should not exceed by much). ``basis`` explains the figure and cites its source
    (reference file and section, or the shaping/link settings it was computed from). ``measure``: the result's
    field it judges when not the unit's own (:func:`measured_in`): ``"p50_latency_us"`` for a host-to-host TCP_RR
    band (the median transaction, :mod:`nicadvisor.bench.path_rtt`), "" otherwise. ``floor``: for a host-to-host
    TCP_RR band, the physical limit below ``low`` (the path's adaptive echo minimum, µs): faster than ``low`` but not
    than ``floor`` passes, faster than ``floor`` is a measurement error; None otherwise.
    """

    value: float
    unit: str
    basis: str
    low: float | None = None
    high: float | None = None
    limits: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    measure: str = ""
    floor: float | None = None

    @property
    def is_band(self) -> bool:
        """True when the expectation is a band ``low`` … ``high`` (:class:`nicadvisor.bench.expected.Band`), judged
        with :func:`nicadvisor.bench.expected.judge`; False for a point figure of the first model."""
        return self.low is not None and self.high is not None

    def text(self) -> str:
        """``"8.42…9.45 Gbit/s"`` for a band, ``"≈ 20 Gbit/s"`` for a point figure; below 1 Gbit/s in Mbit/s
        (``"43…47.8 Mbit/s"``)."""
        small = self.unit == "Gbit/s" and (self.high if self.is_band else self.value) < 1
        scale, unit = (1000.0, "Mbit/s") if small else (1.0, self.unit)
        if self.is_band:
            lo, hi = f"{self.low * scale:.3g}", f"{self.high * scale:.3g}"
            return f"{hi} {unit}" if lo == hi else f"{lo}…{hi} {unit}"
        return f"≈ {self.value * scale:.3g} {unit}"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict ``{"value", "unit", "basis", "low", "high", "limits", "notes"}`` (``low``/``high``
        None and empty lists for a point figure), plus ``"measure"`` and ``"floor"`` when they are set."""
        doc = {"value": self.value, "unit": self.unit, "basis": self.basis, "low": self.low, "high": self.high,
               "limits": list(self.limits), "notes": list(self.notes)}
        if self.measure:
            doc["measure"] = self.measure
        if self.floor is not None:
            doc["floor"] = self.floor
        return doc
