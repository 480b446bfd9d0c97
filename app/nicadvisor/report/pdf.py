"""The PDF tuning checklist, drawn with reportlab platypus (A4 landscape).

Contents, in order:

1. a cover: scope (hosts, pNIC counts), date, inputs read, findings by severity, READY / NOT READY;
2. per host: the capability matrix (one row per physical pNIC, one column per
   :data:`nicadvisor.model.capabilities.CAPABILITIES` entry; each cell shows the status symbol *and* word
   plus a colour, then the values it judged), followed by that host's findings as checklist items: an
   empty checkbox, severity, title, message, recommendation, evidence (command and raw line in monospace,
   wrapped) and references;
3. benchmarks (test, tool, path, measured vs expected with units and basis), when there are results;
4. an appendix listing each input that was not understood (source, command, message), and one listing
   every input read, per host (the cover shows the first :data:`COVER_INPUTS`).

Every page has a footer with the tool name, the audit date and "page N of M". Text comes out in
DejaVu Sans / DejaVu Sans Mono (package ``fonts-dejavu-core``) so ✔ ▲ ✖ ☐ µ render; without those fonts
Helvetica/Courier are used and the symbols become ASCII (``OK``, ``!``, ``X``, ``[ ]``, ``u``).
All user and device text is escaped before it reaches reportlab's Paragraph markup.
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
from reportlab.platypus import (
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from nicadvisor import __version__
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT, capability_matrix
from nicadvisor.model.entities import Audit, Evidence, Finding, Host, Severity
from nicadvisor.model.verdict import SYMBOL
from nicadvisor.report.json_export import TOOL_NAME, atomic_write, benchmark_to_dict, summarize

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
        self.title = ParagraphStyle("title", fontName=f.bold, fontSize=20, leading=25, spaceAfter=4 * mm)
        self.h1 = ParagraphStyle("h1", fontName=f.bold, fontSize=15, leading=19, spaceBefore=2 * mm,
                                 spaceAfter=2.5 * mm)
        self.h2 = ParagraphStyle("h2", fontName=f.bold, fontSize=12, leading=15, spaceBefore=4 * mm,
                                 spaceAfter=2 * mm)
        self.body = ParagraphStyle("body", fontName=f.regular, fontSize=9, leading=11.5)
        self.small = ParagraphStyle("small", parent=self.body, fontSize=7.5, leading=9.5)
        self.cell = ParagraphStyle("cell", parent=self.body, fontSize=8, leading=10)
        self.cell_small = ParagraphStyle("cell_small", parent=self.body, fontSize=7, leading=8.5)
        self.cell_head = ParagraphStyle("cell_head", parent=self.body, fontName=f.bold, fontSize=8, leading=10,
                                        alignment=TA_CENTER)
        self.verdict = ParagraphStyle("verdict", fontName=f.bold, fontSize=16, leading=21)
        self.item_head = ParagraphStyle("item_head", parent=self.body, fontName=f.bold, fontSize=10, leading=13,
                                        leftIndent=7 * mm, firstLineIndent=-7 * mm, spaceBefore=3.5 * mm)
        self.item = ParagraphStyle("item", parent=self.body, leftIndent=7 * mm, spaceBefore=1 * mm)
        self.evidence_cmd = ParagraphStyle("evidence_cmd", parent=self.body, fontName=f.mono, fontSize=7.5,
                                           leading=9.5, leftIndent=10 * mm, spaceBefore=1 * mm,
                                           splitLongWords=1)
        self.evidence_line = ParagraphStyle("evidence_line", parent=self.evidence_cmd, fontSize=7, leading=8.6,
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
        self.setFont(self.footer_font, 7.5)
        self.setFillColor(colors.HexColor("#444444"))
        self.drawString(MARGIN, 6.5 * mm, self.footer_left)
        self.drawRightString(width - MARGIN, 6.5 * mm, f"page {self._pageNumber} of {total}")
        self.restoreState()


def _status_cell(status: str, detail: str, fonts: _Fonts, st: _Styles) -> Paragraph:
    """A matrix cell: coloured symbol + status word (bold), then the judged values in small text."""
    ink = STATUS_INK[status].hexval()[2:]
    text = (f'<font color="#{ink}"><b>{fonts.sym(STATUS_SYMBOL[status])} {STATUS_TEXT[status]}</b></font>'
            f'<br/><font size="6.5">{_clean(detail, fonts)}</font>')
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
            name += f'<br/><font size="6.5">{_clean(sub, fonts)}</font>'
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
    explain = ("pass: facts known, no finding · warn / fail: the worst warning / error finding on the pNIC or "
               "its path (switch, TEP vmknic, host MTU test) · unknown: the facts were not reported (collect "
               "more inputs) · n/a: not judged (a “no” no rule judged, a pNIC that carries no overlay)")
    return Paragraph("Legend: " + " &nbsp; ".join(parts) + f"<br/>{explain}", st.small)


def _evidence_flowables(ev: Evidence, fonts: _Fonts, st: _Styles) -> list[Any]:
    cmd = f"$ {_clean(ev.command, fonts)}" if ev.command else "(no command recorded)"
    if ev.source:
        cmd += f'  <font name="{fonts.italic}" size="7">[{_clean(ev.source, fonts)}]</font>'
    out: list[Any] = [Paragraph(cmd, st.evidence_cmd)]
    if ev.line:
        out.append(Paragraph(_mono(ev.line, fonts), st.evidence_line))
    return out


def _finding_item(number: int, f: Finding, fonts: _Fonts, st: _Styles) -> list[Any]:
    """One checklist item: ☐ number, severity, title, target; message, recommendation, evidence, references."""
    status = SEVERITY_STATUS[f.severity]
    ink = STATUS_INK[status].hexval()[2:]
    sev_sym = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "ℹ"}[f.severity]
    where = " · ".join(_clean(x, fonts) for x in (f.target or f.host, f.rule_id) if x)
    head = (f'<font size="12">{fonts.sym("☐")}</font>&nbsp; {number}. '
            f'<font color="#{ink}">{fonts.sym(sev_sym)} {SEVERITY_WORD[f.severity]}</font> — '
            f'{_clean(f.title, fonts)}' + (f' <font name="{fonts.regular}" size="8">({where})</font>' if where else ""))
    parts: list[Any] = [Paragraph(head, st.item_head)]
    if f.message:
        parts.append(Paragraph(f"<b>Finding:</b> {_clean(f.message, fonts)}", st.item))
    if f.recommendation:
        parts.append(Paragraph(f"<b>Recommendation:</b> {_clean(f.recommendation, fonts)}", st.item))
    if f.evidence:
        parts.append(Paragraph("<b>Evidence:</b>", st.item))
        for ev in f.evidence:
            parts.extend(_evidence_flowables(ev, fonts, st))
    if f.references:
        refs = "; ".join(_clean(r, fonts) for r in f.references)
        parts.append(Paragraph(f"<b>References:</b> {refs}", st.item))
    # keep the head with the first lines; KeepTogether splits by itself when an item is longer than a page
    return [KeepTogether(parts)]


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.severity.rank, f.target))


def _verdict_cell(v: Any, fonts: _Fonts, st: _Styles) -> Paragraph:
    """A Verdict or HostVerdict as a table cell: coloured symbol and label, then the reason."""
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    return Paragraph(f'<font color="#{ink}"><b>{fonts.sym(SYMBOL[v.status])} {v.label}</b></font> '
                     f'<font size="7">{_clean(v.reason, fonts)}</font>', st.cell)


def _cover(audit: Audit, title: str, fonts: _Fonts, st: _Styles) -> list[Any]:
    summary = summarize(audit)
    story: list[Any] = [Paragraph(_clean(title, fonts), st.title)]
    story.append(Paragraph(f"Audit of {_clean(audit.created_at, fonts)} · generated by {TOOL_NAME} "
                           f"{_clean(__version__, fonts)}", st.body))
    story.append(Spacer(1, 4 * mm))
    v = audit.verdict
    ink = STATUS_INK[VERDICT_STATUS[v.status]].hexval()[2:]
    verdict = (f'<font color="#{ink}">{fonts.sym(v.symbol)} {v.label}</font> for the NSX Geneve overlay '
               f'<font name="{fonts.regular}" size="10">({_clean(v.reason, fonts)})</font>')
    story.append(Paragraph(verdict, st.verdict))
    if v.causes:
        story.append(Paragraph("Why it could not be rated in full:", st.body))
        story.extend(_bullets(list(v.causes[:COVER_INPUTS]), fonts, st))
        if len(v.causes) > COVER_INPUTS:
            story.append(Paragraph(f"… and {len(v.causes) - COVER_INPUTS} more (JSON “verdict.causes”).", st.small))
    story.append(Spacer(1, 3 * mm))

    story.append(Paragraph("Findings by severity", st.h2))
    sev_rows: list[list[Any]] = [[Paragraph("<b>Severity</b>", st.cell), Paragraph("<b>Count</b>", st.cell),
                                  Paragraph("<b>Meaning</b>", st.cell)]]
    meaning = {Severity.ERROR: "blocks or breaks the overlay; fix before deploying NSX",
               Severity.WARNING: "costs performance or resilience; tune when possible",
               Severity.INFO: "for information; nothing to change"}
    counts = {Severity.ERROR: summary["errors"], Severity.WARNING: summary["warnings"],
              Severity.INFO: summary["infos"]}
    style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
             ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")), ("VALIGN", (0, 0), (-1, -1), "TOP")]
    for i, sev in enumerate((Severity.ERROR, Severity.WARNING, Severity.INFO), start=1):
        status = SEVERITY_STATUS[sev]
        sym = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "ℹ"}[sev]
        sev_rows.append([Paragraph(f"{fonts.sym(sym)} {SEVERITY_WORD[sev]}", st.cell),
                         Paragraph(str(counts[sev]), st.cell), Paragraph(meaning[sev], st.cell)])
        if counts[sev]:
            style.append(("BACKGROUND", (0, i), (1, i), STATUS_FILL[status]))
    sev_table = Table(sev_rows, colWidths=[35 * mm, 20 * mm, 110 * mm], hAlign="LEFT")
    sev_table.setStyle(TableStyle(style))
    story.append(sev_table)

    story.append(Paragraph("Scope", st.h2))
    scope_rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in
                                    ("Host", "Kind", "Version / build", "pNICs", "Pseudo devices", "Findings",
                                     "Verdict")]]
    host_verdicts = {hv.host: hv for hv in v.hosts}
    for host in audit.hosts:
        physical = sum(1 for p in host.pnics if p.is_physical is not False)
        pseudo = [p.name for p in host.pnics if p.is_physical is False]
        mine = [f for f in audit.findings if f.host == host.name]
        version = " build ".join(x for x in (host.product_version, host.build) if x) or "not reported"
        nfind = ", ".join(f"{sum(1 for f in mine if f.severity is s)} {s.value}" for s in Severity)
        scope_rows.append([Paragraph(_clean(host.name, fonts), st.cell), Paragraph(_clean(host.kind or "?", fonts),
                                                                                    st.cell),
                           Paragraph(_clean(version, fonts), st.cell), Paragraph(str(physical), st.cell),
                           Paragraph(_clean(", ".join(pseudo) or "—", fonts), st.cell),
                           Paragraph(nfind, st.cell), _verdict_cell(host_verdicts[host.name], fonts, st)])
    scope_rows.append([Paragraph("<b>Total</b>", st.cell), Paragraph(f"{summary['hosts']} host(s)", st.cell), "",
                       Paragraph(f"<b>{summary['pnics']}</b>", st.cell),
                       Paragraph(str(summary["pseudo_devices"]), st.cell),
                       Paragraph(f"{len(audit.findings)} finding(s)", st.cell), _verdict_cell(v, fonts, st)])
    scope = Table(scope_rows, colWidths=[46 * mm, 20 * mm, 36 * mm, 14 * mm, 30 * mm, 44 * mm, 79 * mm],
                  hAlign="LEFT", repeatRows=1)
    scope.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(scope)

    story.append(Paragraph(f"Inputs read ({len(audit.inputs)})", st.h2))
    if audit.inputs:
        story.extend(_bullets(audit.inputs[:COVER_INPUTS], fonts, st))
        if len(audit.inputs) > COVER_INPUTS:
            story.append(Paragraph(f"… and {len(audit.inputs) - COVER_INPUTS} more: every input is listed in the "
                                   "appendix “Inputs read”.", st.small))
    else:
        story.append(Paragraph("No inputs were recorded.", st.small))
    if audit.inputs_not_understood:
        story.append(Spacer(1, 2 * mm))
        story.append(Paragraph(f"{len(audit.inputs_not_understood)} input(s) were not understood: see the appendix "
                               "“Inputs not understood”.", st.body))
    return story


def _host_section(host: Host, audit: Audit, fonts: _Fonts, st: _Styles, first_number: int) -> tuple[list[Any], int]:
    findings = list(audit.findings)
    head = f"Host {_clean(host.name, fonts)}"
    kind = {"esxi": "ESXi", "linux": "Linux"}.get(host.kind or "", host.kind)
    facts = [x for x in (kind, host.product_version, f"build {host.build}" if host.build else None) if x]
    story: list[Any] = [PageBreak(), Paragraph(head, st.h1)]
    if facts:
        story.append(Paragraph(_clean(" · ".join(facts), fonts), st.body))
    story.append(Paragraph("Capability matrix", st.h2))
    matrix = _matrix_table(host, findings, fonts, st)
    story.append(matrix)
    if isinstance(matrix, Table):
        story.append(Spacer(1, 1.5 * mm))
        story.append(_legend(fonts, st))
    pseudo = [p.name for p in host.pnics if p.is_physical is False]
    if pseudo:
        story.append(Paragraph(f"Not rated (pseudo devices): {_clean(', '.join(pseudo), fonts)}", st.small))
    mine = _ordered(f for f in findings if f.host == host.name)
    story.append(Paragraph(f"Checklist for {_clean(host.name, fonts)} ({len(mine)} item(s))", st.h2))
    if not mine:
        story.append(Paragraph("No findings for this host.", st.body))
    number = first_number
    for f in mine:
        story.extend(_finding_item(number, f, fonts, st))
        number += 1
    return story, number


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
            out.append((float(value), unit))
    return out


def _benchmark_section(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    results = [benchmark_to_dict(b) for b in (audit.benchmarks or [])]
    if not results:
        return []
    story: list[Any] = [PageBreak(), Paragraph("Benchmarks", st.h1),
                        Paragraph("Measured values against the expected value for the path; the basis says where the "
                                  "expectation comes from.", st.body), Spacer(1, 2 * mm)]
    head = ("Test", "Tool", "Path", "Measured", "Expected", "Measured / expected", "Basis", "Duration")
    rows: list[list[Any]] = [[Paragraph(f"<b>{h}</b>", st.cell) for h in head]]
    for b in results:
        measured = _measured(b)
        expected = b.get("expected") if isinstance(b.get("expected"), dict) else {}
        exp_value = expected.get("value")
        exp_unit = str(expected.get("unit") or "")
        exp_text = f"{_fmt_num(exp_value)} {exp_unit}".strip() if exp_value is not None else "—"
        ratio = "—"
        for value, unit in measured:
            if isinstance(exp_value, (int, float)) and exp_value and unit == exp_unit:
                ratio = f"{100 * value / exp_value:.0f} %"
        meas_text = "<br/>".join(_clean(f"{_fmt_num(v)} {u}", fonts) for v, u in measured) or "—"
        duration = b.get("duration_s")
        rows.append([
            Paragraph(_clean(b.get("test", ""), fonts), st.cell), Paragraph(_clean(b.get("tool", ""), fonts), st.cell),
            Paragraph(_clean(b.get("path") or "—", fonts), st.cell), Paragraph(meas_text, st.cell),
            Paragraph(_clean(exp_text, fonts), st.cell), Paragraph(ratio, st.cell),
            Paragraph(_clean(expected.get("basis") or "—", fonts), st.cell_small),
            Paragraph(_clean(f"{_fmt_num(duration)} s" if duration is not None else "—", fonts), st.cell),
        ])
    table = Table(rows, colWidths=[32 * mm, 22 * mm, 38 * mm, 34 * mm, 30 * mm, 24 * mm, 70 * mm, 19 * mm],
                  repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(table)
    commands = [(b.get("test", ""), b.get("command")) for b in results if b.get("command")]
    if commands:
        story.append(Paragraph("Commands run", st.h2))
        for test, command in commands:
            text = " ".join(command) if isinstance(command, (list, tuple)) else str(command)
            story.append(Paragraph(f"{_clean(test, fonts)}: <font name=\"{fonts.mono}\">{_clean(text, fonts)}</font>",
                                   st.small))
    return story


def _bullets(items: Iterable[str], fonts: _Fonts, st: _Styles) -> list[Paragraph]:
    """One small bulleted paragraph per item (long paths wrap inside their own bullet)."""
    return [Paragraph(_clean(i, fonts), st.bullet, bulletText="•") for i in items]


def _inputs_appendix(audit: Audit, fonts: _Fonts, st: _Styles) -> list[Any]:
    """Appendix "Inputs read": each host's inputs, then audit inputs that no host lists."""
    story: list[Any] = [PageBreak(), Paragraph("Appendix: inputs read", st.h1)]
    per_host = set()
    for host in audit.hosts:
        story.append(Paragraph(f"{_clean(host.name, fonts)} ({len(host.inputs)})", st.h2))
        story.extend(_bullets(host.inputs, fonts, st) or [Paragraph("No inputs recorded for this host.", st.small)])
        per_host.update(host.inputs)
    rest = [i for i in audit.inputs if i not in per_host]
    if rest:
        story.append(Paragraph(f"Not attributed to a host ({len(rest)})", st.h2))
        story.extend(_bullets(rest, fonts, st))
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
        rows.append([Paragraph(_clean(p.source, fonts), st.mono_cell),
                     Paragraph(_clean(p.command or "—", fonts), st.mono_cell),
                     Paragraph(_clean(p.message, fonts), st.cell)])
    table = Table(rows, colWidths=[85 * mm, 70 * mm, FRAME_WIDTH - 155 * mm], repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#888888")),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#d9e1ea")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story.append(table)
    return story


def build_story(audit: Audit, title: str = DEFAULT_TITLE, fonts: _Fonts | None = None) -> list[Any]:
    """The platypus flowables of the whole document (cover, hosts, benchmarks, appendix)."""
    fonts = fonts or _register_fonts()
    st = _Styles(fonts)
    story = _cover(audit, title, fonts, st)
    number = 1
    for host in audit.hosts:
        part, number = _host_section(host, audit, fonts, st, number)
        story.extend(part)
    known = {h.name for h in audit.hosts}
    other = _ordered(f for f in audit.findings if f.host not in known)
    if other:
        story.extend([PageBreak(), Paragraph("Other findings", st.h1),
                      Paragraph("Findings that concern no audited host (for example a whole input set).", st.body)])
        for f in other:
            story.extend(_finding_item(number, f, fonts, st))
            number += 1
    story.extend(_benchmark_section(audit, fonts, st))
    story.extend(_appendix(audit, fonts, st))
    story.extend(_inputs_appendix(audit, fonts, st))
    return story


def write_pdf(audit: Audit, path: str | os.PathLike[str], title: str = DEFAULT_TITLE, *,
              font_dir: str | os.PathLike[str] | None = None) -> Path:
    """Write the tuning checklist of ``audit`` as an A4-landscape PDF to ``path`` (replaced atomically).

    ``font_dir`` holds the DejaVu TTF files (default :data:`FONT_DIR`); without them the PDF uses Helvetica
    and ASCII status symbols.

    Returns the path. Raises OSError if it cannot be written, TypeError for a benchmark result without
    ``to_dict()``; reportlab's LayoutError only for content no page could hold (not expected: long cells
    and evidence lines wrap).
    """
    fonts = _register_fonts(None if font_dir is None else Path(font_dir))
    story = build_story(audit, title, fonts)
    footer = f"{TOOL_NAME} {__version__} · NSX pNIC tuning checklist · audit {audit.created_at}"

    class _Canvas(_NumberedCanvas):
        footer_left = footer if fonts.unicode else footer.encode("cp1252", "replace").decode("cp1252")
        footer_font = fonts.regular

    def _write(tmp: Path) -> None:
        doc = SimpleDocTemplate(str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN,
                                topMargin=MARGIN, bottomMargin=16 * mm, title=title, author=TOOL_NAME,
                                subject="NSX Geneve overlay pNIC readiness", creator=f"{TOOL_NAME} {__version__}")
        doc.build(story, canvasmaker=_Canvas)

    return atomic_write(path, _write)
