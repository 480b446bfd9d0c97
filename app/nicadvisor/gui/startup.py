"""Start-up marks: when ``NICADVISOR_STARTUP_MARKS`` is set (to anything but empty or ``0``), the wizard writes one
line to stderr when the starting window is painted and one when the wizard's first page is painted::

    nicadvisor-startup splash 1764650000.123456 0.412
    nicadvisor-startup wizard 1764650000.987654 0.871

(seconds since the epoch, ``time.time()``; then the CPU seconds the process used so far, ``time.process_time()``,
which a loaded machine does not inflate as it does the wall clock), so that ``benchmarks/cold_start.py`` can time a
cold start of the real ``nic-advisor-gui`` from outside. Nothing is written when the variable is not set.
"""
from __future__ import annotations

import os
import sys
import time

#: The environment variable that turns the marks on.
MARKS_ENV = "NICADVISOR_STARTUP_MARKS"
#: The first word of every mark line.
MARK_PREFIX = "nicadvisor-startup"


def mark(stage: str) -> None:
    """Write ``"nicadvisor-startup STAGE SECONDS CPU_SECONDS"`` to stderr when :data:`MARKS_ENV` is set; otherwise
    nothing."""
    if os.environ.get(MARKS_ENV, "") not in ("", "0"):
        print(f"{MARK_PREFIX} {stage} {time.time():.6f} {time.process_time():.3f}", file=sys.stderr, flush=True)
