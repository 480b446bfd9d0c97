"""The PDF tuning checklist a change board signs, drawn with reportlab platypus (A4 landscape).

Contents, in order (each part a bookmark in the PDF outline):

1. the executive summary: the verdict (READY / NOT READY / NOT RATED, :mod:`nicadvisor.model.verdict`) with its
   causes, one row per host with its verdict and a scorecard (the worst cell of each capability column), the top
   remediation actions with the hosts they touch, and the scope (inputs, date, tool version, findings);
2. a capability summary chart (pNICs per status and column);
3. the remediation plan: the ``error``/``warning`` findings grouped by rule
   (:func:`nicadvisor.report.remediation.remediation_plan`), each item with a fillable checkbox, owner, change
   ticket and due date fields, the recommendation, every target with its own checkbox and evidence, and the
   reference documents by title and section (AcroForm fields: read them back with ``pypdf``'s ``get_fields()``);
4. per host: the capability matrix (one row per physical pNIC; each cell the status symbol *and* word, a colour
   and the values judged), the plan items that concern it, and sign-off fields (name, date);
5. benchmarks, when there are results; the TEP mesh, when a check between hosts left one (one row per pair and frame
   size: both ends, pass/fail, the round trips and the cause in words, :func:`nicadvisor.model.path_tests.mesh_table`);
6. appendices: information-only findings (nothing to change), inputs not understood, inputs read.

Evidence sources are shown relative to the audit's input folders, never with the auditor's absolute paths.
Every page has a footer with the tool name, the audit date and "page N of M". Text comes out in DejaVu Sans /
DejaVu Sans Mono (package ``fonts-dejavu-core``, oblique in ``fonts-dejavu-extra``) at 8 pt or more so ✔ ▲ ✖ µ
render; without those fonts Helvetica/Courier are used and the symbols become ASCII. All user and device text is
escaped before it reaches reportlab's Paragraph markup.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.graphics.shapes import Drawing
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from nicadvisor import __version__
from nicadvisor.bench.figures import chart_label, percentile_rows, sweep_series
from nicadvisor.bench.results import expected_from_dict
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT, capability_matrix, switch_port_cell
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Evidence, Finding, Host, Severity, clip, not_run_groups
from nicadvisor.model.readiness import DECISIVE_CHECKS
from nicadvisor.model.verdict import SYMBOL, coverage_of
from nicadvisor.report.json_export import TOOL_NAME, atomic_write, benchmark_entry, summarize
from nicadvisor.vcg.builds import release_text
from nicadvisor.report.remediation import (
    TOP_ACTIONS, RemediationItem, display_source, guide_used, info_items, input_roots, reference_title,
    remediation_plan, scorecard,
)

DEFAULT_TITLE = "NIC Advisor — NSX pNIC tuning checklist"
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")

PAGE = landscape(A4)
MARGIN = 14 * mm
FRAME_WIDTH = PAGE[0] - 2 * MARGIN

STATUS_FILL = {"pass": colors.HexColor("#d8f0d8"), "warn": colors.HexColor("#fff0bf"),
               "fail": colors.HexColor("#f7d0d0"), "unknown": colors.HexColor("#e6e6e6"),
               "n/a": colors.HexColor("#f4f4f4")}
STATUS_INK = {"pass": colors.HexColor("#1e6b1e"), "warn": colors.HexColor("#8a5a00"),
              "fail": colors.HexColor("#a01010"), "unknown": colors.HexColor("#505050"),
              "n/a": colors.HexColor("#505050")}
#: The matrix colours of each verdict (READY green, NOT READY red, NOT RATED grey).
VERDICT_STATUS = {"ready": "pass", "not_ready": "fail", "not_rated": "unknown"}
SEVERITY_STATUS = {Severity.ERROR: "fail", Severity.WARNING: "warn", Severity.INFO: "unknown"}
SEVERITY_WORD = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}
_ASCII_SYMBOL = {"✔": "OK", "▲": "!", "✖": "X", "?": "?", "☐": "[ ]", "ℹ": "i", "–": "-"}
COVER_INPUTS = 12
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class _Fonts:
    """Font names in use and whether they cover the Unicode status symbols."""

    regular: str
    bold: str
    italic: str
    mono: str
    unicode: bool

    def sym(self, symbol: str) -> str:
        """``symbol`` (✔ ▲ ✖ ? ☐ ℹ) or its ASCII stand-in when the font lacks it."""
        return symbol if self.unicode else _ASCII_SYMBOL.get(symbol, symbol)


def _register_fonts(font_dir: Path | None = None) -> _Fonts:
    """Register DejaVu Sans (regular/bold/oblique) and DejaVu Sans Mono from ``font_dir`` (default
    :data:`FONT_DIR`); fall back to the built-in Helvetica/Courier (ASCII symbols) when a file is missing
    or unreadable."""
    font_dir = FONT_DIR if font_dir is None else font_dir
    files = {"NicAdv-Sans": "DejaVuSans.ttf", "NicAdv-Sans-Bold": "DejaVuSans-Bold.ttf",
             "NicAdv-Sans-Oblique": "DejaVuSans-Oblique.ttf", "NicAdv-Mono": "DejaVuSansMono.ttf"}
    fallback = _Fonts("Helvetica", "Helvetica-Bold", "Helvetica-Oblique", "Courier", unicode=False)
    if not all((font_dir / file).is_file() for file in files.values()):
        return fallback
    registered = set(pdfmetrics.getRegisteredFontNames())
    try:
        for name, file in files.items():
            if name not in registered:
                pdfmetrics.registerFont(TTFont(name, str(font_dir / file)))
    except (OSError, TTFError):  # unreadable font file: built-in fonts, ASCII symbols
        return fallback
    pdfmetrics.registerFontFamily("NicAdv-Sans", normal="NicAdv-Sans", bold="NicAdv-Sans-Bold",
                                  italic="NicAdv-Sans-Oblique", boldItalic="NicAdv-Sans-Bold")
    return _Fonts("NicAdv-Sans", "NicAdv-Sans-Bold", "NicAdv-Sans-Oblique", "NicAdv-Mono", unicode=True)


def _clean(text: Any, fonts: _Fonts | None = None) -> str:
    """Plain text for a Paragraph: tabs expanded, control characters replaced, then XML-escaped.
    Without Unicode fonts, characters outside WinAnsi (cp1252, the encoding of the built-in fonts) become ``?``."""
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\r", "\n").expandtabs(8)
    s = _CONTROL.sub("\N{REPLACEMENT CHARACTER}" if fonts is None or fonts.unicode else "?", s)
    if fonts is not None and not fonts.unicode:
        s = s.encode("cp1252", "replace").decode("cp1252")
    return escape(s)


def _mono(text: str, fonts: _Fonts) -> str:
    """Device output for a monospace Paragraph: escaped, runs of spaces kept (``&nbsp;``), lines kept
    (``<br/>``); long words are split by the style's ``splitLongWords`` so nothing overflows."""
    lines = _clean(text, fonts).split("\n")
    out = []
    for line in lines:
        # keep column alignment: every space after the first in a run becomes a non-breaking space
        out.append(re.sub(r" {2,}", lambda m: " " + "&nbsp;" * (len(m.group()) - 1), line) or "&nbsp;")
    return "<br/>".join(out)


