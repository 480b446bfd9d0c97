"""ESXi ``vim-cmd hostsvc/net/query_networkhint [--pnic-name=vmnicN]``: hostd's ``QueryNetworkHint`` printed in
vmodl's text form, the LLDP / CDP neighbour (switch and port) of each vmnic.

The text is vim-cmd's dump of ``vim.host.PhysicalNic.NetworkHint[]``: nested ``name = (type) {`` / ``(type) [``
blocks closed by ``}``/``]`` and ``name = value,`` members (strings quoted, ``<unset>``, ``true``/``false``,
integers). It is read into the same plain dicts the vSphere API gives and decided by the same code
(:func:`nicadvisor.parsers.network_hint_facts.hint_facts`); each fact's evidence is its own output line. Indentation is
not relied on (a blog copy lost it) and the ``...`` lines an author elided are skipped.

Sources: ``esxi_vim-cmd_query_networkhint_cdp_elatov_partial.txt`` (a whole hint with CDP, elided) and
``unattributed_vdnet_esxi_vim-cmd_query_networkhint_cdp_c2960_comment_partial.txt`` (the whole CdpInfo of a Cisco
2960 as VMware's vdnet framework quotes it); nic-data-sources.md §1.1; VMware KB 1007069. No public output of the
LLDP form (``lldpInfo = (vim.host.PhysicalNic.LldpInfo)``) was found: it is read by the same member names the API
uses (``chassisId``, ``portId``, ``parameter`` of ``vim.KeyAnyValue``).
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, is_placeholder
from nicadvisor.parsers.network_hint_facts import hint_facts
from nicadvisor.parsers.registration import register

FAMILY = "vim-cmd hostsvc/net/query_networkhint"

_OPEN_RE = re.compile(r"^(?:(?P<name>\w+)\s*=\s*)?\((?P<type>[\w.]+)\)\s*(?P<bracket>[\[{])\s*$")
_MEMBER_RE = re.compile(r"^(?P<name>\w+)\s*=\s*(?P<value>.*?),?\s*$")
_CLOSE_RE = re.compile(r"^[}\]]\s*,?\s*$")
_NIC_ARG_RE = re.compile(r"--pnic-names?=(?P<nic>vmnic\d{1,9})\b")
_MAX_DEPTH = 16


def _scalar(text: str) -> Any:
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if text == "<unset>":
        return None
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d{1,18}", text):
        return int(text)
    return text


def read_hints(text: str) -> tuple[list[dict[str, Any]], dict[int, dict[str, str]], list[str]]:
    """The ``NetworkHint`` objects of a vim-cmd dump as plain dicts, the raw line of each member (``{id(dict):
    {member: line}}``) and notes. A ``connectedSwitchPort``/``lldpInfo`` block outside any hint (an excerpt) becomes a
    hint without ``device``. Linear in the text; nesting deeper than 16 is ignored."""
    root: dict[str, Any] = {}
    stack: list[Any] = [root]
    lines_of: dict[int, dict[str, str]] = {}
    hints: list[dict[str, Any]] = []
    notes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line in ("...", "…"):
            continue
        top = stack[-1]
        m = _OPEN_RE.match(line)
        if m:
            new: Any = {} if m.group("bracket") == "{" else []
            if isinstance(top, list):
                top.append(new)
            else:
                top[m.group("name") or f"#{len(top)}"] = new
                lines_of.setdefault(id(top), {})[m.group("name") or ""] = raw
            if isinstance(new, dict) and m.group("type") == "vim.host.PhysicalNic.NetworkHint":
                hints.append(new)
            if len(stack) < _MAX_DEPTH:
                stack.append(new)
            continue
        if _CLOSE_RE.match(line):
            if len(stack) > 1:
                stack.pop()
            continue
        m = _MEMBER_RE.match(line)
        if m and isinstance(top, dict):
            top[m.group("name")] = _scalar(m.group("value").strip())
            lines_of.setdefault(id(top), {})[m.group("name")] = raw
    if not hints and ("connectedSwitchPort" in root or "lldpInfo" in root):
        hints.append(root)
        notes.append("an excerpt of one network hint (no 'device' line): the vmnic it belongs to is not named")
    return hints, lines_of, notes


@register(r"^vim-cmd\s+hostsvc/net/query_networkhint\b", FAMILY)
def parse_query_networkhint(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``vim-cmd hostsvc/net/query_networkhint`` into each vmnic's ``neighbor_*`` facts (switch name, port,
    management address, MTU in bytes, native VLAN: :func:`nicadvisor.parsers.network_hint_facts.hint_facts`) plus one
    record per protocol heard. A hint without a ``device`` line takes the vmnic of ``--pnic-name(s)=vmnicN`` when the
    command names one, else gives records only. Never raises."""
    hints, lines_of, notes = read_hints(text)
    arg = _NIC_ARG_RE.search(cmd.text)
    nic_arg = arg.group("nic") if arg and not is_placeholder(arg.group("nic")) else None
    for h in hints:
        if "device" not in h and nic_arg:
            h["device"] = nic_arg

    def line(nic: str, path: str, value: Any) -> str:
        obj: Any = next((h for h in hints if h.get("device") == nic), {})
        parts = path.split(".")
        for part in parts[:-1]:
            if part == "parameter" and isinstance(obj, dict):
                for kv in obj.get("parameter") or []:
                    if isinstance(kv, dict) and kv.get("key") == parts[-1]:
                        return lines_of.get(id(kv), {}).get("value", f"{nic} {path}")
                return f"{nic} {path}"
            obj = obj.get(part, {}) if isinstance(obj, dict) else {}
        return lines_of.get(id(obj), {}).get(parts[-1], f"{nic} {path}") if isinstance(obj, dict) else f"{nic} {path}"

    result = hint_facts([h for h in hints if isinstance(h.get("device"), str)], line, FAMILY)
    for h in hints:
        if not isinstance(h.get("device"), str):
            result.records.extend(hint_facts([{**h, "device": "(vmnic not named)"}], family=FAMILY).records)
    result.notes.extend(notes)
    if not hints:
        result.notes.append(f"{cmd.text!r}: no network hint found")
    return result
