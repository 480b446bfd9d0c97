"""The one-page post-change record for the change ticket (PDF): which approved audit it checks (id, date, SHA-256),
the new audit, each plan item's targets by status with the new evidence, the benchmarks before and after beside
their expected band, the new TEP mesh, and fields to sign. Every check, target by target, is in the JSON record
(:meth:`nicadvisor.report.plan_check.PlanCheck.to_dict`). Drawn in the fonts and table style of the report
(:mod:`nicadvisor.report.pdf`), on one A4 landscape page: a long plan is shrunk to fit, never continued."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import KeepInFrame, Paragraph, SimpleDocTemplate, Table, TableStyle

from nicadvisor import __version__
from nicadvisor.report.json_export import TOOL_NAME, atomic_write
from nicadvisor.report.pdf import (
    _GRID, _FormField, _Styles, _clean, _register_fonts, FRAME_WIDTH, MARGIN, PAGE, STATUS_FILL,
)
from nicadvisor.report.plan_check import CHANGED, DONE, NOT_DONE, NOT_REREAD, STATUSES, PlanCheck, TargetCheck

TITLE = "NIC Advisor — post-change record"
#: The matrix colour of each status.
STATUS_COLOUR = {DONE: "pass", NOT_DONE: "fail", CHANGED: "warn", NOT_REREAD: "unknown"}
#: Rows of the TEP mesh and notes shown at most (all are in the JSON record).
SHOWN_LINES = 8


def _item_rows(check: PlanCheck) -> list[tuple[int, str, str, list[TargetCheck]]]:
    """``(item, title, status, checks)`` per plan item and status, in item order."""
    groups: dict[tuple[int, str], list[TargetCheck]] = {}
    for c in check.checks:
        groups.setdefault((c.item, c.status), []).append(c)
    return [(item, checks[0].title, status, checks) for (item, status), checks in sorted(
        groups.items(), key=lambda kv: (kv[0][0], STATUSES.index(kv[0][1])))]


def _targets_text(checks: list[TargetCheck], limit: int = 6) -> str:
    names = [c.target for c in checks]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def build_record_story(check: PlanCheck, fonts: Any = None) -> list[Any]:
    """The record's flowables (one page once shrunk: :func:`write_record_pdf`)."""
    fonts = fonts or _register_fonts()
    st = _Styles(fonts)
    cell = st.cell

    def p(text: str, style: Any = None) -> Paragraph:
        return Paragraph(text, style or cell)

    counts = check.counts()
    verdict = {0: "every plan item is done", 1: "NOT everything is done as planned",
               2: "part of the plan could not be re-read"}[check.exit_code]
    story: list[Any] = [Paragraph(_clean(TITLE, fonts), st.title)]
    link = Table([[p("<b>Approved audit</b>"), p(f"#{check.against_id} of {_clean(check.against_created, fonts)}"),
                   p("<b>SHA-256</b>"), p(f"<font name='{fonts.mono}'>{check.against_digest}</font>")],
                  [p("<b>New audit</b>"), p((f"#{check.new_id}" if check.new_id is not None else "not stored")
                                            + f" of {_clean(check.new_created, fonts)}"),
                   p("<b>Hashed</b>"), p(_clean(check.to_dict()["against"]["hash_basis"], fonts), st.cell_small)]],
                 colWidths=[28 * mm, 62 * mm, 20 * mm, FRAME_WIDTH - 110 * mm], hAlign="LEFT")
    link.setStyle(TableStyle(_GRID))
    story += [link, Paragraph(f"<b>Result: {_clean(verdict, fonts)}</b> — {_clean(check.summary(), fonts)}",
                              st.h2_cover)]
    head = [p(f"<b>{h}</b>") for h in ("Item", "Plan item", "Status", "Targets", "Before → after (planned)",
                                       "New evidence")]
    rows, style = [head], list(_GRID)
    for i, (item, title, status, checks) in enumerate(_item_rows(check), 1):
        first = checks[0]
        values = f"{first.before or '—'} → {first.after or '—'} (planned: {first.planned})" if first.fact else ""
        ev = first.evidence
        evidence = (f"<font name='{fonts.mono}'>{_clean(ev.command, fonts)}</font>: {_clean(ev.line, fonts)}"
                    if ev else "")
        detail = (("<br/>" if evidence else "") + f"<i>{_clean(first.detail, fonts)}</i>") if first.detail else ""
        rows.append([p(str(item)), p(_clean(title, fonts)), p(f"<b>{status}</b> ({len(checks)})"),
                     p(_clean(_targets_text(checks), fonts)), p(_clean(values, fonts)), p(evidence + detail)])
        style.append(("BACKGROUND", (2, i), (2, i), STATUS_FILL[STATUS_COLOUR[status]]))
    if len(rows) == 1:
        rows.append([p("—"), p("The approved audit has no plan item."), p(""), p(""), p(""), p("")])
    table = Table(rows, colWidths=[12 * mm, 50 * mm, 27 * mm, 50 * mm, 50 * mm, FRAME_WIDTH - 189 * mm],
                  repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(style))
    story.append(table)
    if check.benchmarks:
        story.append(Paragraph("Benchmarks: before and after, beside the expected band", st.h2_cover))
        brows = [[p(f"<b>{h}</b>") for h in ("Test", "Before", "After", "Expected", "Verdict before → after")]]
        for b in check.benchmarks:
            brows.append([p(_clean(b.label, fonts)), p(b.value_text(b.before)), p(b.value_text(b.after)),
                          p(_clean(b.expected or "no band", fonts)),
                          p(f"{(b.verdict_before or '—').upper()} → {(b.verdict_after or '—').upper()}")])
        bt = Table(brows, colWidths=[90 * mm, 35 * mm, 35 * mm, 45 * mm, FRAME_WIDTH - 205 * mm], hAlign="LEFT")
        bt.setStyle(TableStyle(_GRID))
        story.append(bt)
    if check.mesh:
        story.append(Paragraph("TEP mesh, run again", st.h2_cover))
        story += [p(_clean(line, fonts), st.small) for line in check.mesh[:SHOWN_LINES]]
        if len(check.mesh) > SHOWN_LINES:
            story.append(p(f"… and {len(check.mesh) - SHOWN_LINES} more (JSON: tep_mesh)", st.small))
    if check.notes:
        story.append(Paragraph("What the verification could not do", st.h2_cover))
        story += [p("• " + _clean(n, fonts), st.small) for n in check.notes[:SHOWN_LINES]]
    return story


