"""What the wizard pages share: the chosen input, the audit, the benchmark and the export results."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class Source(str, enum.Enum):
    """Where the audit reads its facts: the bundled demo lab, capture files/folders/vm-support
    bundles, or this machine (local Linux commands)."""

    DEMO = "demo"
    CAPTURES = "captures"
    LOCAL = "local"


@dataclass
class WizardState:
    """Shared state of one wizard run (GUI thread only).

    Attributes:
        source: the input chosen on the Connect page.
        capture_paths: files, folders or vm-support bundles (used when ``source`` is CAPTURES).
        audit: the ``nicadvisor.model.Audit`` once Discover finished, else None.
        bench_report: the ``BenchReport`` of the last benchmark run, else None.
        exported: paths written by the last export.
    """

    source: Source = Source.DEMO
    capture_paths: tuple[str, ...] = ()
    audit: Any = None
    bench_report: Any = None
    exported: list[Path] = field(default_factory=list)

    def input_key(self) -> tuple[str, tuple[str, ...]]:
        """Identity of the chosen input: Discover re-runs the audit only when it changed."""
        paths = self.capture_paths if self.source is Source.CAPTURES else ()
        return (self.source.value, paths)
