"""The PDF tuning checklist a change board signs, drawn with reportlab platypus (A4 landscape).

Contents, in order, each part built by a small section function from one :class:`_Report` (each heading a bookmark
of the PDF outline that leads to its page):

1. the cover (:func:`_cover`): fillable scope fields (change request, vCenter / cluster prefilled with the vCenter
   read, auditor), when the inputs were captured (:mod:`nicadvisor.report.scope`) beside when the audit ran and the
   report was made, the verdict (READY / NOT READY / NOT RATED, :mod:`nicadvisor.model.verdict`) with its causes, the
   scope in numbers, the top remediation actions, and the verdict and scorecard per host — one row per group of
   alike hosts (:mod:`nicadvisor.report.fleet`);
2. the board decision (:func:`_decision_section`): approve / approve with conditions / reject (radio buttons),
   conditions and comments, and who signs in which role and when;
3. the checks that ran with what passed (:mod:`nicadvisor.report.checks`), how to read the host pages (the legend,
   said once) and the capability summary chart;
4. the remediation plan (:func:`_plan_section`): who does each item by when, then one item per rule
   (:func:`nicadvisor.report.remediation.remediation_plan`) — why (said once), what to do, the exact change, its
   check and its roll-back (once per set of targets that share them), one row per host (or group) with a checkbox
   and each evidence line once, and the numbered references;
5. one page per host, or per group of alike hosts with what differs between them: the capability matrix (alike pNICs
   share a row) and the plan items that concern it; then the sign-off of the work per host;
6. benchmarks, when a result measured the audited hosts (else one line says that nothing comparable was measured);
   the TEP mesh, when a check between hosts left one (:func:`_mesh_section`: one row per pair and frame size, both
   ends, pass/fail, the round trips and the cause in words, :func:`nicadvisor.model.path_tests.mesh_table`);
   what people checked by hand, when the audit has attestations (:func:`_attestations_section`: who, when, how,
   the value seen and whether it decided a cell, agreed with the host or was overruled by a reading on the host);
7. appendices: information-only findings (a compatibility note cites its sources by number), inputs not
   understood, inputs read, the references (title, version, publisher, a link; never an internal file name) and the
   glossary.

Form fields are AcroForm fields (read them back with ``pypdf``'s ``get_fields()``). Evidence sources are shown
relative to the audit's input folders, never with the auditor's absolute paths. Every page has a footer with the tool
name, the audit date and "page N of M". Text comes out in DejaVu Sans / DejaVu Sans Mono (package
``fonts-dejavu-core``, oblique in ``fonts-dejavu-extra``) at 8 pt or more, chart labels included, so ✔ ▲ ✖ µ render;
without those fonts Helvetica/Courier are used and the symbols become ASCII. All user and device text is escaped
before it reaches reportlab's Paragraph markup.
"""
from __future__ import annotations

import os
import re
import datetime as _dt
from collections.abc import Iterable
from dataclasses import dataclass, field
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
    CondPageBreak,
    Flowable,
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table as _PlatypusTable,
    TableStyle,
)

from nicadvisor import __version__
from nicadvisor.bench.figures import chart_label, percentile_rows, sweep_series
from nicadvisor.bench.results import expected_from_dict
from nicadvisor.model.audit import Audit
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT
from nicadvisor.model.entities import Finding, Host, Severity, clip, findings_by_host, not_run_groups
from nicadvisor.model.references import Citation
from nicadvisor.model.text import escape_undecoded, plural
from nicadvisor.model.verdict import SYMBOL, coverage_of
from nicadvisor.report.checks import checks_run
from nicadvisor.report.finish import finish_block, missing_lines, missing_overview
from nicadvisor.report.fleet import (
    HostGroup, compact_names, group_label, grouped_problems, host_groups, host_index, host_title, release_label,
    row_labeller,
)
from nicadvisor.report.glossary import GLOSSARY
from nicadvisor.report.json_export import TOOL_NAME, atomic_write, benchmark_entry, summarize
from nicadvisor.report.legend import FINISH_HOWTO, PCIE_ON_ESXI, READY_RULE, SWITCH_PORTS, decisive_rows
from nicadvisor.report.remediation import (
    NO_COMMAND, STEP_LABELS, TOP_ACTIONS, ReferenceIndex, RemediationItem, Steps, cite_inline, display_source,
    guide_used, info_items, TargetRow, input_roots, matrix_cache, matrix_rows, plan_groups, remediation_plan,
    scorecard_row, top_actions,
    shared_message, steps, switch_ports, target_rows,
)
from nicadvisor.report.decision import approve_text, effort, in_scope, verdict_lines
from nicadvisor.report.scope import capture_lines
from nicadvisor.vcg.nsx_interop import host_support



