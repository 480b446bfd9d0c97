"""ESXi virtual switches: ``esxcfg-vswitch -l``, ``esxcli network vswitch standard list`` and
``esxcli network vswitch dvs vmware list``.

Facts recorded per switch (key = switch name, fields of :class:`nicadvisor.model.Switch`): ``kind``
(``standard`` for a vSwitch, ``distributed`` for a VDS proxy switch), ``mtu`` (bytes) and ``uplinks``
(pNIC names as printed, ``[]`` when the switch shows none). ``esxcfg-vswitch -l`` DVS sections also
name the vmknics on DVPorts (``Client`` column): those get the vmknic fact ``switch``. Sources:
nic-data-sources.md §5; captures ``esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt``,
``esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt``, ``esxi_esxcli_vswitch_standard_list_mtu.txt``
and the vm-support excerpt ``bundle_commands_esxcfg-vswitch_-l.txt_DVS_section_elatov.txt``.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, kv_lines, to_int
from nicadvisor.parsers.registration import register

# Section headers, also whitespace-flattened ("DVS Name Num Ports Used Ports Configured Ports MTU Uplinks"); an NSX
# switch's section has no Configured Ports and no MTU column ("Switch Name  Num Ports  Used Ports  Uplinks").
_SECTION_RE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?P<kind>Switch|DVS)\s+Name\s+(?P<cols>.*\bUplinks\b.*)$")
_DVPORT_HEADER_RE = re.compile(r"^\s*DVPort ID\s+In Use\s+Client\b")
_PORTGROUP_HEADER_RE = re.compile(r"^\s*PortGroup Name\s+VLAN ID\b")
_DVPORT_ROW_RE = re.compile(r"^\s*(?P<port>\d+)\s+(?P<inuse>\d+)(?:\s+(?P<client>\S.*?))?\s*$")
_VMK_RE = re.compile(r"^vmk\d+$")
_KINDS = {"Switch": "standard", "DVS": "distributed"}
MAX_LINE = 4096
"""Longer lines are not read as switch rows (the row pattern is linear per start position: bounded work)."""


def _split_uplinks(text: str) -> list[str]:
    """``"vmnic3,vmnic2"`` / ``"vmnic1, vmnic0"`` → names; empty text → ``[]``."""
    return [u.strip() for u in re.split(r"[,\s]+", text.strip()) if u.strip()]


@register(r"^esxcfg-vswitch\s+-l\b", "esxcfg-vswitch -l")
def parse_esxcfg_vswitch(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcfg-vswitch -l``: ``Switch Name …`` (standard) and ``DVS Name …`` (distributed) sections.

    A section row is ``NAME  NumPorts  UsedPorts  ConfiguredPorts  MTU  Uplinks``; it is read from the
    numbers (the name may overflow its column, e.g. ``DSwitch_063LongName 6690``, and vm-support copies
    can be whitespace-flattened), the columns being those the section's header names: as many port counts as
    ``Ports`` words before ``MTU``, and an MTU only when the header has one. A ``Switch Name`` section without
    ``Configured Ports`` and ``MTU`` is an NSX switch (kind ``opaque``, its MTU unknown): the N-VDS of an NSX-T
    host (capture ``esxi_nsxt251_esxcfg-vswitch-l_nvds_block_without_mtu_column_blog.txt``, NVDS-Overlay) and
    NSX-MH's ``nsx-vswitch`` (``esxi55_esxcfg-vswitch-l_nsx-mh_nsx-vswitch_block_without_mtu_column_fuel-docs.txt``),
    both in tests/parsers/captures. Uplinks are comma separated. In DVS sections, ``DVPort ID / In Use / Client`` rows
    whose client is a vmknic record ``vmknics[vmkN]["switch"]``. A switch row that cannot be read (a third-party or
    stale distributed switch printing another shape, a row cut by pasting) is listed in a note with its line number
    (1-based in ``text``); its section is skipped and the rest of the output is still read. Never raises.
    """
    result = ParseResult(family="esxcfg-vswitch -l")
    kind: str | None = None
    row_re: re.Pattern[str] | None = None
    switch: str | None = None
    sub: str | None = None  # "dvport" / "portgroup" while inside a sub-table
    for line_no, line in enumerate(text.splitlines(), start=1):
        m = _SECTION_RE.match(line)
        if m:
            cols = m.group("cols").split()
            has_mtu = "MTU" in cols
            kind = _KINDS[m.group("kind")] if has_mtu or m.group("kind") == "DVS" else "opaque"
            # the columns are found by the header's words: as many counts as "Ports" words before MTU (or Uplinks)
            counts = cols[:cols.index("MTU") if has_mtu else cols.index("Uplinks")].count("Ports")
            row_re = re.compile(
                # uplinks are pNIC names, never a bare number: a name ending in one ("Prod DSwitch 2") is then
                # read whole instead of shifting every count one column (MTU read from "Configured Ports")
                r"^\s*(?P<name>\S.*?)" + r"\s+\d+" * counts + (r"\s+(?P<mtu>\d+)" if has_mtu else "")
                + r"(?:\s+(?P<uplinks>(?!\d+(?:[\s,]|$))\S.*?))?\s*$"
            )
            switch, sub = None, None
            continue
        if kind is None or row_re is None:
            continue
        if not line.strip():
            continue
        if line.lstrip().startswith("["):  # a prompt ends the output
            kind = None
            continue
        if _DVPORT_HEADER_RE.match(line):
            sub = "dvport"
            continue
        if _PORTGROUP_HEADER_RE.match(line):
            sub = "portgroup"
            continue
        if switch is None:
            rm = row_re.match(line) if len(line) <= MAX_LINE else None
            if not rm:
                result.notes.append(f"esxcfg-vswitch -l: line {line_no}: switch row not understood, its section "
                                    f"skipped: {line.strip()[:200]!r}")
                kind = None  # up to the next "Switch Name"/"DVS Name" header
                continue
            switch = rm.group("name").strip()
            result.switch(switch, "kind", kind, line)
            result.switch(switch, "mtu", to_int(rm.groupdict().get("mtu")), line)
            result.switch(switch, "uplinks", _split_uplinks(rm.group("uplinks") or ""), line)
            continue
        if sub == "dvport":
            dm = _DVPORT_ROW_RE.match(line)
            client = (dm.group("client") or "") if dm else ""
            if dm and _VMK_RE.match(client):
                result.vmknic(client, "switch", switch, line)
    if not result.switches:
        result.notes.append("esxcfg-vswitch -l: no 'Switch Name' / 'DVS Name' section found")
    return result