class _Styles:
    """Paragraph styles of the document, all in the registered fonts."""

    def __init__(self, fonts: _Fonts) -> None:
        f = fonts
        self.title = ParagraphStyle("title", fontName=f.bold, fontSize=18, leading=22, spaceAfter=2 * mm)
        self.h1 = ParagraphStyle("h1", fontName=f.bold, fontSize=15, leading=19, spaceBefore=2 * mm,
                                 spaceAfter=2.5 * mm)
        self.h2 = ParagraphStyle("h2", fontName=f.bold, fontSize=12, leading=15, spaceBefore=4 * mm,
                                 spaceAfter=2 * mm)
        self.body = ParagraphStyle("body", fontName=f.regular, fontSize=9, leading=11.5)
        self.small = ParagraphStyle("small", parent=self.body, fontSize=8, leading=10)
        self.cell = ParagraphStyle("cell", parent=self.body, fontSize=8, leading=10)
        self.cell_small = ParagraphStyle("cell_small", parent=self.body, fontSize=8, leading=9.5)
        self.cell_center = ParagraphStyle("cell_center", parent=self.cell, alignment=TA_CENTER)
        self.cell_head = ParagraphStyle("cell_head", parent=self.body, fontName=f.bold, fontSize=8, leading=10,
                                        alignment=TA_CENTER)
        self.verdict = ParagraphStyle("verdict", fontName=f.bold, fontSize=16, leading=21)
        self.item_head = ParagraphStyle("item_head", parent=self.body, fontName=f.bold, fontSize=10, leading=13,
                                        leftIndent=7 * mm, firstLineIndent=-7 * mm, spaceBefore=3.5 * mm)
        self.item = ParagraphStyle("item", parent=self.body, leftIndent=7 * mm, spaceBefore=1 * mm)
        self.evidence_cmd = ParagraphStyle("evidence_cmd", parent=self.body, fontName=f.mono, fontSize=8,
                                           leading=10, leftIndent=10 * mm, spaceBefore=1 * mm,
                                           splitLongWords=1)
        self.evidence_line = ParagraphStyle("evidence_line", parent=self.evidence_cmd, fontSize=8, leading=9.6,
                                            leftIndent=13 * mm, spaceBefore=0.5 * mm, backColor=colors.HexColor(
                                                "#f2f2f2"), borderPadding=(1, 2, 1, 2))
        self.bullet = ParagraphStyle("bullet", parent=self.small, leftIndent=4 * mm, bulletIndent=0.5 * mm,
                                     bulletFontName=f.regular, splitLongWords=1)
        self.mono_cell = ParagraphStyle("mono_cell", parent=self.cell_small, fontName=f.mono, splitLongWords=1)


class _NumberedCanvas(rl_canvas.Canvas):
    """A canvas that knows the page count when it draws footers ("page N of M")."""

    footer_left = ""
    footer_font = "Helvetica"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._saved: list[dict[str, Any]] = []

    def showPage(self) -> None:  # reportlab API name
        self._saved.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:  # reportlab API name
        total = len(self._saved)
        for state in self._saved:
            self.__dict__.update(state)
            self._draw_footer(total)
            super().showPage()
        super().save()

    def _draw_footer(self, total: int) -> None:
        width, _ = self._pagesize
        self.saveState()
        self.setStrokeColor(colors.HexColor("#999999"))
        self.setLineWidth(0.4)
        self.line(MARGIN, 10 * mm, width - MARGIN, 10 * mm)
        self.setFont(self.footer_font, 8)
        self.setFillColor(colors.HexColor("#444444"))
        self.drawString(MARGIN, 6.5 * mm, self.footer_left)
        self.drawRightString(width - MARGIN, 6.5 * mm, f"page {self._pageNumber} of {total}")
        self.restoreState()


def _status_cell(status: str, detail: str, fonts: _Fonts, st: _Styles) -> Paragraph:
    """A matrix cell: coloured symbol + status word (bold), then the judged values in small text."""
    ink = STATUS_INK[status].hexval()[2:]
    text = (f'<font color="#{ink}"><b>{fonts.sym(STATUS_SYMBOL[status])} {STATUS_TEXT[status]}</b></font>'
            f'<br/>{_clean(clip(detail, 160), fonts)}')  # a narrow cell: long device text is cut (JSON has all)
    return Paragraph(text, st.cell_small)


def _matrix_table(host: Host, findings: list[Finding], fonts: _Fonts, st: _Styles) -> Table | Paragraph:
    """The capability matrix of ``host``: header row of capability titles, one row per physical pNIC."""
    rows = capability_matrix(host, findings)
    if not rows:
        return Paragraph("No physical NIC was reported for this host.", st.body)
    first_w = 34 * mm
    col_w = (FRAME_WIDTH - first_w) / len(CAPABILITIES)
    data: list[list[Any]] = [[Paragraph("pNIC", st.cell_head)] + [Paragraph(_clean(c.title, fonts), st.cell_head)
                                                                  for c in CAPABILITIES]]
    style = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 2.5),
        ("RIGHTPADDING", (0, 0), (-1, -1), 2.5),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
    ]
    for r, row in enumerate(rows, start=1):
        pnic = host.pnic(row.pnic)
        sub = " · ".join(x for x in (pnic.driver if pnic else None, pnic.pci_address if pnic else None) if x)
        name = f"<b>{_clean(row.pnic, fonts)}</b>"
        if sub:
            name += f'<br/>{_clean(sub, fonts)}'
        line: list[Any] = [Paragraph(name, st.cell)]
        for c, cap in enumerate(CAPABILITIES, start=1):
            cell = row.cells[cap.key]
            line.append(_status_cell(cell.status, cell.text, fonts, st))
            style.append(("BACKGROUND", (c, r), (c, r), STATUS_FILL[cell.status]))
        data.append(line)
    table = Table(data, colWidths=[first_w] + [col_w] * len(CAPABILITIES), repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(style))
    return table


def _legend(fonts: _Fonts, st: _Styles) -> Paragraph:
    parts = []
    for status in ("pass", "warn", "fail", "unknown", "n/a"):
        ink = STATUS_INK[status].hexval()[2:]
        parts.append(f'<font color="#{ink}"><b>{fonts.sym(STATUS_SYMBOL[status])} {STATUS_TEXT[status]}</b></font>')
    explain = ("pass: the facts it needs known, no finding · warn / fail: the worst warning / error finding on the "
               "pNIC or its path (switch, TEP vmknic, host MTU test), or a warning that holds if the pNIC carries "
               "overlay · unknown: the facts were not reported (collect more inputs) · n/a: not judged (a “no” no "
               "rule judged, a pNIC that carries no overlay)")
    return Paragraph("Legend: " + " &nbsp; ".join(parts) + f"<br/>{explain}", st.small)


def _evidence_flowables(ev: Evidence, fonts: _Fonts, st: _Styles, roots: list[str] | None = None) -> list[Any]:
    """The command (with its source, relative to the input ``roots``) and the raw line of one evidence."""
    cmd = f"$ {_clean(ev.command, fonts)}" if ev.command else "(no command recorded)"
    if ev.source:
        cmd += f'  <font name="{fonts.italic}">[{_clean(display_source(ev.source, roots or []), fonts)}]</font>'
    out: list[Any] = [Paragraph(cmd, st.evidence_cmd)]
    if ev.line:
        out.append(Paragraph(_mono(ev.line, fonts), st.evidence_line))
    return out


_GRID = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
         ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")), ("VALIGN", (0, 0), (-1, -1), "TOP")]
_SEVERITY_SYMBOL = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "ℹ"}
#: Most characters of device text shown in one table cell (a cell taller than a page cannot be laid out).
_CELL_CHARS = 800
#: One-line column titles of the scorecard.
_SHORT_TITLE = {"geneve_offload": "Geneve", "rx_filter": "Rx filter", "rss": "RSS", "ens": "ENS",
                "pcie": "PCIe", "coalescing": "Coalesc.", "driver": "Driver"}


