"""The audit as one self-contained HTML page (for mail and wikis): the same content as the PDF checklist, in the same
order — the cover (scope, when the inputs were captured and the report made, the verdict, the top actions, the
scorecard per host or group of alike hosts), the board decision, the checks that ran, the remediation plan (why,
what to do, the change, its check and its roll-back, the hosts with their evidence), each host (group), the
benchmarks, the TEP mesh, and the appendices: information only, inputs not understood, inputs read, references,
glossary. The decision and sign-off fields are form controls a reader can fill in before printing (nothing is sent
anywhere: the page has no script and no form action).

Rendered with Jinja2 from ``templates/report.html.j2`` with autoescaping on: device text never becomes markup.
Evidence sources are shown relative to the input folders (:func:`nicadvisor.report.remediation.display_source`), and
documents by title, version and address (:mod:`nicadvisor.model.references`), never by internal file name.
"""
from __future__ import annotations

import datetime as _dt
import os
import re
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from nicadvisor import __version__
from nicadvisor.bench.results import expected_from_dict
from nicadvisor.model.audit import Audit
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT
from nicadvisor.model.entities import findings_by_host, not_run_groups
from nicadvisor.model.path_tests import MESH_COLUMNS, all_path_tests, mesh_table
from nicadvisor.model.text import without_controls
from nicadvisor.model.verdict import SYMBOL, coverage_of
from nicadvisor.report.checks import checks_run
from nicadvisor.report.finish import finish_block, missing_lines, missing_overview
from nicadvisor.report.fleet import (
    group_label, host_groups, host_title, release_label, row_labeller,
)
from nicadvisor.report.glossary import GLOSSARY
from nicadvisor.report.json_export import TOOL_NAME, atomic_write, benchmark_entry, summarize
from nicadvisor.report.legend import FINISH_HOWTO, PCIE_ON_ESXI, READY_RULE, SWITCH_PORTS, decisive_rows
from nicadvisor.report.pdf import (
    BOARD_ROLES, DECISIONS, DEFAULT_TITLE, chart_drawings, earlier_lines, nothing_comparable,
)
from nicadvisor.report.decision import approve_text, effort, in_scope, verdict_lines
from nicadvisor.report.fleet import compact_names, host_index
from nicadvisor.report.remediation import (
    NO_COMMAND, STEP_LABELS, ReferenceIndex, item_reach, plan_groups, top_actions, cite_inline, display_source, guide_used, info_items,
    input_roots, matrix_cache, matrix_rows, remediation_plan, scorecard_row, shared_message, steps, switch_ports,
    target_rows,
)
from nicadvisor.report.scope import capture_lines, vcenters



