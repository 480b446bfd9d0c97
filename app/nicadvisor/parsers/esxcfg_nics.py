"""ESXi ``esxcfg-nics -l`` (uplink inventory) and ``esxcfg-nics -e`` (ENS / Enhanced Data Path capability).

Formats: ``shared/design/research/nic-data-sources.md`` §4 (``Name PCI Driver Link Speed Duplex MAC Address
MTU Description``, speed like ``25000Mbps``), §8a (``-e`` columns, older builds without the two ``INTR``
columns), §14 items 2, 9, 24 (stale speed of down ports; ``-e`` needs NSX VIBs; the Driver column can be empty).
Pure functions, never raise on malformed text.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, cut, norm_pci, to_bool
from nicadvisor.parsers.esxcli_nic import MACISH, NAME_RE, PCI_TEXT, PROMPT_RE, clean, record_nic_row, valid_mac
from nicadvisor.parsers.registry import register

# --- esxcfg-nics -l ---------------------------------------------------------------------------------------

_L_HEADER_RE = re.compile(r"^\s*Name\s+PCI\s+Driver\s+Link\s+Speed\s+Duplex\s+MAC Address\s+MTU\s+Description\s*$")
_L_LABELS = (("name", "Name"), ("pci", "PCI"), ("driver", "Driver"), ("link", "Link"), ("speed", "Speed"),
             ("duplex", "Duplex"), ("mac", "MAC Address"), ("mtu", "MTU"), ("description", "Description"))
# Token grammar: the PCI column and the Driver column may be missing/empty, MAC/MTU/description may be
# missing (grep'd or wrapped lines, blog copies without the PCI column).
_L_ROW_RE = re.compile(
    r"^\s*(?P<name>vmnic\d+|vusb\d+)\s+(?:(?P<pci>" + PCI_TEXT + r"|Pseudo)\s+)?(?:(?P<driver>\S+)\s+)?"
    r"(?P<link>Up|Down)\s+(?P<speed>\d+\s*Mbps)\s+(?P<duplex>Full|Half)"
    r"(?:\s+(?P<mac>" + MACISH + r"))?(?:\s+(?P<mtu>\d+))?(?:\s+(?P<description>\S.*?))?\s*$"
)
_L_CONT_RE = re.compile(r"^\s*(?P<mac>" + MACISH + r")\s+(?P<mtu>\d+)(?:\s+(?P<description>\S.*?))?\s*$")


def _offsets(header: str) -> list[tuple[str, int, int]] | None:
    """Column (field, start, end) offsets of the ``-l`` header (its words are single-space separated, so
    :func:`columns_from_header` would merge ``Link Speed``; the labels are looked up instead)."""
    starts = []
    pos = 0
    for fld, label in _L_LABELS:
        i = header.find(label, pos)
        if i < 0:
            return None
        starts.append((fld, i))
        pos = i + len(label)
    return [(f, s, starts[k + 1][1] if k + 1 < len(starts) else -1) for k, (f, s) in enumerate(starts)]


def _row_by_offsets(line: str, cols: list[tuple[str, int, int]]) -> dict[str, str] | None:
    """The row cut at the header's offsets, or None when the cut does not look like an ``-l`` row
    (indent differs from the header, e.g. a dedent artifact, or a field overflowed its column)."""
    row = {f: cut(line, s, e) for f, s, e in cols}
    pci = row.get("pci", "")
    if not NAME_RE.match(row.get("name", "")) or not (norm_pci(pci) or pci == "Pseudo"):
        return None
    if row.get("link") not in ("Up", "Down") or not re.fullmatch(r"\d+\s*Mbps", row.get("speed", "")):
        return None
    if row.get("duplex") not in ("Full", "Half") or " " in row.get("driver", ""):
        return None
    return row


@register(r"^esxcfg-nics -l\b", "esxcfg-nics -l")
def parse_esxcfg_nics_l(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcfg-nics -l``: one row per uplink → pNIC facts (see :func:`esxcli_nic.record_nic_row`):
    ``pci_address``, ``driver`` (an empty Driver column stays unset, §14 item 24), ``link_up``,
    ``link_speed_mbps`` (``25000Mbps`` → 25000, only for link-up ports; ``Down 0Mbps`` is not a speed),
    ``duplex``, ``mac``, ``mtu`` (bytes), ``description``.

    Rows aligned with the header are cut at the header's column offsets (so an empty Driver column does not
    shift later fields); others (dedent artifacts as in ``esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt``,
    whitespace-flattened blog copies without the PCI column, ``| grep vmnic5`` without header) are read with a
    token grammar anchored on ``Up|Down``, ``NNNNMbps`` and ``Full|Half``. A row wrapped after the duplex
    (``esxi_esxcfg-nics-l_xl710_mtu9000_vmnic5_seed.txt``) is joined with its continuation lines. With
    ``| grep vmnicN`` only that uplink is kept. Never raises.
    """
    result = ParseResult(family="esxcfg-nics -l")
    lines = text.splitlines()
    cols = None
    header_indent = 0
    in_table = False
    i = 0
    while i < len(lines):
        raw = lines[i]
        if _L_HEADER_RE.match(raw):
            expanded = raw.expandtabs()
            cols = _offsets(expanded)
            header_indent = len(expanded) - len(expanded.lstrip())
            in_table = True
            i += 1
            continue
        if in_table and (not raw.strip() or PROMPT_RE.match(raw)):
            in_table = False
        expanded = raw.expandtabs()
        row = None
        if in_table and cols and len(expanded) - len(expanded.lstrip()) == header_indent:
            row = _row_by_offsets(expanded, cols)
        evidence = raw
        if row is None:
            m = _L_ROW_RE.match(raw)
            if m:
                row = {k: v for k, v in m.groupdict().items() if v is not None}
                if "mac" not in row and "mtu" not in row and "description" not in row:
                    # wrapped row: "… Up 40000Mbps Full" / "3c:fd:… 9000 Intel … XL710" / "for 40GbE QSFP+"
                    j = i + 1
                    cont = _L_CONT_RE.match(lines[j]) if j < len(lines) else None
                    if cont:
                        row.update({k: v for k, v in cont.groupdict().items() if v})
                        parts = [raw.strip(), lines[j].strip()]
                        j += 1
                        while (j < len(lines) and lines[j].strip() and not PROMPT_RE.match(lines[j])
                               and not _L_ROW_RE.match(lines[j]) and not re.match(r"^\s*[0-9a-fA-F]{3,4}:", lines[j])):
                            row["description"] = f"{row.get('description', '')} {lines[j].strip()}".strip()
                            parts.append(lines[j].strip())
                            j += 1
                        evidence = "\n".join(parts)
                        i = j - 1
            elif in_table and raw.strip():
                result.notes.append(f"esxcfg-nics -l: row not understood: {raw.strip()!r}")
        if row is not None and (cmd.target is None or row.get("name") == cmd.target):
            record_nic_row(result, row, evidence)
        i += 1
    if not result.pnics:
        result.notes.append("esxcfg-nics -l: no uplink rows found")
    return result