class _FormField(Flowable):
    """An AcroForm field drawn where the flowable lands: a checkbox (``width`` None) or a one-line text field."""

    def __init__(self, name: str, tooltip: str, width: float | None = None, height: float = 11) -> None:
        super().__init__()
        self.name, self.tooltip, self.field_width, self.height = name, tooltip, width, height
        self.width = width if width is not None else height

    def wrap(self, _available_width: float, _available_height: float) -> tuple[float, float]:  # reportlab API
        return self.width, self.height

    def draw(self) -> None:  # reportlab API
        form = self.canv.acroForm
        if self.field_width is None:
            form.checkbox(name=self.name, tooltip=self.tooltip, x=0, y=0, size=self.height, relative=True,
                          buttonStyle="check", borderWidth=0.8, borderColor=colors.HexColor("#444444"),
                          fillColor=colors.white, forceBorder=True)
        else:
            form.textfield(name=self.name, tooltip=self.tooltip, x=0, y=0, width=self.field_width,
                           height=self.height, relative=True, fontSize=8, borderWidth=0.6,
                           borderColor=colors.HexColor("#666666"), fillColor=colors.HexColor("#fbfbfb"),
                           forceBorder=True)


def _fields_row(prefix: str, labels: tuple[tuple[str, str, float], ...], st: _Styles) -> Table:
    """A row of labelled text fields: ``(key, label, width in mm)`` each, named ``<prefix>.<key>``."""
    cells: list[Any] = []
    widths: list[float] = []
    for key, label, width in labels:
        cells += [Paragraph(f"<b>{label}</b>", st.cell), _FormField(f"{prefix}.{key}", label, width * mm)]
        widths += [len(label) * 1.9 * mm + 4 * mm, width * mm + 4 * mm]
    table = Table([cells], colWidths=widths, hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 2)]))
    return table


def _some(names: Iterable[str], shown: int = 8) -> str:
    """``"a, b, c and 12 more"``: a list that fits in a table cell."""
    names = list(names)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _verdict_cell(v: Any, fonts: _Fonts, st: _Styles) -> Paragraph:
    """A Verdict or HostVerdict as a table cell: coloured symbol and label, then the reason."""
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    return Paragraph(f'<font color="#{ink}"><b>{fonts.sym(SYMBOL[v.status])} {v.label}</b></font> '
                     f'{_clean(v.reason, fonts)}', st.cell_small)


def _exec_summary(audit: Audit, title: str, plan: list[RemediationItem], fonts: _Fonts, st: _Styles) -> list[Any]:
    """Page 1: verdict and causes, verdict and scorecard per host, top actions, scope."""
    summary = summarize(audit)
    v = audit.verdict
    story: list[Any] = [Paragraph(_clean(title, fonts), st.title),
                        Paragraph(f"Executive summary · audit of {_clean(audit.created_at, fonts)} · generated by "
                                  f"{TOOL_NAME} {_clean(__version__, fonts)}", st.body), Spacer(1, 2 * mm)]
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    story.append(Paragraph(f'<font color="#{ink}">{fonts.sym(v.symbol)} {v.label}</font> for the NSX Geneve overlay '
                           f'<font name="{fonts.regular}" size="10">({_clean(v.reason, fonts)})</font>', st.verdict))
    # causes that are a host's own reason are in the table below; list here only the others (unread inputs)
    causes = [c for c in v.causes if not any(c.startswith(f"{h.host}: ") for h in v.hosts)]
    if causes:
        story.append(Paragraph("Why it could not be rated in full:", st.body))
        story.extend(_bullets(causes[:COVER_INPUTS], fonts, st))
        if len(causes) > COVER_INPUTS:
            story.append(Paragraph(f"… and {len(causes) - COVER_INPUTS} more (JSON “verdict.causes”).", st.small))
    story.extend(_missing_checks_cover(audit, v, fonts, st))

    shown = ", ".join(display_source(i, input_roots(audit)) for i in audit.inputs[:3])
    more = f" and {len(audit.inputs) - 3} more" if len(audit.inputs) > 3 else ""
    story.append(Paragraph(
        f"<b>Scope:</b> {summary['hosts']} host(s), {summary['pnics']} physical pNIC(s) ({summary['pseudo_devices']} pseudo "
        f"device(s) not rated); {summary['errors']} error, {summary['warnings']} warning and {summary['infos']} "
        f"information finding(s). Inputs ({len(audit.inputs)}): {_clean(shown or 'none', fonts)}{more} — every "
        f"input is listed in the appendix. Compatibility data: the database shipped with {TOOL_NAME} "
        f"{_clean(__version__, fonts)} (cited public sources); "
        + (f"the imported compatibility guide {_clean(guide_used(audit), fonts)}." if guide_used(audit) else
           "no imported compatibility guide was used (nic-advisor vcg import)."), st.body))
    if audit.inputs_not_understood:
        story.append(Paragraph(f"{len(audit.inputs_not_understood)} input(s) were not understood: see the appendix "
                               "“Inputs not understood”.", st.body))
    shown_of = f" ({TOP_ACTIONS} of {len(plan)}: all are in the remediation plan)" if len(plan) > TOP_ACTIONS else ""
    story.append(Paragraph(f"Top remediation actions{shown_of}", st.h2))
    if plan:
        rows = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("#", "Severity", "Action", "Targets", "Hosts")]]
        for n, item in enumerate(plan[:TOP_ACTIONS], start=1):
            rows.append([Paragraph(str(n), st.cell),
                         Paragraph(f"{fonts.sym(_SEVERITY_SYMBOL[item.severity])} {SEVERITY_WORD[item.severity]}",
                                   st.cell),
                         Paragraph(_clean(item.title, fonts), st.cell), Paragraph(str(len(item.targets)), st.cell),
                         Paragraph(_clean(_some(item.hosts, 3), fonts), st.cell_small)])
        table = Table(rows, colWidths=[8 * mm, 24 * mm, 118 * mm, 18 * mm, FRAME_WIDTH - 168 * mm], hAlign="LEFT")
        table.setStyle(TableStyle(_GRID))
        story.append(table)
    else:
        story.append(Paragraph("No error or warning finding: nothing to change"
                               + ("" if v.status == "ready" else " on what could be read") + ".", st.body))

    legend = _clean("each cell is the worst of that host's pNICs: ✖ fail, ▲ warn, ? unknown, – n/a, ✔ pass; the host "
                    "pages show every pNIC", fonts)
    # the legend rides on the heading line: as a paragraph of its own it fell alone onto page 2 (review)
    story.append(Paragraph(f'Verdict and scorecard per host <font size="8">({legend})</font>', st.h2))
    head = ["Host", "Verdict"] + [_SHORT_TITLE.get(c.key, c.title) for c in CAPABILITIES]
    rows: list[list[Any]] = [[Paragraph(f"<b>{_clean(h, fonts)}</b>", st.cell_small) for h in head]]
    style = list(_GRID)
    host_verdicts = {hv.host: hv for hv in v.hosts}
    for r, (host, worst) in enumerate(scorecard(audit), start=1):
        line: list[Any] = [Paragraph(_clean(host, fonts), st.cell_small),
                           _verdict_cell(host_verdicts[host], fonts, st)]
        for c, cap in enumerate(CAPABILITIES, start=2):
            status = worst[cap.key]
            line.append(Paragraph(f'<font color="#{STATUS_INK[status].hexval()[2:]}"><b>'
                                  f'{fonts.sym(STATUS_SYMBOL[status])}</b></font>', st.cell_center))
            style.append(("BACKGROUND", (c, r), (c, r), STATUS_FILL[status]))
        rows.append(line)
    caps_w = (FRAME_WIDTH - 37 * mm - 98 * mm) / len(CAPABILITIES)
    table = Table(rows, colWidths=[37 * mm, 98 * mm] + [caps_w] * len(CAPABILITIES), repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(style + [("LEFTPADDING", (0, 0), (-1, -1), 2.5), ("RIGHTPADDING", (0, 0), (-1, -1), 2.5),
                                       ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]))
    story.append(table)
    return story


