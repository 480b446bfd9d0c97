"""The export use-case: write the audit as PDF tuning checklist, JSON, CSV and HTML."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from nicadvisor.model import Audit


def export_audit(audit: Audit, pdf: Path | None = None, json: Path | None = None,
                 csv: Path | None = None, html: Path | None = None, *, store: Any = None) -> list[Path]:
    """Write the requested files (parent folders are created) and return their paths in order
    PDF, JSON, CSV, HTML. With ``csv`` the tuning checklist is written there, and beside it the verdict
    (``<name>-verdict.csv``), the pNIC inventory (``<name>-inventory.csv``), the benchmark results when the audit has
    any (``<name>-benchmarks.csv``), its attestations when it has any (``<name>-attestations.csv``) and its TEP mesh when its hosts hold one (``<name>-tep-mesh.csv``); not when
    ``csv`` is a stream or device (``/dev/stdout``), where only the checklist goes. ``store``: the audit history
    (:class:`~nicadvisor.store.history.AuditStore`); with it the PDF and HTML chart and list the earlier runs of the
    same benchmark tests (:mod:`nicadvisor.services.bench_history`).
    Raises OSError when a file cannot be written."""
    from nicadvisor.report.csv_export import (
        write_attestations_csv, write_benchmarks_csv, write_csv, write_inventory_csv, write_path_tests_csv, write_verdict_csv,
    )
    from nicadvisor.report.html_export import write_html
    from nicadvisor.report.json_export import write_json
    from nicadvisor.report.pdf import write_pdf

    from nicadvisor.services.bench_history import for_audit

    earlier = for_audit(store, audit) if (pdf or html) else None
    written: list[Path] = []
    for path, writer in ((pdf, partial(write_pdf, earlier=earlier)), (json, write_json), (csv, write_csv),
                         (html, partial(write_html, earlier=earlier))):
        if path is None:
            continue
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        writer(audit, path)
        written.append(path)
        if writer is write_csv:
            if path.exists() and not path.resolve().is_file():
                continue  # a stream (/dev/stdout, a FIFO): the companion files have no folder to go beside it
            extra = [(path.with_name(f"{path.stem}-verdict.csv"), write_verdict_csv),
                     (path.with_name(f"{path.stem}-inventory.csv"), write_inventory_csv)]
            if audit.benchmarks:
                extra.append((path.with_name(f"{path.stem}-benchmarks.csv"), write_benchmarks_csv))
            if audit.attestations:
                extra.append((path.with_name(f"{path.stem}-attestations.csv"), write_attestations_csv))
            if any(h.path_tests for h in audit.hosts):
                extra.append((path.with_name(f"{path.stem}-tep-mesh.csv"), write_path_tests_csv))
            for more, write in extra:
                write(audit, more)
                written.append(more)
    return written