def _kv_switch_blocks(text: str, result: ParseResult, kind: str, family: str) -> None:
    """Read ``Name:``-started key/value blocks of the esxcli vswitch lists into ``result``.

    A block counts as a switch only when it carries ``MTU:``, ``Uplinks:`` or ``Class:`` (so that
    ``Name:`` lines of other outputs in the text, e.g. ``esxcli network nic get``, are ignored), and
    only keys at the indentation of its ``Name:`` line are read (nested DVPort blocks are skipped). A block of the
    other listing (``VDS ID:``/``DVPort:`` in a standard list, ``Portgroups:`` in a dvs list: two outputs under one
    header with no prompt between them, capture
    ``esxi_esxcli_vswitch_standard_list_and_dvs_vmware_list_no_prompt_between_ja_notes.txt``) is not read as this
    kind: a record names it, and a note when the output holds no block of this kind.
    """
    blocks: list[dict[str, tuple[str, str]]] = []
    name_indent = -1
    for indent, key, value, raw in kv_lines(text):
        if key == "Name":
            blocks.append({"Name": (value, raw)})
            name_indent = indent
            continue
        if blocks and indent == name_indent and key not in blocks[-1]:
            blocks[-1][key] = (value, raw)
    for block in blocks:
        name, name_line = block["Name"]
        if not name or not ({"MTU", "Uplinks", "Class"} & block.keys()):
            continue
        # each listing tells its blocks by their own lines: a VDS block has 'VDS ID:' (and 'DVPort:'), a standard
        # vSwitch block 'Portgroups:'; two outputs pasted under one header without a prompt between them are
        # each read by their own command, never one as the other's kind
        own = "distributed" if {"VDS ID", "DVPort"} & block.keys() else "standard" if "Portgroups" in block else kind
        if own != kind:
            result.records.append({"family": family, "switch": name, "skipped": f"a {own} switch's block"})
            continue
        result.switch(name, "kind", kind, name_line)
        if "MTU" in block:
            result.switch(name, "mtu", to_int(block["MTU"][0]), block["MTU"][1])
        if "Uplinks" in block:
            result.switch(name, "uplinks", _split_uplinks(block["Uplinks"][0]), block["Uplinks"][1])
    skipped = [r["switch"] for r in result.records if "skipped" in r]
    if skipped and not result.switches:
        result.notes.append(f"{family}: the output holds only other listings' switch blocks ({', '.join(skipped)}): "
                            "none is read as this command's")
    elif not result.switches:
        result.notes.append(f"{family}: no switch block (Name:/MTU:/Uplinks:) found")


@register(r"^esxcli network vswitch standard list\b", "esxcli network vswitch standard list")
def parse_vswitch_standard_list(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli network vswitch standard list`` blocks: ``Name``, ``MTU`` (bytes),
    ``Uplinks: vmnic0, vmnic1`` → switches of kind ``standard``. Never raises."""
    result = ParseResult(family="esxcli network vswitch standard list")
    _kv_switch_blocks(text, result, "standard", result.family)
    return result


@register(r"^esxcli network vswitch dvs vmware list\b", "esxcli network vswitch dvs vmware list")
def parse_vswitch_dvs_list(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli network vswitch dvs vmware list`` blocks (host view of a VDS): ``Name``, ``MTU``,
    ``Uplinks`` → switches of kind ``distributed`` (layout per nic-data-sources.md §5; capture
    ``esxi_esxcli_vswitch_standard_list_and_dvs_vmware_list_no_prompt_between_ja_notes.txt``). Never raises."""
    result = ParseResult(family="esxcli network vswitch dvs vmware list")
    _kv_switch_blocks(text, result, "distributed", result.family)
    return result