def _missing_checks_cover(audit: Audit, v: Any, fonts: _Fonts, st: _Styles) -> list[Any]:
    """Page 1, before anything else about the hosts: the share of decided cells and the hosts rated, then each host's
    decisive checks not made (the commands are on its page, "Finish this audit")."""
    story: list[Any] = [Paragraph(_clean(coverage_of(audit, v).text, fonts), st.small)]
    lacking = [hv for hv in v.hosts if hv.missing]
    if lacking:
        lines = [f"{hv.host} ({hv.label}): {_some(dict.fromkeys(m.title for m in hv.missing), 4)}" for hv in lacking]
        story.append(Paragraph("Decisive checks not made (each host's page lists the commands: “Finish this "
                               "audit”):", st.small))
        story.extend(_bullets(lines[:COVER_INPUTS], fonts, st))
        if len(lines) > COVER_INPUTS:
            story.append(Paragraph(f"… and {len(lines) - COVER_INPUTS} more hosts (JSON “verdict.hosts[].missing”).",
                                   st.small))
    return story


def _finish_block(hv: Any, fonts: _Fonts, st: _Styles) -> list[Any]:
    """A host's "Finish this audit": the read-only commands still needed, one per line, to copy."""
    if hv is None or not hv.finish:
        return []
    return [Paragraph("Finish this audit", st.h2),
            Paragraph("Read-only commands still needed to decide every decisive check (run them on the host, then "
                      "audit again with their outputs):", st.body),
            Paragraph(_mono("\n".join(hv.finish), fonts), st.evidence_line)]


def _not_run_block(host: Host, fonts: _Fonts, st: _Styles) -> list[Any]:
    """A host's commands that a collector could not run (or ran only partly), by reason, with what the host said
    (:attr:`Host.not_run`); nothing when every command ran. Self-contained: one heading and one table."""
    if not host.not_run:
        return []
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Why", "Command", "What the host said")]]
    for label, items in not_run_groups(host.not_run):
        for n in items:
            rows.append([Paragraph(_clean(label, fonts), st.cell_small), Paragraph(_clean(n.command, fonts),
                                                                                   st.mono_cell),
                         Paragraph(_clean(n.detail or "—", fonts), st.cell_small)])
    table = Table(rows, colWidths=[45 * mm, 110 * mm, FRAME_WIDTH - 155 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    return [Paragraph(f"Commands that could not run ({len(host.not_run)})", st.h2),
            Paragraph("Read-only commands of the catalogue a collector could not run on this host, or ran only "
                      "partly: the facts they read are missing (see Finish this audit).", st.body), table]


def _decisive_legend(fonts: _Fonts, st: _Styles) -> list[Any]:
    """The table of decisive checks (nicadvisor.model.readiness.DECISIVE_CHECKS): what READY needs and why."""
    rows = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Decisive check", "Applies to", "Why it can break Geneve "
                                                                                      "traffic", "Reference")]]
    for c in DECISIVE_CHECKS:
        rows.append([Paragraph(_clean(c.title, fonts), st.cell_small), Paragraph(_clean(c.applies, fonts), st.cell_small),
                     Paragraph(_clean(c.why, fonts), st.cell_small), Paragraph(_clean(c.reference, fonts), st.cell_small)])
    table = Table(rows, colWidths=[40 * mm, 55 * mm, 100 * mm, FRAME_WIDTH - 195 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    return [Paragraph("What READY needs: the decisive checks", st.h2),
            Paragraph("A host is READY only when each of these was decided on its overlay pNICs (or, with no known "
                      "role, its candidates) and no finding is an error; NOT READY comes from an error finding; "
                      "otherwise it is NOT RATED, with the commands that decide what is missing.", st.body), table]


def _capability_chart(audit: Audit, fonts: _Fonts) -> Drawing:
    """Stacked bars: per capability column, how many physical pNICs are fail / warn / unknown / n/a / pass."""
    order = ("fail", "warn", "unknown", "n/a", "pass")
    counts = {s: [0] * len(CAPABILITIES) for s in order}
    for host in audit.hosts:
        for row in capability_matrix(host, audit.findings):
            for i, cap in enumerate(CAPABILITIES):
                counts[row.cells[cap.key].status][i] += 1
    drawing = Drawing(FRAME_WIDTH, 66 * mm)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 12 * mm, 14 * mm, FRAME_WIDTH - 70 * mm, 48 * mm
    chart.data = [counts[s] for s in order]
    chart.categoryAxis.categoryNames = [c.title.replace(" ", "\n", 1) for c in CAPABILITIES]
    chart.categoryAxis.style = "stacked"
    chart.categoryAxis.labels.fontName = fonts.regular
    chart.categoryAxis.labels.fontSize = 8
    chart.valueAxis.labels.fontName = fonts.regular
    chart.valueAxis.labels.fontSize = 8
    chart.valueAxis.valueMin = 0
    for i, status in enumerate(order):
        chart.bars[i].fillColor = STATUS_INK[status] if status in ("fail", "pass") else STATUS_FILL[status]
        chart.bars[i].strokeColor = colors.HexColor("#666666")
    drawing.add(chart)
    legend = Legend()
    legend.x, legend.y = FRAME_WIDTH - 50 * mm, 55 * mm
    legend.fontName, legend.fontSize = fonts.regular, 8
    legend.columnMaximum = len(order)
    legend.alignment = "right"
    legend.deltay = 12
    legend.colorNamePairs = [(chart.bars[i].fillColor, f"{STATUS_TEXT[s]} ({sum(counts[s])})")
                             for i, s in enumerate(order)]
    drawing.add(legend)
    return drawing


def _plan_item(n: int, item: RemediationItem, fonts: _Fonts, st: _Styles, roots: list[str]) -> list[Any]:
    """One remediation-plan item: checkbox and title, owner/ticket/due fields, recommendation, targets, references."""
    status = SEVERITY_STATUS[item.severity]
    ink = STATUS_INK[status].hexval()[2:]
    hosts = f"{len(item.hosts)} host{'s' if len(item.hosts) != 1 else ''}"
    head = Paragraph(f'{n}. <font color="#{ink}">{fonts.sym(_SEVERITY_SYMBOL[item.severity])} '
                     f'{SEVERITY_WORD[item.severity]}</font> — {_clean(item.title, fonts)} '
                     f'<font name="{fonts.regular}">({len(item.targets)} target(s) on {hosts}; rule '
                     f'{_clean(item.rule_id, fonts)})</font>', st.item_head)
    top = Table([[_FormField(f"item{n}.done", f"Item {n} done"), head]], colWidths=[7 * mm, FRAME_WIDTH - 7 * mm],
                hAlign="LEFT")
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                             ("TOPPADDING", (0, 0), (0, 0), 5)]))
    parts: list[Any] = [top, _fields_row(f"item{n}", (("owner", "Owner", 55), ("ticket", "Change ticket", 45),
                                                     ("due", "Due date", 30)), st)]
    where = (f" (as written for {_clean(item.recommendation_for, fonts)}; the same for each target, with its own "
             f"names)") if item.varies else ""
    parts.append(Paragraph(f"<b>Recommendation{where}:</b> {_clean(item.recommendation, fonts)}", st.item))
    if item.rollback:
        parts.append(Paragraph(f"<b>Roll back:</b> {_clean(item.rollback, fonts)}", st.item))
    if item.conditional:
        parts.append(Paragraph("<b>Conditional:</b> no TEP or NSX host switch is known on these targets yet; this "
                               "applies to each one that will carry the overlay.", st.item))
    rows: list[list[Any]] = []
    for k, f in enumerate(item.findings):
        ev = f.evidence[0] if f.evidence else None
        # a table cell cannot run over a page: the shown evidence is shortened (the JSON keeps the whole line)
        evidence = (f"$ {_clean(clip(ev.command, _CELL_CHARS), fonts)} "
                    f"[{_clean(clip(display_source(ev.source, roots), _CELL_CHARS), fonts)}]<br/>"
                    f"{_clean(clip(ev.line, _CELL_CHARS), fonts)}" if ev else "—")
        rows.append([_FormField(f"item{n}.target{k + 1}", f"Item {n}: {f.target} done", height=9),
                     Paragraph(_clean(clip(f.target, _CELL_CHARS), fonts), st.cell),
                     Paragraph(_clean(clip(f.message, _CELL_CHARS), fonts), st.cell_small),
                     Paragraph(evidence, st.mono_cell)])
    targets = Table(rows, colWidths=[7 * mm, 50 * mm, 100 * mm, FRAME_WIDTH - 164 * mm], hAlign="RIGHT")
    targets.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#bbbbbb"))]))
    parts.append(targets)
    if item.references:
        parts.append(Paragraph("<b>References:</b> " + "; ".join(_clean(r, fonts) for r in item.references), st.item))
    head_parts = 3 + bool(item.rollback) + item.conditional
    return [KeepTogether(parts[:head_parts]), *parts[head_parts:], Spacer(1, 2 * mm)]