def _printable(value: Any) -> Any:
    """Every value the template prints, before it is escaped: text without control characters (an ESC or OSC
    sequence from device text would run in a terminal that shows the file: ``cat report.html``) and with the bytes
    of file names that were not UTF-8 as ``\\xNN`` (:func:`~nicadvisor.model.text.without_controls`), as the CLI
    and the CSV write them. Markup (the inline SVG charts) stays markup."""
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(without_controls(str(value)))
    return without_controls(value) if isinstance(value, str) else value


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("nicadvisor.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                          finalize=_printable)
_CSS = {"pass": "pass", "warn": "warn", "fail": "fail", "unknown": "unknown", "n/a": "na"}
_SEVERITY_SYMBOL = {"error": "✖", "warning": "▲", "info": "ℹ"}


def to_html(audit: Audit, title: str = DEFAULT_TITLE, earlier: list[list[Any]] | None = None,
            made_at: str | None = None) -> str:
    """The HTML document of ``audit`` (UTF-8 text); ``earlier``: per benchmark result its earlier runs from the audit
    history (:func:`nicadvisor.services.bench_history.for_audit`), charted and listed as in the PDF; ``made_at``: when
    the report is made (ISO 8601, now when not given). Raises TypeError for a benchmark without ``to_dict()``."""
    from reportlab.graphics import renderSVG

    from nicadvisor.model.attestations import BOARD_NOTE

    roots = input_roots(audit)
    verdict = audit.verdict
    by_host = findings_by_host(list(audit.findings))
    host_verdicts = {h.host: h for h in verdict.hosts}
    rows_of = matrix_cache(by_host)
    groups = host_groups(audit, by_host, host_verdicts, rows_of)
    group_of = {h: g for g in groups for h in g.hosts}
    plan = remediation_plan(audit)
    pgroups = plan_groups(audit, plan)
    group_of_item = {n: g for g in pgroups for n, _i in g.items}
    index = ReferenceIndex()
    legend = decisive_rows(index)  # cited first: the legend comes before the plan
    shown: dict[tuple[str, str, str], int] = {}
    items = []
    for n, item in enumerate(plan, start=1):  # citations numbered in document order: legend, plan, information, glossary
        message, shared = shared_message(item)
        items.append({"n": n, "item": item, "message": message, "shared": shared, "steps": steps(item),
                      "group": group_of_item.get(n), "reach": len(item_reach(item, audit)),
                      "rows": target_rows(n, item, row_labeller(group_of), shown, roots),
                      "refs": index.cite(item.references)})
    info = [{"item": i, "message": cite_inline(shared_message(i)[0], index), "refs": index.cite(i.references)}
            for i in info_items(audit)]
    glossary = [(term, meaning, index.cite([source]) if source else []) for term, meaning, source in GLOSSARY]
    benchmarks = [benchmark_entry(b) for b in audit.benchmarks or []]
    no_bench = nothing_comparable(audit, benchmarks)
    charts = [(name, _inline_svg(renderSVG.drawToString(drawing))) for name, drawing in chart_drawings(audit, earlier)]
    made = made_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return _ENV.get_template("report.html.j2").render(
        title=title, tool=TOOL_NAME, version=__version__, audit=audit, verdict=verdict, summary=summarize(audit, verdict),
        made_at=made, captured=capture_lines(audit), vcenters=vcenters(audit), in_scope=in_scope(audit),
        target_nsx=getattr(audit, "target_nsx", None) or "", approve=approve_text(audit, pgroups, len(plan)),
        verdict_lines=verdict_lines(verdict), plan_groups=pgroups, effort=effort(audit, pgroups).rows(),
        host_index=host_index(groups, host_verdicts), compact_names=compact_names,
        capabilities=CAPABILITIES, groups=groups, group_label=group_label, host_verdicts=host_verdicts,
        scorecard={g.host.name: scorecard_row(g.host, [], rows_of(g.host)) for g in groups},
        matrices={g.host.name: matrix_rows(g.host, [], rows_of(g.host)) for g in groups},
        symbols=SYMBOL, status_symbol=STATUS_SYMBOL, status_text=STATUS_TEXT, css=_CSS,
        severity_symbol=_SEVERITY_SYMBOL, plan=plan, items=items, top_actions=top_actions(plan), info=info,
        checks=checks_run(audit, by_host, rows_of), decisions=DECISIONS, board_roles=BOARD_ROLES,
        charts=charts, guide_used=guide_used(audit), num=_num, no_bench=no_bench,
        expected_text=lambda e: (lambda x: x.text() if x else "—")(expected_from_dict(e)),
        benchmarks=[] if no_bench else benchmarks, earlier=[] if no_bench else earlier_lines(benchmarks, earlier),
        glossary=glossary, references=index.entries(), source=lambda s: display_source(s, roots),
        given_inputs=[i for i in audit.inputs if i not in {x for h in audit.hosts for x in h.inputs}],
        coverage=coverage_of(audit, verdict), legend=legend, ready_rule=READY_RULE,
        finish_howto=f"{FINISH_HOWTO} {PCIE_ON_ESXI}.", host_title=host_title, release_label=release_label,
        missing_lines=missing_lines, missing_overview=missing_overview, finish_block=finish_block,
        switch_ports=switch_ports, switch_ports_howto=SWITCH_PORTS, step_labels=STEP_LABELS, no_command=NO_COMMAND, not_run_groups=not_run_groups,
        mesh=mesh_table(all_path_tests(audit.hosts)), mesh_columns=MESH_COLUMNS,
        attestations=audit.attestations, attested_note=BOARD_NOTE)


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
    # in points, as the PDF draws it: 8 user units of text are 8 pt (10.7 px), not 8 px (6 pt) in a browser
    svg = re.sub(r'^<svg width="([\d.]+)" height="([\d.]+)"', r'<svg width="\1pt" height="\2pt"', svg[start:])
    # the PDF's registered font names mean nothing to a browser: name the families it has
    return (svg.replace("font-family: NicAdv-Sans-Bold", "font-family: 'DejaVu Sans', Arial, sans-serif; "
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
