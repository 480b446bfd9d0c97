"""The export use-case: write the audit as PDF tuning checklist, JSON, CSV and HTML."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from nicadvisor.model import Audit


class ReportsNotWritten(OSError):
    """Some reports of :func:`export_audit` could not be written; the others were (issue 29 §5: one failing report
    never costs the rest). ``written``: the paths written; ``failures``: one sentence per report not written, naming
    it (``the PDF report r.pdf could not be written: …``). ``str()``: the sentences joined with "; "."""

    def __init__(self, written: list[Path], failures: list[str]) -> None:
        super().__init__("; ".join(failures))
        self.written = written
        self.failures = failures


class ReportWriterError(RuntimeError):
    """A report writer failed with an internal error (a bug, or reportlab's LayoutError), after every other report
    was written; the message names the report(s), the cause is the writer's exception. The CLI makes it exit 3
    with a crash file, as every internal error."""


_KINDS = {"pdf": "PDF report", "json": "JSON report", "csv": "CSV checklist", "html": "HTML report"}


def _why(exc: BaseException) -> str:
    """An exception in words for the sentence of a report not written (an OSError's own words; else its type and
    first line: reportlab's LayoutError names a whole flowable)."""
    if isinstance(exc, OSError):
        return str(exc.strerror or exc)
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:200]}"


def export_audit(audit: Audit, pdf: Path | None = None, json: Path | None = None,
                 csv: Path | None = None, html: Path | None = None, *, store: Any = None) -> list[Path]:
    """Write the requested files (parent folders are created) and return their paths in order
    PDF, JSON, CSV, HTML. With ``csv`` the tuning checklist is written there, and beside it the verdict
    (``<name>-verdict.csv``), the pNIC inventory (``<name>-inventory.csv``), the benchmark results when the audit has
    any (``<name>-benchmarks.csv``), its attestations when it has any (``<name>-attestations.csv``) and its TEP mesh when its hosts hold one (``<name>-tep-mesh.csv``); not when
    ``csv`` is a stream or device (``/dev/stdout``), where only the checklist goes. ``store``: the audit history
    (:class:`~nicadvisor.store.history.AuditStore`); with it the PDF and HTML chart and list the earlier runs of the
    same benchmark tests (:mod:`nicadvisor.services.bench_history`).
    Each file is written on its own: one that fails (a full disk, a refused link, a layout the PDF library cannot
    place) never stops the others. Raises :class:`ReportsNotWritten` (an OSError) naming each file not written,
    after the others were written; :class:`ReportWriterError` instead when a writer failed with anything but an
    OSError (an internal error)."""
    from nicadvisor.report.csv_export import (
        write_attestations_csv, write_benchmarks_csv, write_csv, write_inventory_csv, write_path_tests_csv, write_verdict_csv,
    )
    from nicadvisor.report.html_export import write_html
    from nicadvisor.report.json_export import write_json
    from nicadvisor.report.pdf import write_pdf

    from nicadvisor.services.bench_history import for_audit

    earlier = for_audit(store, audit) if (pdf or html) else None
    written: list[Path] = []
    failures: list[str] = []
    internal: list[BaseException] = []

    def one(kind: str, path: Path, writer: Any) -> bool:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            writer(audit, path)
        except Exception as exc:  # noqa: BLE001 - each report on its own; the failure is one sentence naming it
            failures.append(f"the {kind} {path} could not be written: {_why(exc)}")
            if not isinstance(exc, OSError):
                internal.append(exc)
            return False
        written.append(path)
        return True

    for key, path, writer in (("pdf", pdf, partial(write_pdf, earlier=earlier)), ("json", json, write_json),
                              ("csv", csv, write_csv), ("html", html, partial(write_html, earlier=earlier))):
        if path is None:
            continue
        path = Path(path)
        ok = one(_KINDS[key], path, writer)
        if key == "csv":
            if ok and path.exists() and not path.resolve().is_file():
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
                one("CSV side file", more, write)
    if internal:  # a bug: exit 3 and a crash file, but only once every other report is written
        raise ReportWriterError("; ".join(failures)) from internal[0]
    if failures:
        raise ReportsNotWritten(written, failures)
    return written