def _plan_section(plan: list[RemediationItem], fonts: _Fonts, st: _Styles, roots: list[str]) -> list[Any]:
    story: list[Any] = [PageBreak(), Paragraph("Remediation plan", st.h1),
                        Paragraph("One item per rule, errors first. Tick an item and each target when done; fill in "
                                  "the owner, change ticket and due date (the fields can be filled in and saved in a "
                                  "PDF reader). Information-only findings are in the appendix.", st.body)]
    if not plan:
        story.append(Paragraph("No error or warning finding: nothing to change on what could be read.", st.body))
    for n, item in enumerate(plan, start=1):
        story.extend(_plan_item(n, item, fonts, st, roots))
    return story


def _host_section(index: int, host: Host, audit: Audit, plan: list[RemediationItem], host_verdicts: dict[str, Any],
                  fonts: _Fonts, st: _Styles) -> list[Any]:
    """A host's page: facts, capability matrix, the plan items that concern it, sign-off fields."""
    findings = list(audit.findings)
    kind = {"esxi": "ESXi", "linux": "Linux"}.get(host.kind or "", host.kind)
    release = release_text(host)
    facts = [x for x in (kind, f"release {release}" if release else None) if x]
    story: list[Any] = [PageBreak(), Paragraph(f"Host {_clean(host.name, fonts)}", st.h1)]
    verdict = host_verdicts.get(host.name)
    if verdict is not None:
        story.append(_verdict_cell(verdict, fonts, st))
    if facts:
        story.append(Paragraph(_clean(" · ".join(facts), fonts), st.body))
    story.extend(_finish_block(verdict, fonts, st))
    story.extend(_not_run_block(host, fonts, st))
    story.append(Paragraph("Capability matrix", st.h2))
    matrix = _matrix_table(host, findings, fonts, st)
    story.append(matrix)
    if isinstance(matrix, Table):
        story.append(Spacer(1, 1.5 * mm))
        story.append(_legend(fonts, st))
    pseudo = [p.name for p in host.pnics if p.is_physical is False]
    if pseudo:
        story.append(Paragraph(f"Not rated (pseudo devices): {_clean(', '.join(pseudo), fonts)}", st.small))
    story.extend(_switch_ports(host, fonts, st))
    mine = [(n, item) for n, item in enumerate(plan, start=1) if host.name in item.hosts]
    story.append(Paragraph(f"Plan items for {_clean(host.name, fonts)} ({len(mine)})", st.h2))
    if not mine:
        story.append(Paragraph("No error or warning finding on this host.", st.body))
    for n, item in mine:
        targets = [t for t in item.targets if t == host.name or t.startswith(host.name + "/")]
        story.append(Paragraph(f"{n}. {fonts.sym(_SEVERITY_SYMBOL[item.severity])} {_clean(item.title, fonts)}: "
                               f"{_clean(', '.join(t.partition('/')[2] or t for t in targets), fonts)}", st.item))
    story.append(Paragraph("Sign-off", st.h2))
    story.append(_fields_row(f"signoff{index}", (("name", "Signed off by", 70), ("date", "Date", 35)), st))
    return story


def _switch_ports(host: Host, fonts: _Fonts, st: _Styles) -> list[Any]:
    """Where each physical pNIC of ``host`` is cabled (LLDP/CDP: :func:`switch_port_cell`), one line per pNIC whose
    switch port is known; the pNICs whose port is not known share one line naming the command that reads it."""
    physical = [p for p in host.pnics if p.is_physical is not False]
    known = [(p.name, switch_port_cell(host, p)) for p in physical if p.switch_port_text()]
    unknown = [p for p in physical if not p.switch_port_text()]
    lines = [f"{name}: {where}" for name, where in known]
    if unknown:
        lines.append(f"{', '.join(p.name for p in unknown)}: {switch_port_cell(host, unknown[0])}")  # a host-wide read
    if not lines:
        return []
    return [Paragraph("Switch ports", st.h2)] + [Paragraph(_clean(line, fonts), st.small) for line in lines]


def _fmt_num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        return f"{value:,.{digits}f}".rstrip("0").rstrip(".") if isinstance(value, float) else f"{value:,}"
    return str(value)


def _measured(b: dict[str, Any]) -> list[tuple[float, str]]:
    """The measured values of one benchmark result with their units."""
    out = []
    for key, unit in (("throughput_gbps", "Gbit/s"), ("transactions_per_s", "transactions/s"), ("latency_us", "µs")):
        value = b.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if unit == "Gbit/s" and value < 1:
                value, unit = value * 1000, "Mbit/s"  # never "0 Gbit/s" for a shaped or slow link
            out.append((float(value), unit))
    return out


def earlier_lines(results: list[dict[str, Any]], earlier: list[list[Any]] | None) -> list[str]:
    """One line per result that has earlier runs of the same test on the same path (``earlier``: per result, newest
    first, :mod:`nicadvisor.services.bench_history`): ``"TCP_STREAM (netperf) a→b: 9.41 Gbit/s on 2026-11-20
    (audit #12, PASS); …"``. Shared by the PDF and the HTML."""
    lines = []
    for b, runs in zip(results, earlier or []):
        if runs:
            where = f" {b['client']}→{b['server']}" if b.get("client") else f" on {b.get('path', '')}"
            lines.append(f"{b.get('spec') or b.get('test', '')} ({b.get('tool', '')}){where}: "
                         + "; ".join(run.text() for run in runs))
    return lines