# --- esxcfg-nics -e ---------------------------------------------------------------------------------------

_E_HEADER_RE = re.compile(r"^\s*Name\s+Driver\s+ENS Capable\s+ENS Driven\s+(?P<intr>INTR Capable\s+INTR Enabled\s+)?"
                          r"MAC Address\s+Description\s*$")
_BOOL = r"(True|False|true|false)"


@register(r"^esxcfg-nics -e\b", "esxcfg-nics -e")
def parse_esxcfg_nics_e(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcfg-nics -e`` (hosts with NSX VIBs; §8a): columns ``Name Driver ENS Capable ENS Driven [INTR
    Capable INTR Enabled] MAC Address Description`` (capture
    ``esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt``; older builds lack the two INTR columns).

    Recorded per uplink: ``driver`` (as printed), ``ens_capable`` (ENS Capable), ``ens_enabled`` (ENS Driven:
    the uplink is driven by the ENS/Enhanced Data Path stack), ``ens_interrupt_capable`` (INTR Capable) and
    ``ens_mode``: ``"standard"`` when ENS Driven is False, ``"ens_interrupt"`` when ENS Driven and INTR Enabled
    are True, ``"ens"`` when ENS Driven is True and INTR Enabled False; unset when the INTR columns are absent
    and ENS Driven is True (poll vs. interrupt mode not stated). ``INTR Enabled`` itself goes to ``records``.
    The Description column is truncated by the command, so it is not recorded. ``invalid option -- 'e'``
    (no NSX VIBs, §14 item 9) yields a note only. Never raises.
    """
    result = ParseResult(family="esxcfg-nics -e")
    lines = text.splitlines()
    for h, line in enumerate(lines):
        m = _E_HEADER_RE.match(line)
        if not m:
            continue
        has_intr = bool(m.group("intr"))
        n_bools = 4 if has_intr else 2
        row_re = re.compile(r"^\s*(?P<name>\S+)\s+(?:(?P<driver>\S+)\s+)?" + r"\s+".join([_BOOL] * n_bools)
                            + r"(?:\s+(?P<mac>" + MACISH + r"))?(?:\s+.*)?$")
        for raw in lines[h + 1:]:
            if not raw.strip() or PROMPT_RE.match(raw):
                break
            rm = row_re.match(raw)
            if not rm or not NAME_RE.match(rm.group("name")):
                result.notes.append(f"esxcfg-nics -e: row not understood: {raw.strip()!r}")
                continue
            name = rm.group("name")
            flags = [to_bool(rm.group(k)) for k in range(3, 3 + n_bools)]
            capable, driven = flags[0], flags[1]
            intr_capable, intr_enabled = (flags[2], flags[3]) if has_intr else (None, None)
            result.pnic(name, "driver", clean(rm.group("driver")), raw)
            result.pnic(name, "mac", valid_mac(rm.group("mac")), raw)
            result.pnic(name, "ens_capable", capable, raw)
            result.pnic(name, "ens_enabled", driven, raw)
            result.pnic(name, "ens_interrupt_capable", intr_capable, raw)
            mode = None
            if driven is False:
                mode = "standard"
            elif driven and intr_enabled is not None:
                mode = "ens_interrupt" if intr_enabled else "ens"
            result.pnic(name, "ens_mode", mode, raw)
            result.records.append({"family": result.family, "nic": name,
                                   "fields": {"ENS Capable": capable, "ENS Driven": driven,
                                              "INTR Capable": intr_capable, "INTR Enabled": intr_enabled}})
    if not result.pnics:
        if re.search(r"invalid option -- '?e'?", text):
            result.notes.append("esxcfg-nics -e: not supported on this host (no NSX VIBs installed)")
        else:
            result.notes.append("esxcfg-nics -e: no ENS capability table found")
    return result
