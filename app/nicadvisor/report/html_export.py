"""The audit as one self-contained HTML page (for mail and wikis): the same content as the PDF checklist —
the verdict with its causes, the verdict and scorecard per host, the remediation plan grouped by rule with the
evidence of every target, each host's capability matrix, benchmarks, the TEP mesh and the appendices — without form
fields.

Rendered with Jinja2 from ``templates/report.html.j2`` with autoescaping on: device text never becomes markup.
Evidence sources are shown relative to the input folders (:func:`nicadvisor.report.remediation.display_source`).
"""
from __future__ import annotations

import os
from typing import Any
from pathlib import Path

import jinja2

from nicadvisor import __version__
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT, capability_matrix, switch_port_cell
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import not_run_groups
from nicadvisor.model.path_tests import MESH_COLUMNS, all_path_tests, mesh_table
from nicadvisor.model.readiness import DECISIVE_CHECKS
from nicadvisor.model.verdict import SYMBOL, coverage_of
from nicadvisor.report.json_export import TOOL_NAME, atomic_write, benchmark_entry, summarize
from nicadvisor.bench.results import expected_from_dict
from nicadvisor.report.pdf import DEFAULT_TITLE, chart_drawings, earlier_lines
from nicadvisor.vcg.builds import release_text
from nicadvisor.report.remediation import (
    TOP_ACTIONS, display_source, guide_used, info_items, input_roots, remediation_plan, scorecard,
)

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("nicadvisor.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_CSS = {"pass": "pass", "warn": "warn", "fail": "fail", "unknown": "unknown", "n/a": "na"}
_SEVERITY_SYMBOL = {"error": "✖", "warning": "▲", "info": "ℹ"}


def to_html(audit: Audit, title: str = DEFAULT_TITLE, earlier: list[list[Any]] | None = None) -> str:
    """The HTML document of ``audit`` (UTF-8 text); ``earlier``: per benchmark result its earlier runs from the audit
    history (:func:`nicadvisor.services.bench_history.for_audit`), charted and listed as in the PDF. Raises
    TypeError for a benchmark without ``to_dict()``."""
    from reportlab.graphics import renderSVG

    roots = input_roots(audit)
    verdict = audit.verdict
    plan = remediation_plan(audit)
    charts = [(name, _inline_svg(renderSVG.drawToString(drawing))) for name, drawing in chart_drawings(audit, earlier)]
    benchmarks = [benchmark_entry(b) for b in audit.benchmarks or []]
    return _ENV.get_template("report.html.j2").render(
        title=title, tool=TOOL_NAME, version=__version__, audit=audit, verdict=verdict, summary=summarize(audit),
        capabilities=CAPABILITIES, scorecard=scorecard(audit), host_verdicts={h.host: h for h in verdict.hosts},
        symbols=SYMBOL, status_symbol=STATUS_SYMBOL, status_text=STATUS_TEXT, css=_CSS,
        severity_symbol=_SEVERITY_SYMBOL, plan=plan, top_actions=plan[:TOP_ACTIONS], info=info_items(audit),
        hosts=audit.hosts, charts=charts, guide_used=guide_used(audit), num=_num,
        expected_text=lambda e: (lambda x: x.text() if x else "—")(expected_from_dict(e)),
        matrices={h.name: capability_matrix(h, audit.findings) for h in audit.hosts},
        benchmarks=benchmarks, earlier=earlier_lines(benchmarks, earlier),
        source=lambda s: display_source(s, roots), coverage=coverage_of(audit, verdict),
        decisive_checks=DECISIVE_CHECKS, release=release_text, not_run_groups=not_run_groups,
        switch_port=lambda host, name: switch_port_cell(host, host.pnic(name)),
        mesh=mesh_table(all_path_tests(audit.hosts)), mesh_columns=MESH_COLUMNS)


def _num(value: object) -> str:
    """A figure as a reader wants it: 4 significant digits, ``—`` for none."""
    if isinstance(value, bool) or value is None:
        return "—"
    if isinstance(value, (int, float)):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _inline_svg(svg: str) -> str:
    """The ``<svg>`` element of a standalone SVG document (its XML prolog and doctype dropped, for inline HTML)."""
    start = svg.find("<svg")
    if start < 0:
        return ""
    # the PDF's registered font names mean nothing to a browser: name the families it has
    return (svg[start:].replace("font-family: NicAdv-Sans-Bold", "font-family: 'DejaVu Sans', Arial, sans-serif; "
                                "font-weight: bold")
            .replace("font-family: NicAdv-Sans", "font-family: 'DejaVu Sans', Arial, sans-serif"))


def write_html(audit: Audit, path: str | os.PathLike[str], title: str = DEFAULT_TITLE, *,
               earlier: list[list[Any]] | None = None) -> Path:
    """Write :func:`to_html` to ``path`` (UTF-8), replaced atomically; returns the path. Raises OSError."""
    text = to_html(audit, title, earlier)

    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)

    return atomic_write(path, _write)