class Table(_PlatypusTable):
    """reportlab's Table whose rows may also split inside a row across pages (``splitInRow``): a host with 32 or more
    alike pNICs has a row (its objects, its evidence lines) taller than a page, which reportlab otherwise refuses
    with LayoutError and no PDF at all (issue 29 §5). Tables still split between rows first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("splitInRow", 1)
        super().__init__(*args, **kwargs)


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
    s = escape_undecoded("" if text is None else str(text))  # bytes of a file name that were not UTF-8: \\xNN
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
        self.title = ParagraphStyle("title", fontName=f.bold, fontSize=18, leading=21, spaceAfter=1 * mm)
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
        self.verdict = ParagraphStyle("verdict", fontName=f.bold, fontSize=16, leading=19, spaceBefore=1 * mm)
        self.h2_cover = ParagraphStyle("h2", parent=self.h2, spaceBefore=2 * mm, spaceAfter=1 * mm)
        self.item_head = ParagraphStyle("item_head", parent=self.body, fontName=f.bold, fontSize=10, leading=13,
                                        leftIndent=7 * mm, firstLineIndent=-7 * mm, spaceBefore=3.5 * mm)
        self.item = ParagraphStyle("item", parent=self.body, leftIndent=7 * mm, spaceBefore=1 * mm)
        self.bullet = ParagraphStyle("bullet", parent=self.small, leftIndent=4 * mm, bulletIndent=0.5 * mm,
                                     bulletFontName=f.regular, splitLongWords=1)
        self.mono_cell = ParagraphStyle("mono_cell", parent=self.cell_small, fontName=f.mono, splitLongWords=1)
        self.command = ParagraphStyle("command", parent=self.mono_cell, backColor=colors.HexColor("#f2f2f2"),
                                      borderPadding=(1, 2, 1, 2), leading=10)
        self.reference = ParagraphStyle("reference", parent=self.small, leftIndent=8 * mm, firstLineIndent=-8 * mm,
                                        spaceBefore=1 * mm, splitLongWords=1)


class _NumberedCanvas(rl_canvas.Canvas):
    """A canvas that writes "page N of M" in every footer while it streams the pages.

    Each page draws a form named for its number (``pageof<N>``) that :meth:`save` defines once the page count is
    known: a PDF may use a form before it defines it. Pages are written as they end, so bookmarks and links point
    at their own page (a canvas that held every page back until the count was known sent all 59 outline entries
    of the demo report to page 1: issue 19 §1).
    """

    footer_left = ""
    footer_font = "Helvetica"

    def showPage(self) -> None:  # reportlab API name
        self._draw_footer()
        super().showPage()

    def save(self) -> None:  # reportlab API name
        total = self._pageNumber - 1  # showPage has run for every page
        width, _ = self._pagesize
        for n in range(1, total + 1):
            self.beginForm(f"pageof{n}")
            self.setFont(self.footer_font, 8)
            self.setFillColor(colors.HexColor("#444444"))
            self.drawRightString(width - MARGIN, 6.5 * mm, f"page {n} of {total}")
            self.endForm()
        super().save()

    def _draw_footer(self) -> None:
        width, _ = self._pagesize
        self.saveState()
        self.setStrokeColor(colors.HexColor("#999999"))
        self.setLineWidth(0.4)
        self.line(MARGIN, 10 * mm, width - MARGIN, 10 * mm)
        self.setFont(self.footer_font, 8)
        self.setFillColor(colors.HexColor("#444444"))
        self.drawString(MARGIN, 6.5 * mm, self.footer_left)
        self.doForm(f"pageof{self._pageNumber}")
        self.restoreState()


def _status_cell(status: str, detail: str, fonts: _Fonts, st: _Styles) -> Paragraph:
    """A matrix cell: coloured symbol + status word (bold), then the judged values in small text (none for a cell
    whose facts were not reported: the status says it)."""
    ink = STATUS_INK[status].hexval()[2:]
    text = f'<font color="#{ink}"><b>{fonts.sym(STATUS_SYMBOL[status])} {STATUS_TEXT[status]}</b></font>'
    if detail and detail != "not reported":  # a narrow cell: long device text is cut (JSON has all)
        text += f'<br/>{_clean(clip(detail, 160), fonts)}'
    return Paragraph(text, st.cell_small)


def _matrix_table(host: Host, findings: list[Finding], fonts: _Fonts, st: _Styles,
                  rows: list[Any] | None = None) -> Table | Paragraph:
    """The capability matrix of ``host`` (given its ``findings``): header row of capability titles, one row per
    physical pNIC — alike pNICs share a row that names them all (:func:`nicadvisor.report.remediation.matrix_rows`)."""
    rows = matrix_rows(host, findings, rows)
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
    for r, (names, row) in enumerate(rows, start=1):
        pnics = [host.pnic(n) for n in names]
        driver = pnics[0].driver if pnics[0] else None
        pci = [p.pci_address for p in pnics if p and p.pci_address]
        name = f"<b>{_clean(', '.join(names), fonts)}</b>"
        sub = " · ".join(x for x in (driver, ", ".join(pci)) if x)
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


def _legend(fonts: _Fonts, st: _Styles) -> list[Any]:
    """How to read a capability matrix: what each status means, said once for the whole report."""
    parts = []
    for status in ("pass", "warn", "fail", "unknown", "n/a"):
        ink = STATUS_INK[status].hexval()[2:]
        parts.append(f'<font color="#{ink}"><b>{fonts.sym(STATUS_SYMBOL[status])} {STATUS_TEXT[status]}</b></font>')
    explain = ("<b>pass</b>: the facts it needs known, no finding · <b>warn / fail</b>: the worst warning / error "
               "finding on the pNIC or its path (switch, TEP vmknic, host MTU test), or a warning that holds if the "
               "pNIC carries overlay · <b>unknown</b>: the facts were not reported (collect more inputs) · <b>n/a</b>: "
               "not judged (a “no” no rule judged, a pNIC that carries no overlay). Each cell also shows the values "
               "judged; the host pages show one row per physical pNIC, the scorecard on page 1 the worst cell of a "
               "host.")
    return [Paragraph(" &nbsp; ".join(parts), st.small), Paragraph(explain, st.small),
            Paragraph(_clean(SWITCH_PORTS, fonts), st.small)]


_GRID = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
         ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")), ("VALIGN", (0, 0), (-1, -1), "TOP")]
_SEVERITY_SYMBOL = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "ℹ"}
#: Most characters of device text shown in one table cell (a cell taller than a page cannot be laid out).
_CELL_CHARS = 800
#: One-line column titles of the scorecard.
_SHORT_TITLE = {"geneve_offload": "Geneve", "rx_filter": "Rx filter", "rss": "RSS", "ens": "ENS",
                "pcie": "PCIe", "coalescing": "Coalesc.", "driver": "Driver"}


class _FormField(Flowable):
    """An AcroForm field drawn where the flowable lands: a checkbox (``kind`` ``check``, ``width`` None), a radio
    button of the group ``name`` (``kind`` ``radio``, its ``value``), a one-line text field (``kind`` ``text``,
    prefilled with ``value``) or a multi-line one (``kind`` ``multiline``)."""

    def __init__(self, name: str, tooltip: str, width: float | None = None, height: float = 11, *,
                 kind: str = "", value: str = "") -> None:
        super().__init__()
        self.name, self.tooltip, self.field_width, self.height = name, escape_undecoded(tooltip), width, height
        self.kind = kind or ("check" if width is None else "text")
        self.value = value
        self.width = width if width is not None else height

    def wrap(self, _available_width: float, _available_height: float) -> tuple[float, float]:  # reportlab API
        return self.width, self.height

    def draw(self) -> None:  # reportlab API
        form = self.canv.acroForm
        border = {"borderColor": colors.HexColor("#444444"), "fillColor": colors.white, "forceBorder": True}
        if self.kind == "sig":  # reportlab makes no signature field: its place is kept, pypdf adds it (_add_signatures)
            self.canv.saveState()
            self.canv.setStrokeColor(colors.HexColor("#444444"))
            self.canv.setLineWidth(0.6)
            self.canv.rect(0, 0, self.field_width, self.height, stroke=1, fill=0)
            self.canv.restoreState()
            x, y = self.canv.absolutePosition(0, 0)
            sink = getattr(self.canv, "signatures", None)
            if sink is not None:
                sink.append((self.canv.getPageNumber(), x, y, self.field_width, self.height, self.name, self.tooltip))
        elif self.kind == "check":
            form.checkbox(name=self.name, tooltip=self.tooltip, x=0, y=0, size=self.height, relative=True,
                          buttonStyle="check", borderWidth=0.8, **border)
        elif self.kind == "radio":
            form.radio(name=self.name, tooltip=self.tooltip, value=self.value, selected=False, x=0, y=0,
                       size=self.height, relative=True, buttonStyle="circle", shape="square", borderWidth=0.8,
                       **border)
        else:
            form.textfield(name=self.name, tooltip=self.tooltip, x=0, y=0, width=self.field_width,
                           height=self.height, relative=True, fontSize=8, borderWidth=0.6, value=self.value,
                           borderColor=colors.HexColor("#666666"), fillColor=colors.HexColor("#fbfbfb"),
                           forceBorder=True, fieldFlags="multiline" if self.kind == "multiline" else "")


def _fields_row(prefix: str, labels: tuple[tuple[str, str, float], ...], st: _Styles,
                values: dict[str, str] | None = None) -> Table:
    """A row of labelled text fields: ``(key, label, width in mm)`` each, named ``<prefix>.<key>``, prefilled from
    ``values`` by key."""
    cells: list[Any] = []
    widths: list[float] = []
    for key, label, width in labels:
        cells += [Paragraph(f"<b>{label}</b>", st.cell),
                  _FormField(f"{prefix}.{key}", label, width * mm, value=(values or {}).get(key, ""))]
        widths += [len(label) * 1.9 * mm + 4 * mm, width * mm + 4 * mm]
    table = Table([cells], colWidths=widths, hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 2)]))
    return table


def _some(names: Iterable[str], shown: int = 8) -> str:
    """``"a, b, c and 12 more"``: a list that fits in a table cell."""
    names = list(names)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _verdict_cell(v: Any, fonts: _Fonts, st: _Styles, who: str = "", row_of: str = "") -> Paragraph:
    """A Verdict or HostVerdict as a table cell: ``who`` (a host's name) and its coloured symbol and label, then the
    reason; in the row of host ``row_of`` the reason does not name that host again ("… not made on HOST: …")."""
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    lead = f"{_clean(who, fonts)}: " if who else ""
    reason = v.reason.replace(f" on {row_of}:", ":") if row_of else v.reason
    return Paragraph(f'{lead}<font color="#{ink}"><b>{fonts.sym(SYMBOL[v.status])} {v.label}</b></font> '
                     f'{_clean(reason, fonts)}', st.cell_small)


@dataclass
class _Report:
    """What every section of one report shares, computed once (a fleet of 5,000 hosts must not recompute the
    verdict, the matrix or the plan per section)."""

    audit: Audit
    fonts: _Fonts
    st: _Styles
    title: str
    made_at: str
    verdict: Any
    plan: list[RemediationItem]
    roots: list[str]
    by_host: dict[str, list[Finding]]
    host_verdicts: dict[str, Any]
    groups: list[HostGroup]
    rows_of: Any = None  # host → its capability-matrix rows, computed once (remediation.matrix_cache)
    index: ReferenceIndex = field(default_factory=ReferenceIndex)
    #: (command, source, line) of the evidence already shown → the plan item that shows it (later items refer to it).
    shown: dict[tuple[str, str, str], int] = field(default_factory=dict)

    @property
    def group_number(self) -> dict[str, int]:
        """The first host of each group → the group's number (1-based: its page heading and the host index)."""
        if not hasattr(self, "_group_number"):
            self._group_number = {g.host.name: n for n, g in enumerate(self.groups, start=1)}
        return self._group_number

    @property
    def group_of(self) -> dict[str, HostGroup]:
        """Host name → its group."""
        if not hasattr(self, "_group_of"):
            self._group_of = {h: g for g in self.groups for h in g.hosts}
        return self._group_of

    def clean(self, text: Any) -> str:
        """:func:`_clean` in this report's fonts."""
        return _clean(text, self.fonts)

    def row_label(self) -> Any:
        """For :func:`nicadvisor.report.remediation.target_rows`: a host's row label, its group's for the first
        host of a group met in one plan item, None for the group's other hosts."""
        return row_labeller(self.group_of)


def _report(audit: Audit, title: str, fonts: _Fonts, made_at: str | None = None) -> _Report:
    verdict = audit.verdict
    by_host = findings_by_host(list(audit.findings))
    host_verdicts = {hv.host: hv for hv in verdict.hosts}
    made = made_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    rows_of = matrix_cache(by_host)
    return _Report(audit=audit, fonts=fonts, st=_Styles(fonts), title=title, made_at=made, verdict=verdict,
                   plan=remediation_plan(audit), roots=input_roots(audit), by_host=by_host,
                   host_verdicts=host_verdicts, groups=host_groups(audit, by_host, host_verdicts, rows_of),
                   rows_of=rows_of)


def _decision_page(r: _Report) -> list[Any]:
    """Page 1, what the board decides (issue 25 §1): the request (change request, target NSX version, vCenter /
    cluster / VDS in scope, what "Approve" authorises), the verdict with one line per blocker and the configuration
    the rollout sets apart, risk and reach (each kind of object changed, the hosts it touches, its owner and window),
    the effort counts, the target NSX version against the hosts, when the inputs were captured, and the signatures
    (PDF signature fields beside names, roles and dates)."""
    audit, fonts, st, v = r.audit, r.fonts, r.st, r.verdict
    groups = plan_groups(audit, r.plan)
    target = getattr(audit, "target_nsx", None) or ""
    story: list[Any] = [
        Paragraph(r.clean(r.title), st.title),
        Paragraph(f"Readiness decision · audit run {r.clean(audit.created_at)} · report made {r.clean(r.made_at)} · "
                  f"{TOOL_NAME} {r.clean(__version__)}", st.small),
        Spacer(1, 1 * mm),
        _fields_row("scope", (("change_request", "Change request", 60), ("target_nsx", "Target NSX", 22),
                              ("auditor", "Auditor", 70)), st, values={"target_nsx": target}),
        _fields_row("scope", (("vcenter", "vCenter / cluster / VDS in scope", 190),), st,
                    values={"vcenter": in_scope(audit)}),
        Paragraph(r.clean(approve_text(audit, groups, len(r.plan))), st.small)]
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    story.append(Paragraph(f'<font color="#{ink}">{fonts.sym(v.symbol)} {v.label}</font> '
                           f'<font name="{fonts.regular}" size="9">{r.clean(v.reason)}</font>', st.verdict))
    lines = verdict_lines(v)
    if lines:
        rows = [[Paragraph(f"<b>{r.clean(h)}</b>" if h != (lines[n - 1][0] if n else None) else "", st.cell_small),
                 Paragraph(r.clean(t), st.cell_small)] for n, (h, t) in enumerate(lines)]
        table = Table(rows, colWidths=[50 * mm, FRAME_WIDTH - 50 * mm], hAlign="LEFT")
        table.setStyle(TableStyle([("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5),
                                   ("VALIGN", (0, 0), (-1, -1), "TOP")]))
        story.append(table)
    story.append(_reach_and_effort(r, groups))
    nsx = host_support(audit.hosts, target or None)
    if target:
        counts = {s: [h.host for h in nsx if h.status == s] for s in ("supported", "unsupported", "unknown")}
        text = (f"<b>Target NSX {r.clean(target)} against each host:</b> {len(counts['supported'])} supported, "
                f"{len(counts['unsupported'])} not supported"
                + (f" ({r.clean(_some(counts['unsupported'], 4))})" if counts["unsupported"] else "")
                + f", {len(counts['unknown'])} not judged (release not read, or NSX {r.clean(target)} not in the cited "
                  "interoperability table); each host's row: the host index.")
    else:
        text = "<b>Target NSX:</b> not given (nic-advisor audit --target-nsx 4.2): no host's ESXi release was checked."
    story.append(Paragraph(text, st.small))
    captured = capture_lines(audit)
    if captured:
        story.append(Paragraph("<b>Inputs captured:</b> " + r.clean("; ".join(captured)), st.small))
    story.extend(_signatures(r))
    story.append(PageBreak())
    return story


def _reach_and_effort(r: _Report, groups: list[Any]) -> Table:
    """Risk and reach (one row per kind of object the plan changes: its plan items, the hosts it touches, owner,
    reboot or window, order) beside the effort counts (:func:`nicadvisor.report.decision.effort`)."""
    st = r.st
    head = [Paragraph(f"<b>{h}</b>", st.cell_small) for h in ("#", "What changes", "Items", "Hosts", "Owner",
                                                              "Reboot / window")]
    rows: list[list[Any]] = [head]
    for n, g in enumerate(groups, start=1):
        rows.append([Paragraph(str(n), st.cell_small), Paragraph(r.clean(g.kind.title), st.cell_small),
                     Paragraph(", ".join(str(i) for i, _item in g.items), st.cell_small),
                     Paragraph(str(len(g.hosts)), st.cell_small), Paragraph(r.clean(g.kind.owner), st.cell_small),
                     Paragraph(r.clean(g.kind.window), st.cell_small)])
    if len(rows) == 1:
        rows.append(["", Paragraph("nothing to change", st.cell_small), "", "", "", ""])
    reach = Table(rows, colWidths=[6 * mm, 43 * mm, 14 * mm, 15 * mm, 28 * mm, 52 * mm], hAlign="LEFT")
    reach.setStyle(TableStyle(_GRID + [("TOPPADDING", (0, 0), (-1, -1), 0.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    cost = effort(r.audit, groups)
    erows = [[Paragraph(f"<b>{h}</b>", st.cell_small) for h in ("Effort", "Count", "Owner")]]
    erows += [[Paragraph(r.clean(a), st.cell_small), Paragraph(r.clean(b), st.cell_small),
               Paragraph(r.clean(c), st.cell_small)] for a, b, c in cost.rows()]
    eff = Table(erows, colWidths=[52 * mm, 20 * mm, 26 * mm], hAlign="LEFT")
    eff.setStyle(TableStyle(_GRID + [("TOPPADDING", (0, 0), (-1, -1), 0.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    both = Table([[Paragraph("<b>Risk and reach</b> (what the plan changes, in order)", st.small),
                   Paragraph("<b>Effort</b>", st.small)], [reach, eff]],
                 colWidths=[162 * mm, FRAME_WIDTH - 162 * mm], hAlign="LEFT")
    both.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                              ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    return both


def _signatures(r: _Report) -> list[Any]:
    """The board's decision (approve / approve with conditions / reject) and who signs: role, name and date as text
    fields beside a PDF signature field (``/FT /Sig``) per signer, on page 1."""
    st = r.st
    choice = Table([[Paragraph("<b>Decision</b>", st.small)]
                    + [x for value, words in DECISIONS for x in (_FormField("decision", words, kind="radio",
                                                                            value=value, height=10),
                                                                 Paragraph(words, st.small))]],
                   colWidths=[18 * mm] + [6 * mm, 38 * mm] * len(DECISIONS), hAlign="LEFT")
    choice.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 1),
                                ("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    head = [Paragraph(f"<b>{h}</b>", st.cell_small) for h in ("Role", "Name", "Date", "Signature")]
    rows: list[list[Any]] = [head]
    for i in range(1, len(BOARD_ROLES) + 1):
        rows.append([_FormField(f"board{i}.role", "Role", width=58 * mm, value=BOARD_ROLES[i - 1]),
                     _FormField(f"board{i}.name", "Name", width=70 * mm),
                     _FormField(f"board{i}.date", "Date", width=30 * mm),
                     _FormField(f"board{i}.signature", f"Signature ({BOARD_ROLES[i - 1]})",
                                width=FRAME_WIDTH - 178 * mm, height=12, kind="sig")])
    signers = Table(rows, colWidths=[62 * mm, 74 * mm, 34 * mm, FRAME_WIDTH - 170 * mm], hAlign="LEFT")
    signers.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("TOPPADDING", (0, 0), (-1, -1), 0.5),
                                 ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]))
    return [KeepTogether([Paragraph("Signed by", st.h2_cover), choice, Spacer(1, 1 * mm), signers])]


def _cover(r: _Report) -> list[Any]:
    """Page 2: the executive summary — the verdict's causes, the scope in numbers, the top remediation actions and
    the verdict and scorecard per host (or group)."""
    audit, fonts, st, v = r.audit, r.fonts, r.st, r.verdict
    summary = summarize(audit, v)
    story: list[Any] = [Paragraph("Executive summary", st.h1)]
    # causes that are a host's own reason are in the table below; list here only the others (unread inputs)
    causes = [c for c in v.causes if not any(c.startswith(f"{h.host}: ") for h in v.hosts)]
    if causes:
        story.append(Paragraph("Why it could not be rated in full:", st.body))
        story.extend(_bullets(causes[:COVER_INPUTS], fonts, st))
        if len(causes) > COVER_INPUTS:
            story.append(Paragraph(f"… and {len(causes) - COVER_INPUTS} more (JSON “verdict.causes”).", st.small))
    story.extend(_missing_checks_cover(r))
    shown = ", ".join(display_source(i, r.roots) for i in audit.inputs[:3])
    more = f" and {len(audit.inputs) - 3} more" if len(audit.inputs) > 3 else ""
    groups = (f" in {len(r.groups)} groups of alike hosts" if len(r.groups) < len(audit.hosts) else "")
    guide = guide_used(audit)
    story.append(Paragraph(
        f"<b>Scope:</b> {plural(summary['hosts'], 'host')}{groups}, {plural(summary['pnics'], 'pNIC')} "
        f"({plural(summary['pseudo_devices'], 'pseudo device')} not rated); {summary['errors']} error, {summary['warnings']} "
        f"warning and {summary['infos']} information finding(s). Inputs ({len(audit.inputs)}): "
        f"{r.clean(shown or 'none')}{more} — every input is listed in the appendix. Compatibility data: the database "
        f"shipped with {TOOL_NAME} {r.clean(__version__)} (cited public sources); "
        + (f"the imported compatibility guide {r.clean(guide)}." if guide else
           "no imported compatibility guide was used (nic-advisor vcg import).")
        + (f" {len(audit.inputs_not_understood)} input(s) were not understood: see the appendix “Inputs not "
           "understood”." if audit.inputs_not_understood else ""), st.small))
    story.extend(_top_actions(r))
    story.extend(_scorecard(r))
    return story


def _top_actions(r: _Report) -> list[Any]:
    fonts, st, plan = r.fonts, r.st, r.plan
    shown_of = f" ({TOP_ACTIONS} of {len(plan)}: all are in the remediation plan)" if len(plan) > TOP_ACTIONS else ""
    story: list[Any] = [Paragraph(f"Top remediation actions{shown_of}", st.h2_cover)]
    if not plan:
        story.append(Paragraph("No error or warning finding: nothing to change"
                               + ("" if r.verdict.status == "ready" else " on what could be read") + ".", st.body))
        return story
    rows = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("#", "Severity", "Action", "Targets", "Hosts")]]
    for n, item in top_actions(plan):
        rows.append([Paragraph(str(n), st.cell),
                     Paragraph(f"{fonts.sym(_SEVERITY_SYMBOL[item.severity])} {SEVERITY_WORD[item.severity]}", st.cell),
                     Paragraph(r.clean(item.title), st.cell), Paragraph(str(len(item.targets)), st.cell),
                     Paragraph(r.clean(_some(item.hosts, 2)), st.cell_small)])
    table = Table(rows, colWidths=[8 * mm, 24 * mm, 130 * mm, 18 * mm, FRAME_WIDTH - 180 * mm], hAlign="LEFT")
    table.setStyle(TableStyle(_GRID + [("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]))
    story.append(table)
    return story


def _scorecard(r: _Report) -> list[Any]:
    """The verdict and the worst cell of each capability column per host, one row per group of alike hosts, each host
    with its system and ESXi release under its name."""
    fonts, st = r.fonts, r.st
    head = ["Host, ESXi release", "Verdict"] + [_SHORT_TITLE.get(c.key, c.title) for c in CAPABILITIES]
    rows: list[list[Any]] = [[Paragraph(f"<b>{r.clean(h)}</b>", st.cell_small) for h in head]]
    style = list(_GRID)
    for row_n, group in enumerate(r.groups, start=1):
        host = group.host
        worst = scorecard_row(host, r.by_host.get(host.name, []), r.rows_of(host))
        name = group.hosts[0] if group.size == 1 else f"{group.hosts[0]} and {group.size - 1} alike"
        system = release_label(host)
        line: list[Any] = [Paragraph(r.clean(name) + (f"<br/>{r.clean(system)}" if system else ""), st.cell_small),
                           _verdict_cell(r.host_verdicts[host.name], fonts, st, row_of=host.name)]
        for c, cap in enumerate(CAPABILITIES, start=2):
            status = worst[cap.key]
            line.append(Paragraph(f'<font color="#{STATUS_INK[status].hexval()[2:]}"><b>'
                                  f'{fonts.sym(STATUS_SYMBOL[status])}</b></font>', st.cell_center))
            style.append(("BACKGROUND", (c, row_n), (c, row_n), STATUS_FILL[status]))
        rows.append(line)
    # each status column as wide as its widest title in bold plus the side padding and a point of slack, so that no
    # title wraps ("Coalesc." wrapped its full stop to a line of its own: issue 19); the verdict takes the rest
    caps_w = max(pdfmetrics.stringWidth(h, fonts.bold, st.cell_small.fontSize) for h in head[2:]) + 2 * 2 + 1
    table = Table(rows, colWidths=[37 * mm, FRAME_WIDTH - 37 * mm - caps_w * len(CAPABILITIES)]
                  + [caps_w] * len(CAPABILITIES), repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(style + [("LEFTPADDING", (0, 0), (-1, -1), 2), ("RIGHTPADDING", (0, 0), (-1, -1), 2),
                                       ("TOPPADDING", (0, 0), (-1, -1), 0.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    key = " ".join(f"{fonts.sym(STATUS_SYMBOL[s])} {STATUS_TEXT[s]}" for s in ("fail", "warn", "unknown", "n/a", "pass"))
    # the key rides on the heading's line: the cover holds the demo's ten hosts on page 1
    note = r.clean(f"each cell the worst of the host's pNICs: {key}; “How to read the host pages” says more")
    return [Paragraph(f'Verdict and scorecard per host <font name="{fonts.regular}" size="8">({note})</font>',
                      st.h2_cover), table]


#: The roles a change board usually asks to sign (editable fields: a board writes its own).
BOARD_ROLES = ("Change manager", "Network owner", "Virtualization owner")
#: The decisions a board takes on the plan: (field value, words).
DECISIONS = (("approve", "Approve"), ("approve_with_conditions", "Approve with conditions"), ("reject", "Reject"))


def _decision_section(r: _Report) -> list[Any]:
    """The board's decision on the whole document (fillable): approve / approve with conditions / reject, the
    conditions or comments, who signs in which role and when, and the sign-off of the work on each host (group).
    Each heading is kept with its fields on one page."""
    st, fonts = r.st, r.fonts
    n = len(r.plan)
    items = f"items 1–{n} of the remediation plan" if n > 1 else ("item 1 of the remediation plan" if n else
                                                                   "no remediation item (nothing to change)")
    # a page of its own, unless what the cover left of its page holds it (a scorecard that ran onto a second page
    # leaves it nearly empty)
    story: list[Any] = [CondPageBreak(125 * mm), Spacer(1, 4 * mm)]
    story.append(KeepTogether([
        Paragraph("Board decision", st.h1),
        Paragraph(f"The board decides on {items}, for the hosts in scope, on the verdict "
                  f"{fonts.sym(r.verdict.symbol)} {r.verdict.label}: the decision and the signatures are on page 1 "
                  "(PDF signature fields a reader can sign). Write any conditions below. The fields can be filled in "
                  "and saved in a PDF reader, or printed and filled in by hand.", st.body),
        Spacer(1, 1 * mm),
        Paragraph("<b>Conditions and comments</b>", st.body),
        _FormField("decision.comments", "Conditions and comments", width=FRAME_WIDTH - 4 * mm, height=26 * mm,
                   kind="multiline"),
    ]))
    return story


def _signoff_table(r: _Report) -> list[Any]:
    """Who carried out the plan on each host (group of alike hosts) and when: one fillable row per group."""
    st = r.st
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Host", "Work done and checked by", "Date")]]
    for i, group in enumerate(r.groups, start=1):
        rows.append([Paragraph(r.clean(group_label(group, shown=2)), st.cell_small),
                     _FormField(f"signoff{i}.name", f"{group.hosts[0]}: done by", width=90 * mm),
                     _FormField(f"signoff{i}.date", f"{group.hosts[0]}: date", width=32 * mm)])
    table = Table(rows, colWidths=[FRAME_WIDTH - 132 * mm, 96 * mm, 36 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#bbbbbb"))]))
    heading = [Paragraph("Sign-off of the work per host", st.h1),
               Paragraph("When a host's plan items are done and verified (the “Verify” commands of each item).",
                         st.small)]
    if len(r.groups) <= 12:  # a short table stays with its heading; a long one repeats its header row
        return [PageBreak(), KeepTogether(heading + [table])]
    return [PageBreak(), KeepTogether(heading + [Spacer(1, 1)]), table]


def _checks_section(r: _Report) -> list[Any]:
    """The checks that ran with what passed and what did not (:func:`nicadvisor.report.checks.checks_run`), the
    capability summary chart, how to read the host pages and what READY needs (the legends, said once)."""
    st = r.st
    rows = checks_run(r.audit, r.by_host, r.rows_of)
    head = ("Check", "On", "Checked", "Passed", "Warning", "Failed", "Not read", "Not judged")
    data: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in head]]
    style = list(_GRID)
    for n, row in enumerate(rows, start=1):
        data.append([Paragraph(r.clean(row.what), st.cell), Paragraph(r.clean(row.on), st.cell)]
                    + [Paragraph(str(x), st.cell_center) for x in (row.checked, row.passed, row.warned, row.failed,
                                                                   row.not_read, row.not_judged)])
        for col, (count, status) in enumerate(((row.passed, "pass"), (row.warned, "warn"), (row.failed, "fail")),
                                              start=3):
            if count:
                style.append(("BACKGROUND", (col, n), (col, n), STATUS_FILL[status]))
    table = Table(data, colWidths=[95 * mm, 30 * mm] + [(FRAME_WIDTH - 125 * mm) / 6] * 6, repeatRows=1,
                  hAlign="LEFT")
    table.setStyle(TableStyle(style + [("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]))
    story: list[Any] = [KeepTogether([
        Paragraph("Checks that ran", r.st.h1),
        Paragraph("Every check the audit ran, with how many objects passed it as well as those that did not. “Not "
                  "read”: the facts it needs were not in the inputs (collect more); “not judged”: by design (a pNIC "
                  "or switch that carries no overlay).", st.body),
        Spacer(1, 2 * mm), table])]
    if any(h.pnics for h in r.audit.hosts):  # the chart sums the table up: beside it, before the legends
        story.append(KeepTogether([Paragraph("Capability summary", st.h2),
                                   Paragraph("How many physical pNICs have each status, per capability column.",
                                             st.small),
                                   _capability_chart(r.audit, r.fonts, r.by_host, r.rows_of)]))
    story.append(KeepTogether([Paragraph("How to read the host pages", st.h2), *_legend(r.fonts, st)]))
    story.extend(_decisive_legend(r))
    return story


def _missing_checks_cover(r: _Report) -> list[Any]:
    """Page 1, before anything else about the hosts: the share of decided cells and the hosts rated, then which
    decisive checks were not made on how many hosts (:func:`nicadvisor.report.finish.missing_overview`); each host's
    own, with the commands, open its page ("Finish this audit")."""
    v = r.verdict
    overview = missing_overview(v.hosts)
    text = r.clean(coverage_of(r.audit, v).text) + "." + (
        f" <b>Decisive checks not made:</b> {r.clean(overview)} (each host's own and the commands that make them: its "
        "page, “Finish this audit”)." if overview else "")
    return [Paragraph(text, r.st.small)]


def _host_readiness(group: HostGroup, hv: Any, r: _Report) -> list[Any]:
    """What a host (group) page says first: the decisive checks not made on it, then "Finish this audit", the
    read-only commands that decide them as a block to copy (:mod:`nicadvisor.report.finish`; the legend says once
    how to use it). A group's hosts share their checks and commands (:func:`nicadvisor.report.fleet.signature`)."""
    if hv is None or not hv.missing:
        return []
    st = r.st
    whom = group.host.name if group.size == 1 else f"each of these {group.size} hosts"
    made, applicable = hv.checks
    story: list[Any] = [Paragraph(f"<b>Decisive checks not made on {r.clean(whom)}</b> ({made} of {applicable} made): "
                                  + r.clean("; ".join(missing_lines(hv))) + ".", st.body)]
    lines = finish_block(hv, [p.name for p in group.host.pnics])
    if lines:
        story.append(KeepTogether([Paragraph("Finish this audit" + ("" if group.size == 1 else " (the same commands on "
                                                                   "each host of the group)"), st.h2),
                                   Paragraph(_mono("\n".join(lines), r.fonts), st.command)]))
    return story


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


def _conflicts_block(host: Host, fonts: _Fonts, st: _Styles, roots: Any) -> list[Any]:
    """Facts two captures of the host state differently (:attr:`Host.conflicts`, issue 24 §3): each value with its
    file and capture date, and which one is used (the newer) or that neither is preferred; nothing without any."""
    if not host.conflicts:
        return []
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Fact", "Value", "Read from", "Captured",
                                                                            "Used")]]
    for c in host.conflicts:
        for i, v in enumerate(c.values):
            used = "yes (newer)" if c.kept == i else "no (older)" if c.kept is not None else "not preferred"
            rows.append([Paragraph(_clean(c.label() if i == 0 else "", fonts), st.cell_small),
                         Paragraph(_clean(v.value, fonts), st.cell_small),
                         Paragraph(_clean(f"{display_source(v.source, roots)} ({v.command})", fonts),
                                   st.cell_small),
                         Paragraph(_clean(v.when(), fonts), st.cell_small),
                         Paragraph(_clean(used, fonts), st.cell_small)])
    table = Table(rows, colWidths=[30 * mm, 60 * mm, 95 * mm, 35 * mm, FRAME_WIDTH - 220 * mm], repeatRows=1,
                  hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    return [Paragraph(f"Evidence from different times ({len(host.conflicts)})", st.h2),
            Paragraph("Two captures of this host state a fact differently: the newer one is used when both state "
                      "their date; when a capture states none, their order is unknown and neither is preferred "
                      "(capture it again).", st.body), table]


def _decisive_legend(r: _Report) -> list[Any]:
    """What READY needs (:mod:`nicadvisor.report.legend`): the decisive checks, why each can break Geneve traffic and
    the document behind it (numbered in the reference list), then how to use a host page's "Finish this audit"."""
    st = r.st
    rows = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Decisive check", "Applies to", "Why it can break Geneve "
                                                                                      "traffic", "Reference")]]
    for row in decisive_rows(r.index):
        c = row.check
        rows.append([Paragraph(r.clean(c.title), st.cell_small), Paragraph(r.clean(c.applies), st.cell_small),
                     Paragraph(r.clean(c.why), st.cell_small),
                     Paragraph("; ".join(_cite_link(n, cited, r) for n, cited in row.citations), st.cell_small)])
    table = Table(rows, colWidths=[40 * mm, 62 * mm, 105 * mm, FRAME_WIDTH - 207 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    return [KeepTogether([Paragraph("What READY needs: the decisive checks", st.h2),
                          Paragraph(r.clean(READY_RULE), st.body), Spacer(1, 1 * mm), table]),
            Spacer(1, 1.5 * mm), Paragraph(r.clean(f"{FINISH_HOWTO} {PCIE_ON_ESXI}."), st.small)]


def _capability_chart(audit: Audit, fonts: _Fonts, by_host: dict[str, list[Finding]] | None = None,
                      rows_of: Any = None) -> Drawing:
    """Stacked bars: per capability column, how many physical pNICs are fail / warn / unknown / n/a / pass.
    ``by_host``: the findings per host (:func:`nicadvisor.model.entities.findings_by_host`) and ``rows_of``: host → its
    matrix rows, computed when not given."""
    order = ("fail", "warn", "unknown", "n/a", "pass")
    counts = {s: [0] * len(CAPABILITIES) for s in order}
    by_host = findings_by_host(list(audit.findings)) if by_host is None else by_host
    rows_of = matrix_cache(by_host) if rows_of is None else rows_of
    for host in audit.hosts:
        for row in rows_of(host):
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


def _plan_item(n: int, item: RemediationItem, r: _Report) -> list[Any]:
    """One plan item: checkbox and title, owner/ticket/due fields, why (said once), what to do, the change, its check
    and its roll-back (once per set of targets that share them), one row per host (group) with its objects and
    evidence, and the numbered references."""
    fonts, st = r.fonts, r.st
    status = SEVERITY_STATUS[item.severity]
    ink = STATUS_INK[status].hexval()[2:]
    hosts = f"{len(item.hosts)} host{'s' if len(item.hosts) != 1 else ''}"
    head = Paragraph(f'{n}. <font color="#{ink}">{fonts.sym(_SEVERITY_SYMBOL[item.severity])} '
                     f'{SEVERITY_WORD[item.severity]}</font> — {r.clean(item.title)} '
                     f'<font name="{fonts.regular}">({len(item.targets)} target(s) on {hosts}; rule '
                     f'{r.clean(item.rule_id)})</font>', st.item_head)
    top = Table([[_FormField(f"item{n}.done", f"Item {n} done"), head]], colWidths=[7 * mm, FRAME_WIDTH - 7 * mm],
                hAlign="LEFT")
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                             ("TOPPADDING", (0, 0), (0, 0), 5)]))
    message, shared = shared_message(item)
    where = "" if len(item.findings) == 1 else (
        f" (as read on {r.clean(item.recommendation_for)}; "
        + ("the same on each target, with its own name)" if shared else "each target's own words are in its row)"))
    parts: list[Any] = [top, Paragraph(f"<b>Why{where}:</b> {r.clean(message)}", st.item),
                        Paragraph(f"<b>What to do:</b> {r.clean(item.recommendation)}", st.item)]
    if item.conditional:
        parts.append(Paragraph("<b>Conditional:</b> no TEP or NSX host switch is known on these targets yet; this "
                               "applies to each one that will carry the overlay.", st.item))
    head_parts = len(parts)
    for block in steps(item):
        parts.append(_steps_table(block, len(item.targets), r))
    parts.append(_targets_table(n, item, shared, r))
    cited = r.index.cite(item.references)
    if cited:
        parts.append(Paragraph("<b>References:</b> " + "; ".join(_cite_link(num, c, r) for num, c in cited), st.item))
    return [KeepTogether(parts[:head_parts]), *parts[head_parts:], Spacer(1, 2 * mm)]


def _cite_link(number: int, citation: Citation, r: _Report) -> str:
    """``[3] §Jumbo MTU…``: the number links to the reference list at the end of the report."""
    section = f" §{r.clean(citation.section)}" if citation.section else ""
    return f'<a href="#ref{number}" color="#1f4e8c">[{number}]</a>{section}'


def _steps_table(block: Steps, total: int, r: _Report) -> Table:
    """Change / Verify / Roll back of some targets, commands in monospace, one per line."""
    st, fonts = r.st, r.fonts
    rows: list[list[Any]] = []
    if len(block.targets) < total:
        rows.append([Paragraph("<b>For</b>", st.cell), Paragraph(r.clean(_some(block.targets, 6)), st.cell)])
    for key, label in STEP_LABELS:
        text = getattr(block, key)
        body = (Paragraph(_mono(clip(text, _CELL_CHARS * 2), fonts), st.command) if text else
                Paragraph(r.clean(NO_COMMAND), st.cell))
        rows.append([Paragraph(f"<b>{label}</b>", st.cell), body])
    table = Table(rows, colWidths=[22 * mm, FRAME_WIDTH - 29 * mm], hAlign="RIGHT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("TOPPADDING", (0, 0), (-1, -1), 1),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]))
    return table


def _targets_table(n: int, item: RemediationItem, shared: bool, r: _Report) -> Table:
    """One row per host (or group of alike hosts) of ``item``: a checkbox, the host, its objects and their evidence —
    each command and source once, then the raw line of each object (a line an earlier item shows: "as in item 3");
    the finding's own words when they differ (:func:`nicadvisor.report.remediation.target_rows`)."""
    st = r.st
    data: list[list[Any]] = []
    for k, row in enumerate(target_rows(n, item, r.row_label(), r.shown, r.roots), start=1):
        objects = ", ".join(o or "(the host)" for o in row.objects)
        words = "" if shared else "<br/>".join(r.clean(clip(m, _CELL_CHARS)) for m in row.messages)
        data.append([_FormField(f"item{n}.target{k}", f"Item {n}: {row.host} done", height=9),
                     Paragraph(f"<b>{r.clean(clip(row.label, _CELL_CHARS))}</b>: {r.clean(objects)}"
                               + (f"<br/>{words}" if words else ""), st.cell_small),
                     Paragraph(_evidence_text(row, r), st.mono_cell)])
    table = Table(data, colWidths=[7 * mm, 95 * mm, FRAME_WIDTH - 109 * mm], hAlign="RIGHT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#bbbbbb"))]))
    return table


def _evidence_text(row: TargetRow, r: _Report) -> str:
    """A target row's evidence as Paragraph markup, each cell's device text shortened to what a table cell holds
    (the JSON keeps the whole line)."""
    out = []
    for command, source, lines in row.evidence:
        out.append(f"$ {r.clean(clip(command, _CELL_CHARS))} [{r.clean(clip(source, _CELL_CHARS))}]")
        out.extend(r.clean(clip(line, _CELL_CHARS)) for line in lines)
    if row.earlier:
        out.append(f"(evidence as in item {', '.join(str(n) for n in row.earlier)})")
    return "<br/>".join(out) or "—"


def _plan_section(r: _Report) -> list[Any]:
    story: list[Any] = [PageBreak(), Paragraph("Remediation plan", r.st.h1),
                        Paragraph("One item per rule, grouped by the object it changes, in the order the work is done "
                                  "(each group says the hosts it reaches, who owns it and the reboot or window it "
                                  "needs); errors first within a group. Each item says why, what to do, the exact "
                                  "change with the host's own names (or why it is manual), how to verify it and how "
                                  "to roll it back. Tick an item and each host when done; fill in the owner, change "
                                  "ticket and due date. Information-only findings are in the appendix.", r.st.body)]
    if not r.plan:
        story.append(Paragraph("No error or warning finding: nothing to change on what could be read.", r.st.body))
    else:
        story.append(_assignments(r))
    for g in plan_groups(r.audit, r.plan):
        numbers = [n for n, _i in g.items]
        story.append(KeepTogether([Paragraph(f"Step {g.kind.order}. {r.clean(g.kind.title)}", r.st.h2), Paragraph(
            f"<b>Reach:</b> {plural(len(g.hosts), 'host')} ({r.clean(_some(g.hosts, 6))}) · <b>owner:</b> "
            f"{r.clean(g.kind.owner)} · <b>reboot / window:</b> {r.clean(g.kind.window)} · <b>items:</b> "
            f"{numbers[0]}–{numbers[-1]}" if len(numbers) > 1 else
            f"<b>Reach:</b> {plural(len(g.hosts), 'host')} ({r.clean(_some(g.hosts, 6))}) · <b>owner:</b> "
            f"{r.clean(g.kind.owner)} · <b>reboot / window:</b> {r.clean(g.kind.window)} · <b>item:</b> {numbers[0]}",
            r.st.small)]))
        for n, item in g.items:
            story.extend(_plan_item(n, item, r))
    return story


def _assignments(r: _Report) -> Table:
    """Who does each plan item, under which change ticket, by when: one fillable row per item, the labels once."""
    st = r.st
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("#", "Action", "Owner", "Change ticket",
                                                                         "Due date")]]
    for n, item in enumerate(r.plan, start=1):
        rows.append([Paragraph(str(n), st.cell), Paragraph(r.clean(item.title), st.cell_small),
                     _FormField(f"item{n}.owner", f"Item {n}: owner", width=55 * mm),
                     _FormField(f"item{n}.ticket", f"Item {n}: change ticket", width=45 * mm),
                     _FormField(f"item{n}.due", f"Item {n}: due date", width=30 * mm)])
    table = Table(rows, colWidths=[8 * mm, FRAME_WIDTH - 155 * mm, 59 * mm, 49 * mm, 34 * mm], repeatRows=1,
                  hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#bbbbbb")),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 3)]))
    return table


def _host_section(r: _Report, group: HostGroup) -> list[Any]:
    """The page of one host, or of a group of alike hosts (:mod:`nicadvisor.report.fleet`): its system and ESXi
    release in the heading, its verdict, the decisive checks not made and "Finish this audit" before anything else,
    the hosts of the group with what differs between them, the capability matrix (read with the legend of “How to
    read the host pages”), the switch ports and the plan items that concern it."""
    fonts, st = r.fonts, r.st
    host = group.host
    number = r.group_number.get(host.name, 0)
    story: list[Any] = [PageBreak(), Paragraph(f"{number}. " + r.clean(host_title(group)), st.h1)]
    verdict = r.host_verdicts.get(host.name)
    if verdict is not None:
        story.append(_verdict_cell(verdict, fonts, st, who=host.name if group.size == 1 else "each host"))
    story.extend(_host_readiness(group, verdict, r))
    story.extend(_not_run_block(host, fonts, st))
    story.extend(_conflicts_block(host, fonts, st, r.roots))
    if group.size > 1:
        story.extend(_group_members(group, r))
    story.append(Paragraph("Capability matrix", st.h2))
    story.append(_matrix_table(host, r.by_host.get(host.name, []), fonts, st, r.rows_of(host)))
    pseudo = [p.name for p in host.pnics if p.is_physical is False]
    if pseudo:
        story.append(Paragraph(f"Not rated (pseudo devices): {r.clean(', '.join(pseudo))}", st.small))
    story.extend(_switch_ports(host, r))
    mine = [(n, item) for n, item in enumerate(r.plan, start=1) if host.name in item.hosts]
    whose = r.clean(host.name if group.size == 1 else "these hosts")
    story.append(Paragraph(f"Plan items for {whose} ({len(mine)})" if mine else
                           f"Plan items for {whose}: none (no error or warning finding)", st.h2))
    for n, item in mine:
        objects = [f.obj or (host.name if group.size == 1 else "each host") for f in item.findings
                   if f.host == host.name]
        story.append(Paragraph(f"{n}. {fonts.sym(_SEVERITY_SYMBOL[item.severity])} {r.clean(item.title)}: "
                               f"{r.clean(', '.join(objects))}", st.item))
    return story


#: Most host names listed under a group (the CSV and JSON list every host).


#: Columns of the host index (each: host, group, verdict).
INDEX_COLUMNS = 3


def _host_index(r: _Report) -> list[Any]:
    """Every host with its group (the number of its page) and its verdict, in natural order (-1, -2, …, -10),
    :data:`INDEX_COLUMNS` hosts a row, so that a reader finds any host of a fleet."""
    st, fonts = r.st, r.fonts
    rows_in = host_index(r.groups, r.host_verdicts)
    story: list[Any] = [PageBreak(), Paragraph("Host index", st.h1),
                        Paragraph(f"Every host ({len(rows_in)}), its group (the host page numbered so) and its verdict, "
                                  "in natural order.", st.small), Spacer(1, 1 * mm)]
    head = []
    for _ in range(INDEX_COLUMNS):
        head += [Paragraph(f"<b>{h}</b>", st.cell_small) for h in ("Host", "Group", "Verdict")]
    data: list[list[Any]] = [head]
    per = (len(rows_in) + INDEX_COLUMNS - 1) // INDEX_COLUMNS or 1
    columns = [rows_in[i * per:(i + 1) * per] for i in range(INDEX_COLUMNS)]
    for k in range(per):
        line: list[Any] = []
        for col in columns:
            if k < len(col):
                e = col[k]
                ink = STATUS_INK[VERDICT_STATUS[e.status]].hexval()[2:]
                line += [Paragraph(r.clean(e.host), st.cell_small), Paragraph(str(e.group), st.cell_small),
                         Paragraph(f'<font color="#{ink}">{fonts.sym(SYMBOL[e.status])} {e.label}</font>',
                                   st.cell_small)]
            else:
                line += ["", "", ""]
        data.append(line)
    width = FRAME_WIDTH / INDEX_COLUMNS
    table = Table(data, colWidths=[width - 43 * mm, 15 * mm, 28 * mm] * INDEX_COLUMNS, repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5),
                               ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.HexColor("#888888"))]))
    story.append(table)
    return story


def _group_members(group: HostGroup, r: _Report) -> list[Any]:
    st = r.st
    story: list[Any] = [Paragraph(f"{group.size} hosts whose pNICs, configuration and findings are the same (all of "
                                  f"them; [1–48] is a run of numbers): {r.clean(compact_names(group.hosts))}.",
                                  st.small)]
    if group.differences:
        rows = [[Paragraph("<b>Host</b>", st.cell), Paragraph(f"<b>What differs from {r.clean(group.host.name)}"
                                                              "</b>", st.cell)]]
        rows += [[Paragraph(r.clean(name), st.cell_small), Paragraph(r.clean("; ".join(lines)), st.cell_small)]
                 for name, lines in group.differences.items()]
        table = Table(rows, colWidths=[50 * mm, FRAME_WIDTH - 50 * mm], repeatRows=1, hAlign="LEFT")
        table.setStyle(TableStyle(_GRID))
        story.append(table)
    else:
        story.append(Paragraph("Apart from their names, MAC and IP addresses and input files, nothing read differs "
                               f"between them; the facts and evidence below are those of {r.clean(group.host.name)}.",
                               st.small))
    return story


def _switch_ports(host: Host, r: _Report) -> list[Any]:
    """One line under the matrix: where each physical pNIC of ``host`` is cabled
    (:func:`nicadvisor.report.remediation.switch_ports`; the legend says how it is read)."""
    line = switch_ports(host)
    return [Paragraph(f"<b>Switch ports:</b> {r.clean(line)}", r.st.small)] if line else []


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


def comparable_results(audit: Audit, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The benchmark results that measured the audited hosts: between two of them (``client``/``server`` are audit
    hosts), or on this machine's loopback / namespaces when this machine is one of the audited hosts (``--local``);
    every result of a report without hosts (benchmarks alone). A loopback run beside an audit of captured hosts
    measured the auditor's own machine: nothing comparable."""
    if not audit.hosts:  # a report of benchmarks alone: they are its subject
        return list(results)
    names = {h.name for h in audit.hosts}
    local = "local" in audit.inputs
    return [b for b in results if (b.get("client") in names and b.get("server") in names)
            or (local and not b.get("client") and not b.get("server"))]


def nothing_comparable(audit: Audit, results: list[dict[str, Any]]) -> str:
    """The one sentence a report prints instead of its benchmark pages when no result measured the audited hosts
    (:func:`comparable_results`); "" when some did or there are none."""
    if not results or comparable_results(audit, results):
        return ""
    paths = ", ".join(sorted({str(b.get("path") or "?") for b in results}))
    return (f"Benchmarks: {len(results)} test(s) ran on the machine running {TOOL_NAME} ({paths}), not between the "
            "audited hosts, so nothing comparable to them was measured; their figures are in the JSON and CSV "
            "exports (nic-advisor bench --between USER@HOST USER@HOST measures audited hosts).")


def _benchmark_section(r: _Report, earlier: list[list[Any]] | None = None) -> list[Any]:
    fonts, st, audit = r.fonts, r.st, r.audit
    results = [benchmark_entry(b) for b in (audit.benchmarks or [])]
    if not results:
        return []
    line = nothing_comparable(audit, results)
    if line:
        return [Spacer(1, 3 * mm), Paragraph(r.clean(line), st.body)]
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
        meas_text = "<br/>".join(r.clean(f"{_fmt_num(v)} {u}") for v, u in measured) or "—"
        duration = b.get("duration_s")
        rows.append([
            Paragraph(r.clean(b.get("spec") or b.get("test", "")), st.cell), Paragraph(r.clean(b.get("tool", "")), st.cell),
            Paragraph(r.clean(b.get("endpoints") or b.get("path") or "—"), st.cell_small),
            Paragraph(meas_text, st.cell),
            Paragraph(r.clean(exp_text), st.cell), Paragraph(r.clean(ratio), st.cell),
            Paragraph(r.clean(expected.get("basis") or "—"), st.cell_small),
            Paragraph(r.clean(f"{_fmt_num(duration)} s" if duration is not None else "—"), st.cell),
        ])
    table = Table(rows, colWidths=[26 * mm, 18 * mm, 50 * mm, 30 * mm, 28 * mm, 53 * mm, 45 * mm, 19 * mm],
                  repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
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
            story.append(Paragraph(f"{r.clean(test)}: <font name=\"{fonts.mono}\">{r.clean(text)}</font>",
                                   st.small))
    return story


def _mesh_section(r: _Report) -> list[Any]:
    """The TEP mesh the hosts hold (their ``path_tests``), as one table; [] without one."""
    from nicadvisor.model.path_tests import MESH_COLUMNS, all_path_tests, mesh_table

    audit, fonts, st = r.audit, r.fonts, r.st
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


def _attestations_section(r: _Report) -> list[Any]:
    """"Checked by hand": every attestation of the audit (who, when, how, the value seen and what became of it), for
    the board; [] without one."""
    from nicadvisor.model.attestations import BOARD_NOTE

    fonts, st = r.fonts, r.st
    outcomes = r.audit.attestations
    if not outcomes:
        return []
    head = ("Host / pNIC", "Check", "Value seen", "Attested by", "How", "Outcome")
    table: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in head]]
    for o in outcomes:
        a = o.attestation
        where = f"{a.host} / {a.pnic}" if a.pnic else a.host
        cells = (where, a.check, a.value_text(), f"{a.who} on {a.when}", a.how, f"{o.status}: {o.note}")
        table.append([Paragraph(_clean(c, fonts), st.cell_small) for c in cells])
    grid = Table(table, colWidths=[45 * mm, 25 * mm, 50 * mm, 35 * mm, 60 * mm, 55 * mm], repeatRows=1, hAlign="LEFT")
    grid.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                              ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                              ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return [PageBreak(), Paragraph(f"Checked by hand: attestations ({len(outcomes)})", st.h1),
            Paragraph(BOARD_NOTE, st.body), Spacer(1, 2 * mm), grid]


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
    # the legend names only the series the chart has: no "expected" entries beside results that have none
    expected = any(lo or hi for lo, hi in edges)
    pairs = [(chart.bars[0].fillColor, f"measured ({unit})")]
    if expected:
        words = "expected" if any(previous) else "expected for the same path"
        pairs += [(chart.bars[1].fillColor, f"{words}, low edge ({unit})"),
                  (chart.bars[2].fillColor, f"{words}, high edge ({unit})")]
    if any(previous):
        pairs.append((chart.bars[3].fillColor, "newest earlier run, same test and path"))
    drawing.add(_chart_legend(pairs, fonts, deltax=62 * mm if len(pairs) > 3 else 78 * mm))
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
        chart.categoryAxis.labels.angle, chart.categoryAxis.labels.boxAnchor = 30, "ne"  # 8 pt: the floor


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
    Gbit/s and in µs (those there are), with the newest earlier run of each test from ``earlier`` — none when no
    result measured the audited hosts (:func:`nothing_comparable`). Pure but for registering the fonts."""
    fonts = _register_fonts()
    out: list[tuple[str, Drawing]] = []
    if any(h.pnics for h in audit.hosts):
        out.append(("Capability summary: how many physical pNICs have each status, per column",
                    _capability_chart(audit, fonts)))
    results = [benchmark_entry(b) for b in (audit.benchmarks or [])]
    if nothing_comparable(audit, results):
        return out
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


def _inputs_appendix(r: _Report) -> list[Any]:
    """Appendix "Inputs read": each host's inputs (a group of alike hosts: its first host's, and how many the others
    read), then audit inputs that no host lists."""
    fonts, st = r.fonts, r.st
    story: list[Any] = [PageBreak(), Paragraph("Appendix: inputs read", st.h1),
                        Paragraph("Paths are relative to the folders given as inputs.", st.small)]
    per_host = {i for h in r.audit.hosts for i in h.inputs}
    for group in r.groups:
        host = group.host
        title = host.name if group.size == 1 else f"{host.name} and {group.size - 1} alike hosts"
        story.append(Paragraph(f"{r.clean(title)} ({len(host.inputs)})", st.h2))
        story.extend(_bullets([display_source(i, r.roots) for i in host.inputs], fonts, st)
                     or [Paragraph("No inputs recorded for this host.", st.small)])
        if group.size > 1:
            members = set(group.hosts[1:])
            others = sum(len(h.inputs) for h in r.audit.hosts if h.name in members)
            story.append(Paragraph(f"The {group.size - 1} other hosts of this group read {others} input(s) of their "
                                   "own, each listed under its host in the JSON export.", st.small))
    rest = [i for i in r.audit.inputs if i not in per_host]
    if rest:
        story.append(Paragraph(f"Given as inputs ({len(rest)})", st.h2))
        story.extend(_bullets([display_source(i, r.roots) for i in rest], fonts, st))
    return story


def _not_understood_appendix(r: _Report) -> list[Any]:
    st = r.st
    story: list[Any] = [PageBreak(), Paragraph("Appendix: inputs not understood", st.h1)]
    problems = r.audit.inputs_not_understood
    if not problems:
        story.append(Paragraph("Every input was understood.", st.body))
        return story
    story.append(Paragraph("These inputs were skipped or only partly read; facts they hold are missing from the "
                           "matrix above.", st.body))
    story.append(Spacer(1, 2 * mm))
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in ("Source", "Command", "Message")]]
    for p in grouped_problems(r.audit, r.groups):  # grouped like the hosts: one row for alike hosts' same file
        where = r.clean(display_source(p.source, r.roots))
        if len(p.hosts) > 1:
            where = (f"{r.clean(p.source.rsplit('/', 1)[-1])} on {len(p.hosts)} hosts of group {p.group}: "
                     f"{r.clean(compact_names(p.hosts))}")
        rows.append([Paragraph(where, st.mono_cell), Paragraph(r.clean(p.command or "—"), st.mono_cell),
                     Paragraph(r.clean(p.message), st.cell)])
    table = Table(rows, colWidths=[85 * mm, 70 * mm, FRAME_WIDTH - 155 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    story.append(table)
    return story


def _references_appendix(r: _Report) -> list[Any]:
    """Every document the report cites, by number: title, version, publisher and its address (a link)."""
    st = r.st
    entries = r.index.entries()
    story: list[Any] = [PageBreak(), Paragraph("Appendix: references", st.h1)]
    if not entries:
        story.append(Paragraph("No finding cites a document.", st.body))
    for number, ref in entries:
        where = (f'<a href="{escape(ref.url)}" color="#1f4e8c">{r.clean(ref.url)}</a>' if ref.url else
                 f"<i>{r.clean(ref.note or 'no public address known')}</i>")
        story.append(Paragraph(f'<a name="ref{number}"/>[{number}] {r.clean(ref.text())} {where}', st.reference))
    return story


def _glossary_appendix(r: _Report) -> list[Any]:
    """The terms of the report explained once (:data:`nicadvisor.report.glossary.GLOSSARY`)."""
    st = r.st
    rows: list[list[Any]] = [[Paragraph("<b>Term</b>", st.cell), Paragraph("<b>Meaning</b>", st.cell)]]
    for term, meaning, source in GLOSSARY:
        cited = r.index.cite([source]) if source else []
        refs = (" " + ", ".join(_cite_link(num, c, r) for num, c in cited)) if cited else ""
        rows.append([Paragraph(f"<b>{r.clean(term)}</b>", st.cell), Paragraph(r.clean(meaning) + refs, st.cell)])
    table = Table(rows, colWidths=[40 * mm, FRAME_WIDTH - 40 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle(_GRID))
    return [PageBreak(), Paragraph("Glossary", st.h1), table]


def _info_appendix(r: _Report) -> list[Any]:
    """Information-only findings, one per rule: its targets and its explanation once (a compatibility-database note
    cites its sources by number, :func:`nicadvisor.report.remediation.cite_inline`)."""
    fonts, st = r.fonts, r.st
    items = info_items(r.audit)
    story: list[Any] = [PageBreak(), Paragraph("Appendix: information only (nothing to change)", st.h1)]
    if not items:
        story.append(Paragraph("No information-only finding.", st.body))
    for item in items:
        message, _shared = shared_message(item)
        cited = r.index.cite(item.references)
        refs = (" " + ", ".join(_cite_link(num, c, r) for num, c in cited)) if cited else ""
        story.append(Paragraph(f"{fonts.sym('ℹ')} <b>{r.clean(item.title)}</b> — "
                               f"{r.clean(_some(item.targets, 12))}", st.item))
        text = r.clean(cite_inline(message, r.index))
        text = re.sub(r"\[(\d+)\]", lambda m: f'<a href="#ref{m.group(1)}" color="#1f4e8c">[{m.group(1)}]</a>', text)
        story.append(Paragraph(text + refs, st.small))
    return story


def build_story(audit: Audit, title: str = DEFAULT_TITLE, fonts: _Fonts | None = None,
                earlier: list[list[Any]] | None = None, made_at: str | None = None) -> list[Any]:
    """The platypus flowables of the whole document, one small function per section (see the module docstring for
    the order); ``earlier``: per benchmark result its earlier runs (:func:`nicadvisor.services.bench_history.for_audit`);
    ``made_at``: when the report is made (ISO 8601; now when not given)."""
    r = _report(audit, title, fonts or _register_fonts(), made_at)
    story = _decision_page(r)
    story += _cover(r)
    story += _decision_section(r)
    story += _checks_section(r)
    story += _plan_section(r)
    story += _host_index(r)
    for group in r.groups:
        story += _host_section(r, group)
    story += _signoff_table(r)
    story += _benchmark_section(r, earlier)
    mesh = _mesh_section(r)
    if mesh:
        story += [PageBreak(), *mesh]
    story += _attestations_section(r)
    story += _info_appendix(r)
    story += _not_understood_appendix(r)
    story += _inputs_appendix(r)
    glossary = _glossary_appendix(r)  # built first: its terms cite references, which the list must hold
    story += _references_appendix(r)
    return story + glossary


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
        self.canv.addOutlineEntry(outline_title(flowable.getPlainText()), key, level=level, closed=level > 0)


#: Longest outline entry (characters); a longer heading is cut at a word boundary and ends with "…".
OUTLINE_CHARS = 100


def outline_title(text: str, limit: int = OUTLINE_CHARS) -> str:
    """``text`` as an outline entry: whitespace collapsed, at most ``limit`` characters, cut after a whole word
    with "…" (never mid-word: "…; t" was a bookmark of the demo report)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:·—-(")
    return cut + "…"


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

    signatures: list[tuple[int, float, float, float, float, str, str]] = []

    class _Canvas(_NumberedCanvas):
        footer_left = footer if fonts.unicode else footer.encode("cp1252", "replace").decode("cp1252")
        footer_font = fonts.regular

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.signatures = signatures

    def _write(tmp: Path) -> None:
        doc = _OutlinedDoc(str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN,
                                topMargin=MARGIN, bottomMargin=16 * mm, title=title, author=TOOL_NAME,
                                subject="NSX Geneve overlay pNIC readiness", creator=f"{TOOL_NAME} {__version__}")
        doc.build(story, canvasmaker=_Canvas)
        _add_signatures(tmp, signatures)

    return atomic_write(path, _write)


def _add_signatures(path: Path, fields: list[tuple[int, float, float, float, float, str, str]]) -> None:
    """Add a PDF signature field (``/FT /Sig``, an empty widget a PDF reader offers to sign) at each place a
    ``sig`` :class:`_FormField` kept: ``(page number, x, y, width, height, name, tooltip)`` in points. reportlab's
    AcroForm makes text fields, check boxes and radio buttons but no signature field, so pypdf adds them to the
    written file (rewritten in place)."""
    if not fields:
        return
    from pypdf import PdfWriter
    from pypdf.generic import (ArrayObject, DictionaryObject, FloatObject, NameObject, NumberObject,
                               TextStringObject)

    writer = PdfWriter(clone_from=str(path))
    form = writer._root_object["/AcroForm"].get_object()
    form_fields = form.setdefault(NameObject("/Fields"), ArrayObject())
    for page_no, x, y, w, h, name, tooltip in fields:
        page = writer.pages[page_no - 1]
        widget = DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Widget"),
            NameObject("/FT"): NameObject("/Sig"), NameObject("/T"): TextStringObject(name),
            NameObject("/TU"): TextStringObject(tooltip), NameObject("/F"): NumberObject(4),
            NameObject("/Rect"): ArrayObject([FloatObject(x), FloatObject(y), FloatObject(x + w), FloatObject(y + h)]),
            NameObject("/P"): page.indirect_reference,
        })
        ref = writer._add_object(widget)
        page.setdefault(NameObject("/Annots"), ArrayObject()).append(ref)
        form_fields.append(ref)
    with open(path, "wb") as fh:
        writer.write(fh)


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