def _signature_row(st: _Styles) -> Table:
    """Name, role, date and change ticket as text fields (drawn unscaled, below the shrunk record)."""
    cells: list[Any] = []
    for key, label, width in (("name", "Name", 60), ("role", "Role", 45), ("date", "Date", 30),
                              ("ticket", "Change ticket", 50)):
        cells += [Paragraph(f"<b>{label}</b>", st.cell), _FormField(f"verify.{key}", label, width * mm)]
    return Table([cells], colWidths=[w * mm for w in (14, 66, 12, 51, 12, 36, 24, 56)], hAlign="LEFT")


def write_record_pdf(check: PlanCheck, path: str | os.PathLike[str], *,
                     font_dir: str | os.PathLike[str] | None = None) -> Path:
    """Write the record as a one-page A4-landscape PDF (atomically); returns the path. Raises OSError if it cannot
    be written."""
    fonts = _register_fonts(None if font_dir is None else Path(font_dir))
    story = build_record_story(check, fonts)

    def _write(tmp: Path) -> None:
        doc = SimpleDocTemplate(str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
                                bottomMargin=MARGIN, title=TITLE, author=TOOL_NAME,
                                subject=f"audit #{check.against_id} sha256 {check.against_digest}",
                                creator=f"{TOOL_NAME} {__version__}")
        st = _Styles(fonts)
        frame_h = PAGE[1] - 2 * MARGIN - 24 * mm  # the frame's own padding, "Checked by" and its fields
        doc.build([KeepInFrame(FRAME_WIDTH, frame_h, story, mode="shrink"), Paragraph("Checked by", st.h2_cover),
                   _signature_row(st)])

    return atomic_write(path, _write)

