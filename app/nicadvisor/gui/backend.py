"""The use-cases the wizard calls, gathered in one injectable object.

:meth:`Backend.real` binds the real services (imported lazily, so the GUI modules import even when a
service is being reworked); tests may pass a Backend of their own. Every callable here is blocking and
is only ever called from a worker thread (:mod:`nicadvisor.gui.tasks`).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ProgressFn = Callable[[float, str], None]


@dataclass(frozen=True)
class Backend:
    """Callables of the service layer.

    Attributes:
        audit(demo, capture_paths, local, progress, cancel) -> nicadvisor.model.Audit
            (``nicadvisor.services.audit.run_audit``; raises a ``Cancelled`` when cancel is set).
        bench(path, duration_s, progress, cancel) -> BenchReport(results, problems)
            (``nicadvisor.services.bench.run_quick_bench``; path "loopback" or "netns"; seconds).
        export(audit, pdf, json, csv) -> list[Path]
            (``nicadvisor.services.export.export_audit``; paths may be None).
    """

    audit: Callable[..., Any]
    bench: Callable[..., Any]
    export: Callable[..., list[Path]]

    @classmethod
    def real(cls) -> "Backend":
        """The backend bound to :mod:`nicadvisor.services`."""
        return cls(audit=_real_audit, bench=_real_bench, export=_real_export)


def _real_audit(demo: bool, capture_paths: tuple[str, ...], local: bool,
                progress: ProgressFn, cancel: threading.Event) -> Any:
    from nicadvisor.services.audit import AuditRequest, run_audit

    request = AuditRequest(demo=demo, capture_paths=tuple(capture_paths), local=local)
    return run_audit(request, progress=progress, cancel=cancel)


def _real_bench(path: str, duration_s: float, progress: ProgressFn, cancel: threading.Event) -> Any:
    from nicadvisor.services.bench import BenchRequest, run_quick_bench

    request = BenchRequest(path=path, duration_s=duration_s)
    return run_quick_bench(request, progress, cancel)


def _real_export(audit: Any, pdf: Path | None, json: Path | None, csv: Path | None) -> list[Path]:
    from nicadvisor.services.export import export_audit

    return export_audit(audit, pdf=pdf, json=json, csv=csv)