def _benchmark_section(audit: Audit, fonts: _Fonts, st: _Styles, earlier: list[list[Any]] | None = None) -> list[Any]:
    results = [benchmark_entry(b) for b in (audit.benchmarks or [])]
    if not results:
        return []
    story: list[Any] = [PageBreak(), Paragraph("Benchmarks", st.h1),
                        Paragraph("Each result says where it ran, and is compared only with an expectation for that "
                                  "same path (none where no figure exists for it); the basis says where the "
                                  "expectation comes from. A loopback or namespace run measures the machine running "
                                  "NIC Advisor, not the audited hosts.", st.body), Spacer(1, 2 * mm)]
    head = ("Test", "Tool", "Where it ran", "Measured", "Expected", "Compared", "Basis", "Duration")
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in head]]
    for b in results:
        measured = _measured(b)
        expected = b.get("expected") if isinstance(b.get("expected"), dict) else {}
        exp = expected_from_dict(expected)
        exp_text = exp.text() if exp is not None else "—"
        ratio = (f"{b['verdict'].upper()}: " if b.get("verdict") else "") + str(b.get("comparison") or "")
        meas_text = "<br/>".join(_clean(f"{_fmt_num(v)} {u}", fonts) for v, u in measured) or "—"
        duration = b.get("duration_s")
        rows.append([
            Paragraph(_clean(b.get("spec") or b.get("test", ""), fonts), st.cell), Paragraph(_clean(b.get("tool", ""), fonts), st.cell),
            Paragraph(_clean(b.get("endpoints") or b.get("path") or "—", fonts), st.cell_small),
            Paragraph(meas_text, st.cell),
            Paragraph(_clean(exp_text, fonts), st.cell), Paragraph(_clean(ratio, fonts), st.cell),
            Paragraph(_clean(expected.get("basis") or "—", fonts), st.cell_small),
            Paragraph(_clean(f"{_fmt_num(duration)} s" if duration is not None else "—", fonts), st.cell),
        ])
    table = Table(rows, colWidths=[26 * mm, 18 * mm, 50 * mm, 30 * mm, 28 * mm, 53 * mm, 45 * mm, 19 * mm],
                  repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(table)
    charts = [c for c in (_bench_chart(results, "Gbit/s", "throughput_gbps", fonts, earlier),
                          _bench_chart(results, "µs", "latency_us", fonts, earlier)) if c is not None]
    if charts:
        # the heading stays with its first chart (it was left alone at the foot of a page)
        story.append(KeepTogether([Paragraph("Measured against expected", st.h2), charts[0]]))
        story.extend(charts[1:])
    for title, drawing in (("Latency per transaction: mean and percentiles", _percentile_chart(results, fonts)),
                           ("TCP_RR payload sweep: round trip by request size", _sweep_chart(results, fonts))):
        if drawing is not None:
            story.append(KeepTogether([Paragraph(title, st.h2), drawing]))
    history = earlier_lines(results, earlier)
    if history:
        story.append(KeepTogether([Paragraph("Earlier runs of the same tests", st.h2),
                                   Paragraph("From the audit history: the same test between the same hosts (or on the "
                                             "same path of this machine), newest first.", st.small),
                                   *_bullets(history, fonts, st)]))
    commands = [(b.get("spec") or b.get("test", ""), b.get("command")) for b in results if b.get("command")]
    if commands:
        story.append(Paragraph("Commands run", st.h2))
        for test, command in commands:
            text = " ".join(command) if isinstance(command, (list, tuple)) else str(command)
            story.append(Paragraph(f"{_clean(test, fonts)}: <font name=\"{fonts.mono}\">{_clean(text, fonts)}</font>",
                                   st.small))
    return story


def _mesh_section(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    """The TEP mesh the hosts hold (their ``path_tests``), as one table; [] without one."""
    from nicadvisor.model.path_tests import MESH_COLUMNS, all_path_tests, mesh_table

    rows = mesh_table(all_path_tests(audit.hosts))
    if not rows:
        return []
    table: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in MESH_COLUMNS]]
    for row in rows:
        result = row["Result"]
        table.append([Paragraph(_clean(row["From"], fonts), st.cell_small),
                      Paragraph(_clean(row["To"], fonts), st.cell_small), Paragraph(_clean(row["Frame"], fonts), st.cell),
                      Paragraph(f"<b>{result}</b>" if result == "FAIL" else result, st.cell),
                      Paragraph(_clean(row["Round trip min/avg/max"], fonts), st.cell),
                      Paragraph(_clean(row["Cause"], fonts), st.cell_small)])
    grid = Table(table, colWidths=[45 * mm, 45 * mm, 16 * mm, 15 * mm, 38 * mm, 110 * mm], repeatRows=1, hAlign="LEFT")
    style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
             ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")), ("VALIGN", (0, 0), (-1, -1), "TOP")]
    style += [("BACKGROUND", (3, i), (3, i), colors.HexColor("#f4c7c3")) for i, r in enumerate(rows, 1)
              if r["Result"] == "FAIL"]
    grid.setStyle(TableStyle(style))
    return [Paragraph("TEP mesh", st.h1),
            Paragraph("Don't-fragment pings between the hosts' TEPs (vmkping ++netstack=vxlan -I vmkN on ESXi, ping -M "
                      "do on Linux) at each sender's MTU and at 1600 bytes, the minimum Geneve needs, and at 56 bytes "
                      "after a size got no reply: \"cannot leave\" is the sender's vmknic or switch MTU, \"drops large "
                      "frames\" the path between (it carries the largest size that crossed), no reply at all an "
                      "unreachable peer. A failing pair is a finding on the TEP at each end, so the MTU column fails "
                      "for the uplinks of that TEP's switch only.", st.body), Spacer(1, 2 * mm), grid]


def _bench_chart(results: list[dict[str, Any]], unit: str, key: str, fonts: _Fonts,
                 earlier: list[list[Any]] | None = None) -> Drawing | None:
    """Bars of measured vs expected for the results measured in ``unit`` (``key`` holds the value), drawn without
    a display; None when no result is in that unit. A result without an expectation shows its measured bar only.
    ``earlier`` (per result, newest first): a fourth bar shows the newest earlier run of the same test."""
    picked = [i for i, b in enumerate(results) if isinstance(b.get(key), (int, float))]
    if not picked:
        return None
    rows = [results[i] for i in picked]
    measured = [float(b[key]) for b in rows]
    runs = earlier if earlier and len(earlier) == len(results) else None
    previous = [next((r.value for r in runs[i] if r.unit == unit), 0.0) for i in picked] if runs else []
    edges = [(e.low, e.high) if e is not None and e.unit == unit and e.is_band else
             (e.value, e.value) if e is not None and e.unit == unit else (0.0, 0.0)
             for e in (expected_from_dict(b.get("expected")) for b in rows)]
    drawing = Drawing(FRAME_WIDTH, 60 * mm)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 14 * mm, 20 * mm, FRAME_WIDTH - 28 * mm, 36 * mm
    chart.data = [measured, [lo or 0.0 for lo, _ in edges], [hi or 0.0 for _, hi in edges]]
    if any(previous):
        chart.data.append(previous)
    _categories(chart, rows, fonts)
    chart.valueAxis.valueMin = 0
    chart.bars[0].fillColor, chart.bars[1].fillColor = colors.HexColor("#3b6ea5"), colors.HexColor("#e0e0e0")
    chart.bars[2].fillColor = colors.HexColor("#a8a8a8")
    if any(previous):
        chart.bars[3].fillColor = colors.HexColor("#9fb8d6")
    drawing.add(chart)
    if any(previous):  # four in one row: shorter words
        pairs = [(chart.bars[0].fillColor, f"measured ({unit})"),
                 (chart.bars[1].fillColor, f"expected, low edge ({unit})"),
                 (chart.bars[2].fillColor, f"expected, high edge ({unit})"),
                 (chart.bars[3].fillColor, "newest earlier run, same test and path")]
        drawing.add(_chart_legend(pairs, fonts, deltax=62 * mm))
    else:  # one row under the chart: at its right it was cut at the page edge (review)
        pairs = [(chart.bars[0].fillColor, f"measured ({unit})"),
                 (chart.bars[1].fillColor, f"expected for the same path, low edge ({unit})"),
                 (chart.bars[2].fillColor, f"expected for the same path, high edge ({unit})")]
        drawing.add(_chart_legend(pairs, fonts, deltax=78 * mm))
    return drawing


PERCENTILE_COLOURS = {"mean": "#3b6ea5", "p50": "#8fb0d8", "p90": "#d4a017", "p99": "#c0392b"}
SWEEP_COLOURS = ("#3b6ea5", "#c0392b", "#2e8b57", "#d4a017", "#7d3c98")


