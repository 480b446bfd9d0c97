"""Small text helpers shared by the pages (pure; no Qt)."""
from __future__ import annotations

import html
from typing import Any, Iterable

from nicadvisor.model.references import citations
from nicadvisor.report.remediation import NO_COMMAND, STEP_LABELS


def speed_text(pnic: Any) -> str:
    """Link speed of a PhysicalNic for display: ``"25 Gbit/s"``, ``"100 Mbit/s"``, ``"link down"``,
    or ``"not reported"`` (``link_speed_mbps`` is Mbit/s; a link-down port has no speed)."""
    mbps = getattr(pnic, "link_speed_mbps", None)
    if isinstance(mbps, int) and mbps > 0:
        return f"{mbps / 1000:g} Gbit/s" if mbps >= 1000 else f"{mbps} Mbit/s"
    if getattr(pnic, "link_up", None) is False:
        return "link down"
    return "not reported"


def pci_ids_text(pnic: Any) -> str:
    """``"8086:1572 8086:0007"`` (vendor:device subsystem-vendor:subsystem), parts unknown as ``?``;
    empty when no ID is known."""
    vid, did, svid, ssid = (getattr(pnic, n, None) for n in ("vid", "did", "svid", "ssid"))
    if not any((vid, did, svid, ssid)):
        return ""
    main = f"{vid or '?'}:{did or '?'}"
    if svid or ssid:
        main += f"  {svid or '?'}:{ssid or '?'}"
    return main


def driver_text(pnic: Any) -> str:
    """``"i40en 2.1.5.0"`` (driver as printed, ENS ``_ens`` suffix kept, plus version when known)."""
    parts = [p for p in (getattr(pnic, "driver", None), getattr(pnic, "driver_version", None)) if p]
    return " ".join(parts)


def plural(n: int, noun: str) -> str:
    """``"1 command"``, ``"3 commands"``: ``n`` and ``noun``, with an ``s`` unless ``n`` is 1."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def physical_pnics(host: Any) -> list[Any]:
    """The pNICs of ``host`` that are physical or of unknown kind: what every view counts (the summary, the matrix,
    the history, the CLI); pseudo devices (``vusb0``, a ``vmnic32`` of a USB NIC driver) are not counted."""
    return [p for p in getattr(host, "pnics", ()) if p.is_physical is not False]


def pnic_count_text(host: Any, suffix: str = "") -> str:
    """``"4 pNICs"`` (``suffix`` after it: ``" read"``; a pNIC is a physical NIC already: "1 physical pNIC" said it
    twice), plus ``" (+ 1 pseudo device)"`` when the host listed pseudo devices, which are not counted."""
    n = len(physical_pnics(host))
    pseudo = len(getattr(host, "pnics", ())) - n
    text = f"{n} pNIC{'' if n == 1 else 's'}{suffix}"
    return text + (f" (+ {pseudo} pseudo device{'' if pseudo == 1 else 's'})" if pseudo else "")


def esc(value: object) -> str:
    """HTML-escape ``value`` (str() of it)."""
    return html.escape(str(value), quote=True)


def evidence_html(evidence: Iterable[Any], heading: str = "Evidence") -> str:
    """HTML list of Evidence items: command (bold, monospace), source, the raw line(s) in a block."""
    items = list(evidence)
    if not items:
        return f"<h4>{esc(heading)}</h4><p><i>No evidence line: the value was not reported by any input.</i></p>"
    out = [f"<h4>{esc(heading)}</h4>"]
    for ev in items:
        command = getattr(ev, "command", "") or "(command not recorded)"
        source = getattr(ev, "source", "") or "(source not recorded)"
        line = getattr(ev, "line", "") or ""
        out.append(
            f"<p style='margin-bottom:2px'><b>Command:</b> <code>{esc(command)}</code><br>"
            f"<b>Source:</b> {esc(source)}</p>"
            f"<pre style='background:#f2f2f2; margin-top:0; white-space:pre-wrap'>{esc(line)}</pre>")
    return "".join(out)


SEVERITY_COLOURS = {"error": "#b00020", "warning": "#8a5a00", "info": "#1d4f91"}


def references_html(references: Iterable[str]) -> str:
    """The documents a finding cites (its ``references``, internal keys) as the reports name them
    (:mod:`nicadvisor.model.references`): a list of "Title. Version. Publisher. §section" each linked to its address,
    or with the note that says why it has none; never an internal file name."""
    items = []
    for c in citations(tuple(references)):
        ref = c.reference
        text = esc(ref.text()) + (f" §{esc(c.section)}" if c.section else "")
        where = (f" <a href='{esc(ref.url)}'>{esc(ref.url)}</a>" if ref.url else
                 f" <i>{esc(ref.note)}</i>" if ref.note else "")
        items.append(f"<li>{text}{where}</li>")
    return "<ul>" + ("".join(items) or "<li><i>none</i></li>") + "</ul>"


def steps_html(finding: Any) -> str:
    """A finding's change, its check and its roll-back (``Finding.change`` / ``verify`` / ``rollback``, the host's own
    names filled in), each a block to copy, labelled as the PDF and the HTML report label them; "" for an
    information-only finding that gives none."""
    if not any(getattr(finding, key, "") for key, _label in STEP_LABELS):
        return ""
    out = []
    for key, label in STEP_LABELS:
        text = getattr(finding, key, "")
        body = (f"<pre style='background:#f2f2f2; margin-top:0; white-space:pre-wrap'>{esc(text)}</pre>" if text else
                f"<p style='margin-top:0'><i>{esc(NO_COMMAND)}</i></p>")
        out.append(f"<p style='margin-bottom:2px'><b>{esc(label)}:</b></p>{body}")
    return "".join(out)


def finding_html(finding: Any, with_evidence: bool = True) -> str:
    """HTML of one Finding: severity, title, target, what was found, what to do, the change, its check and its roll-back,
    the documents it cites by title, version and address, and its evidence."""
    sev = getattr(finding.severity, "value", str(finding.severity))
    colour = SEVERITY_COLOURS.get(sev, "#000000")
    out = (
        f"<h3 style='margin-bottom:2px'><span style='color:{colour}'>[{esc(sev.upper())}]</span> "
        f"{esc(finding.title)}</h3>"
        f"<p style='margin-top:0'><b>Target:</b> {esc(finding.target)} &nbsp; <b>Rule:</b> {esc(finding.rule_id)}"
        + (f" &nbsp; <b>Category:</b> {esc(finding.category)}" if finding.category else "") + "</p>"
        f"<p><b>What was found:</b> {esc(finding.message)}</p>"
        f"<p><b>What to do:</b> {esc(finding.recommendation)}</p>"
        + steps_html(finding)
        + f"<p><b>References:</b></p>{references_html(finding.references)}")
    if with_evidence:
        out += evidence_html(finding.evidence)
    return out