def _categories(chart: VerticalBarChart, docs: list[dict[str, Any]], fonts: _Fonts) -> None:
    """Name a bar chart's groups after ``docs`` (:func:`chart_label`); with more than four groups only the test
    (``"TCP_RR 64 B"``, the table above says the tool and ends), turned 30° so that they do not overlap."""
    crowded = len(docs) > 4
    chart.categoryAxis.categoryNames = [str(d.get("spec") or d.get("test", "")) if crowded else chart_label(d)
                                        for d in docs]
    for axis in (chart.categoryAxis.labels, chart.valueAxis.labels):
        axis.fontName, axis.fontSize = fonts.regular, 8
    if crowded:
        chart.categoryAxis.labels.angle, chart.categoryAxis.labels.boxAnchor = 30, "ne"
        chart.categoryAxis.labels.fontSize = 7


def _chart_legend(pairs: list[tuple[Any, str]], fonts: _Fonts, deltax: float = 40 * mm) -> Legend:
    """A chart's legend: ``pairs`` of (colour, words) in one row under the chart, ``deltax`` apart, each swatch
    before its words."""
    legend = Legend()
    legend.x, legend.y = 14 * mm, 4 * mm
    legend.alignment = "right"
    legend.columnMaximum, legend.deltax, legend.dxTextSpace = 1, deltax, 3
    legend.fontName, legend.fontSize = fonts.regular, 8
    legend.colorNamePairs = pairs
    return legend


def _percentile_chart(results: list[dict[str, Any]], fonts: _Fonts) -> Drawing | None:
    """Grouped bars mean/p50/p90/p99 latency (µs) per request/response result (:func:`percentile_rows`); None
    when no result reports percentiles."""
    docs = [d for d in results if percentile_rows([d])]
    if not docs:
        return None
    rows = percentile_rows(docs)
    names = [n for n in PERCENTILE_COLOURS if any(n in v for _, v in rows)]
    drawing = Drawing(FRAME_WIDTH, 60 * mm)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 14 * mm, 20 * mm, FRAME_WIDTH - 28 * mm, 36 * mm
    chart.data = [[v.get(n, 0.0) for _, v in rows] for n in names]
    _categories(chart, docs, fonts)
    chart.valueAxis.valueMin = 0
    for k, n in enumerate(names):
        chart.bars[k].fillColor = colors.HexColor(PERCENTILE_COLOURS[n])
    drawing.add(chart)
    drawing.add(_chart_legend([(colors.HexColor(PERCENTILE_COLOURS[n]), f"{n} latency (µs)") for n in names], fonts))
    return drawing


def _sweep_chart(results: list[dict[str, Any]], fonts: _Fonts) -> Drawing | None:
    """TCP_RR round trip (µs) by request size (bytes, log2 axis), one line per tool and path
    (:func:`sweep_series`); None without a sweep (two sizes or more)."""
    import math

    series = sweep_series(results)
    if not series:
        return None
    drawing = Drawing(FRAME_WIDTH, 60 * mm)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 14 * mm, 20 * mm, FRAME_WIDTH - 28 * mm, 36 * mm
    plot.data = [[(math.log2(p), v) for p, v in points] for points in series.values()]
    payloads = sorted({p for points in series.values() for p, _ in points})
    plot.xValueAxis.valueSteps = [math.log2(p) for p in payloads]
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = math.log2(payloads[0]) - 0.3, math.log2(payloads[-1]) + 0.3
    plot.xValueAxis.labelTextFormat = lambda v: f"{round(2 ** v)} B"
    plot.yValueAxis.valueMin = 0
    for axis in (plot.xValueAxis.labels, plot.yValueAxis.labels):
        axis.fontName, axis.fontSize = fonts.regular, 8
    for k in range(len(series)):
        colour = colors.HexColor(SWEEP_COLOURS[k % len(SWEEP_COLOURS)])
        plot.lines[k].strokeColor, plot.lines[k].strokeWidth = colour, 1.5
        plot.lines[k].symbol = makeMarker("FilledCircle", size=4, fillColor=colour, strokeColor=colour)
    drawing.add(plot)
    drawing.add(_chart_legend([(colors.HexColor(SWEEP_COLOURS[k % len(SWEEP_COLOURS)]), f"{name}: TCP_RR round trip (µs)")
                         for k, name in enumerate(series)], fonts, deltax=90 * mm))
    return drawing


def chart_drawings(audit: Audit, earlier: list[list[Any]] | None = None) -> list[tuple[str, Drawing]]:
    """The charts of the report as ``(title, Drawing)``, for another format (the HTML export renders them as SVG):
    the capability summary when there are pNICs, and measured against expected for the benchmark results in
    Gbit/s and in µs (those there are), with the newest earlier run of each test from ``earlier``. Pure but for
    registering the fonts."""
    fonts = _register_fonts()
    out: list[tuple[str, Drawing]] = []
    if any(h.pnics for h in audit.hosts):
        out.append(("Capability summary: how many physical pNICs have each status, per column",
                    _capability_chart(audit, fonts)))
    results = [benchmark_entry(b) for b in (audit.benchmarks or [])]
    for unit, key in (("Gbit/s", "throughput_gbps"), ("µs", "latency_us")):
        drawing = _bench_chart(results, unit, key, fonts, earlier)
        if drawing is not None:
            out.append((f"Benchmarks: measured against expected ({unit})", drawing))
    for title, drawing in (("Benchmarks: latency per transaction, mean and percentiles", _percentile_chart(results, fonts)),
                           ("Benchmarks: TCP_RR payload sweep", _sweep_chart(results, fonts))):
        if drawing is not None:
            out.append((title, drawing))
    return out


def _bullets(items: Iterable[str], fonts: _Fonts, st: _Styles) -> list[Paragraph]:
    """One small bulleted paragraph per item (long paths wrap inside their own bullet)."""
    return [Paragraph(_clean(i, fonts), st.bullet, bulletText="•") for i in items]


def _inputs_appendix(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    """Appendix "Inputs read": each host's inputs, then audit inputs that no host lists."""
    roots = input_roots(audit)
    story: list[Any] = [PageBreak(), Paragraph("Appendix: inputs read", st.h1),
                        Paragraph("Paths are relative to the folders given as inputs.", st.small)]
    per_host = set()
    for host in audit.hosts:
        story.append(Paragraph(f"{_clean(host.name, fonts)} ({len(host.inputs)})", st.h2))
        story.extend(_bullets([display_source(i, roots) for i in host.inputs], fonts, st)
                     or [Paragraph("No inputs recorded for this host.", st.small)])
        per_host.update(host.inputs)
    rest = [i for i in audit.inputs if i not in per_host]
    if rest:
        story.append(Paragraph(f"Given as inputs ({len(rest)})", st.h2))
        story.extend(_bullets([display_source(i, roots) for i in rest], fonts, st))
    return story


def _appendix(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    story: list[Any] = [PageBreak(), Paragraph("Appendix: inputs not understood", st.h1)]
    problems = audit.inputs_not_understood
    if not problems:
        story.append(Paragraph("Every input was understood.", st.body))
        return story
    story.append(Paragraph("These inputs were skipped or only partly read; facts they hold are missing from the "
                           "matrix above.", st.body))
    story.append(Spacer(1, 2 * mm))
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Source", "Command", "Message")]]
    for p in problems:
        rows.append([Paragraph(_clean(display_source(p.source, input_roots(audit)), fonts), st.mono_cell),
                     Paragraph(_clean(p.command or "—", fonts), st.mono_cell),
                     Paragraph(_clean(p.message, fonts), st.cell)])
    table = Table(rows, colWidths=[85 * mm, 70 * mm, FRAME_WIDTH - 155 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(table)
    return story


def _info_appendix(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    items = info_items(audit)
    story: list[Any] = [PageBreak(), Paragraph("Appendix: information only (nothing to change)", st.h1)]
    if not items:
        story.append(Paragraph("No information-only finding.", st.body))
    for item in items:
        story.append(Paragraph(f"{fonts.sym('ℹ')} <b>{_clean(item.title, fonts)}</b> — "
                               f"{_clean(', '.join(item.targets), fonts)}", st.item))
        story.append(Paragraph(_clean(item.findings[0].message, fonts), st.small))
    return story


def build_story(audit: Audit, title: str = DEFAULT_TITLE, fonts: _Fonts | None = None,
                earlier: list[list[Any]] | None = None) -> list[Any]:
    """The platypus flowables of the whole document (see the module docstring for the order); ``earlier``: per
    benchmark result its earlier runs (:func:`nicadvisor.services.bench_history.for_audit`)."""
    fonts = fonts or _register_fonts()
    st = _Styles(fonts)
    plan = remediation_plan(audit)
    roots = input_roots(audit)
    story = _exec_summary(audit, title, plan, fonts, st)
    plan_part = _plan_section(plan, fonts, st, roots)
    if any(h.pnics for h in audit.hosts):
        story += [PageBreak(), Paragraph("Capability summary", st.h1),
                  Paragraph("How many physical pNICs have each status, per capability column.", st.body),
                  _capability_chart(audit, fonts)] + _decisive_legend(fonts, st)
        plan_part = plan_part[1:]  # the plan follows the chart on its page
    story.extend(plan_part)
    host_verdicts = {hv.host: hv for hv in audit.verdict.hosts}  # computed once: it reads every finding
    for index, host in enumerate(audit.hosts, start=1):
        story.extend(_host_section(index, host, audit, plan, host_verdicts, fonts, st))
    story.extend(_benchmark_section(audit, fonts, st, earlier))
    mesh = _mesh_section(audit, fonts, st)
    if mesh:
        story += [PageBreak(), *mesh]
    story.extend(_info_appendix(audit, fonts, st))
    story.extend(_appendix(audit, fonts, st))
    story.extend(_inputs_appendix(audit, fonts, st))
    return story


class _OutlinedDoc(SimpleDocTemplate):
    """A document whose title and h1/h2 headings become PDF bookmarks (the outline a reader shows)."""

    def afterFlowable(self, flowable: Any) -> None:  # reportlab API name
        if not isinstance(flowable, Paragraph):
            return
        level = {"title": 0, "h1": 0, "h2": 1}.get(flowable.style.name)
        if level is None:
            return
        self._marks = getattr(self, "_marks", 0) + 1
        key = f"mark{self._marks}"
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(flowable.getPlainText()[:120], key, level=level, closed=level > 0)


def write_pdf(audit: Audit, path: str | os.PathLike[str], title: str = DEFAULT_TITLE, *,
              font_dir: str | os.PathLike[str] | None = None, earlier: list[list[Any]] | None = None) -> Path:
    """Write the tuning checklist of ``audit`` as an A4-landscape PDF to ``path`` (replaced atomically).

    ``font_dir`` holds the DejaVu TTF files (default :data:`FONT_DIR`); without them the PDF uses Helvetica
    and ASCII status symbols. ``earlier``: per benchmark result, its earlier runs from the audit history
    (:func:`nicadvisor.services.bench_history.for_audit`), charted and listed beside it.

    Returns the path. Raises OSError if it cannot be written, TypeError for a benchmark result without
    ``to_dict()``; reportlab's LayoutError only for content no page could hold (not expected: long cells
    and evidence lines wrap).
    """
    fonts = _register_fonts(None if font_dir is None else Path(font_dir))
    story = build_story(audit, title, fonts, earlier)
    footer = f"{TOOL_NAME} {__version__} · NSX pNIC tuning checklist · audit {audit.created_at}"

    class _Canvas(_NumberedCanvas):
        footer_left = footer if fonts.unicode else footer.encode("cp1252", "replace").decode("cp1252")
        footer_font = fonts.regular

    def _write(tmp: Path) -> None:
        doc = _OutlinedDoc(str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN,
                                topMargin=MARGIN, bottomMargin=16 * mm, title=title, author=TOOL_NAME,
                                subject="NSX Geneve overlay pNIC readiness", creator=f"{TOOL_NAME} {__version__}")
        doc.build(story, canvasmaker=_Canvas)

    return atomic_write(path, _write)


def write_diff_pdf(diff: Any, path: str | os.PathLike[str], title: str = "NIC Advisor — audit comparison", *,
                   font_dir: str | os.PathLike[str] | None = None) -> Path:
    """Write a :class:`nicadvisor.model.diff.AuditDiff` (before → after) as an A4-landscape PDF: both verdicts, then
    every change (hosts and objects added/removed, facts changed, findings fixed/new, benchmarks) as tables.
    Returns the path; raises OSError if it cannot be written."""
    fonts = _register_fonts(None if font_dir is None else Path(font_dir))
    st = _Styles(fonts)
    story: list[Any] = [Paragraph(_clean(title, fonts), st.title)]
    for word, when, v in (("Before", diff.before_created_at, diff.before_verdict),
                          ("After", diff.after_created_at, diff.after_verdict)):
        story.append(Paragraph(f"<b>{word}</b> (audit of {_clean(when, fonts)})", st.body))
        story.append(_verdict_cell(v, fonts, st))
    if diff.empty:
        story.append(Paragraph("No change: the same hosts, facts, findings and benchmark results.", st.body))

    def table(head: tuple[str, ...], rows: list[list[str]], widths: list[float]) -> Table:
        data = [[Paragraph(f"<b>{h}</b>", st.cell) for h in head]]
        data += [[Paragraph(_clean(c, fonts), st.cell) for c in r] for r in rows]
        t = Table(data, colWidths=[w * mm for w in widths], repeatRows=1, hAlign="LEFT")
        t.setStyle(TableStyle(_GRID))
        return t

    from nicadvisor.model.text import fact_text

    for name, items in (("Hosts added", diff.hosts_added), ("Hosts removed", diff.hosts_removed),
                        ("Added", diff.objects_added), ("Removed", diff.objects_removed)):
        if items:
            story += [Paragraph(f"{name} ({len(items)})", st.h2), *_bullets(items, fonts, st)]
    if diff.facts_changed:
        story.append(Paragraph(f"Facts changed ({len(diff.facts_changed)})", st.h2))
        story.append(table(("Target", "Kind", "Fact", "Before", "After"),
                           [[c.target, c.kind, c.fact, fact_text(c.before, "not known"), fact_text(c.after, "not known")]
                            for c in diff.facts_changed], [70, 20, 45, 65, 65]))
    for name, items in (("Findings fixed", diff.findings_fixed), ("Findings new", diff.findings_new)):
        if items:
            story.append(Paragraph(f"{name} ({len(items)})", st.h2))
            story.append(table(("Severity", "Target", "Finding"), [[f.severity.value, f.target, f.title] for f in items],
                               [25, 80, 160]))
    if diff.benchmarks:
        story.append(Paragraph("Benchmarks (before → after)", st.h2))
        story.append(table(("Test", "Path", "Before", "After", "Unit"),
                           [[b.test, b.path, fact_text(b.before, "—"), fact_text(b.after, "—"), b.unit]
                            for b in diff.benchmarks], [40, 60, 40, 40, 30]))

    def _write(tmp: Path) -> None:
        doc = _OutlinedDoc(str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
                           bottomMargin=16 * mm, title=title, author=TOOL_NAME, creator=f"{TOOL_NAME} {__version__}")
        doc.build(story)

    return atomic_write(path, _write)
