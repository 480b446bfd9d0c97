"""ESXi driver modules: ``esxcfg-module -i DRV``, ``esxcfg-module -g DRV`` and
``esxcli system module parameters list -m DRV`` (its text, and its rows answered over the vSphere API).

Facts recorded per module (key = module name, fields of :class:`nicadvisor.model.KernelModule`):
``version`` (as printed, e.g. ``2.6.0.30-1OEM.800.1.0.20613240``), ``parameters`` (declared parameter
name → its description, or its type when there is no description) and ``options`` (configured option
name → value as printed, e.g. ``{"RSS": "4,4"}``; ``{}`` when the output shows no option is set).
Each declared parameter is also put in ``records`` as ``{"kind": "module_parameter", "module", "name",
"type", "value", "description"}`` (``value`` None when unset/unknown). Sources: nic-data-sources.md §7
and §9 (RSS/DRSS/VMDQ and RxITR/TxITR live in module parameters); captures
``esxi_esxcfg-module-i_*``, ``esxi_esxcfg-module-g_icen_options.txt``,
``esxi_g_esxcli_system_module_parameters_list_*``.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import CommandLine, ParseResult, columns_from_header, cut, is_rule
from nicadvisor.parsers.esxi.esxcli_nic import clean
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.registration import register, register_rows
from nicadvisor.parsers.rows import esxcli_api_family, norm_row, row_line, text as text_of

_TYPE_WORDS = r"(?:u?int|u?long|u?short|ullong|llong|byte|bool|invbool|charp|string)"
_TYPE_RE = re.compile(r"^(?:array of )?" + _TYPE_WORDS + r"$")
_NAME_RE = re.compile(r"^[A-Za-z_][\w.-]*$")


def parse_options(text: str) -> tuple[dict[str, str], list[str]]:
    """``"RSS=4,4 DRSS=4"`` → ``({"RSS": "4,4", "DRSS": "4"}, [])``; words without ``=`` are returned
    as the second item (not understood)."""
    options: dict[str, str] = {}
    bad: list[str] = []
    for word in text.split():
        key, sep, value = word.partition("=")
        if sep and key:
            options[key] = value.strip("'\"")
        else:
            bad.append(word)
    return options, bad


def _module_name(cmd: CommandLine, fallback: str | None = None) -> str | None:
    target = cmd.target
    if target and _NAME_RE.match(target) and not target.startswith("-"):
        return target
    return fallback


# --- esxcfg-module -i -----------------------------------------------------------------------------

_INFO_START_RE = re.compile(r"^\s*(?:esxcfg-module module information|input file:)", re.I)
_INPUT_FILE_RE = re.compile(r"^\s*input file:\s*(\S+)", re.I)
_PARAM_LINE_RE = re.compile(r"^(?P<name>[A-Za-z_][\w.-]*):\s*(?P<type>\S.*?)\s*$")
#: The types ``esxcfg-module -i`` prints for a parameter (``int``, ``array of int``, ``charp``, ``uint`` ...):
#: a ``NAME: <type>`` line starts a parameter whatever its indentation (re-indented copies).
#: The Parameters list is the last part of the output: the next command's echo or prompt ends it.
_NEXT_COMMAND_RE = re.compile(r"^(?:[~#$]\s|\[[^\]]*\][#$]|esxcfg-module\s|esxcli\s|vmkload_mod\s)")
_PARAM_TYPE_RE = re.compile(r"^(?:array of )?(?:u?int|u?long|u?short|charp|bool|invbool|byte|string)\b")


@register(r"^esxcfg-module\s+-i\b", "esxcfg-module -i")
def parse_esxcfg_module_info(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcfg-module -i DRV``: ``Version:`` → ``version``; the ``Parameters:`` list
    (``NAME: type`` lines, recognised by the type's shape whatever their indentation, each followed by its
    description lines) → ``parameters``.

    The module is the one named on the command line, else the basename of ``input file:``. Parsing
    starts at ``esxcfg-module module information`` (or ``input file:``) so that ``Version:`` lines of
    other outputs in the text are not read. Never raises.
    """
    result = ParseResult(family="esxcfg-module -i")
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if _INFO_START_RE.match(ln)), None)
    if start is None:
        result.notes.append("esxcfg-module -i: no 'esxcfg-module module information' block found")
        return result
    input_file = next((m.group(1) for ln in lines[start:] if (m := _INPUT_FILE_RE.match(ln))), None)
    module = _module_name(cmd, input_file.rsplit("/", 1)[-1] if input_file else None)
    if not module:
        result.notes.append("esxcfg-module -i: module name unknown (not on the command line, no input file)")
        return result
    params: dict[str, str] = {}
    param_lines: list[str] = []
    in_params = False
    current: tuple[str, str] | None = None
    descriptions: dict[str, list[str]] = {}
    for line in lines[start:]:
        if not line.strip():
            continue
        stripped = line.strip()
        if not in_params:
            key, sep, value = stripped.partition(":")
            if sep and key == "Version":
                result.module(module, "version", value.strip() or None, line)
            elif sep and key == "Parameters":
                in_params = True
            continue
        m = _PARAM_LINE_RE.match(stripped)
        starts = m is not None and _PARAM_TYPE_RE.match(m.group("type")) is not None
        if not starts and (_INFO_START_RE.match(stripped) or _NEXT_COMMAND_RE.match(stripped)):
            break  # the Parameters list ends the output: only another output ends it
        if starts:
            current = (m.group("name"), m.group("type"))
            descriptions[current[0]] = []
            params[current[0]] = current[1]
            param_lines.append(line.rstrip())
        elif current is not None:
            descriptions[current[0]].append(stripped)
            param_lines.append(line.rstrip())
    for name, ptype in params.items():
        desc = " ".join(descriptions.get(name, [])) or None
        params[name] = desc or ptype
        result.records.append({"kind": "module_parameter", "module": module, "name": name,
                               "type": ptype, "value": None, "description": desc})
    if in_params:
        result.module(module, "parameters", params, "\n".join(param_lines) or "Parameters:")
    return result


# --- esxcfg-module -g -----------------------------------------------------------------------------

_GET_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z_][\w.-]*)\s+enabled\s*=\s*(?P<enabled>\d+)\s+options\s*=\s*'(?P<opts>[^']*)'")


@register(r"^esxcfg-module\s+-g\b", "esxcfg-module -g")
def parse_esxcfg_module_get(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcfg-module -g DRV`` → ``options`` of the module (``{}`` for ``options = ''``).

    Format: ``icen enabled = 1 options = 'vmdq=1,2,3,4 sriov=0,0,1,1'`` (nic-data-sources.md §7,
    ``esxi_esxcfg-module-g_icen_options.txt``); the ``enabled`` flag goes to ``records``
    (``{"kind": "module_enabled", "module", "enabled": bool}``). Never raises.
    """
    result = ParseResult(family="esxcfg-module -g")
    for line in text.splitlines():
        m = _GET_RE.match(line)
        if not m:
            continue
        module = m.group("name")
        options, bad = parse_options(m.group("opts"))
        if bad:
            result.notes.append(f"esxcfg-module -g: option words without '=' ignored: {' '.join(bad)}")
        result.module(module, "options", options, line)
        result.records.append({"kind": "module_enabled", "module": module, "enabled": m.group("enabled") != "0"})
    if not result.modules:
        result.notes.append("esxcfg-module -g: no \"<module> enabled = N options = '…'\" line found")
    return result


# --- esxcli system module parameters list ---------------------------------------------------------

_PL_HEADER_RE = re.compile(r"^(?P<lead>\s*)Name\s+Type\s+Value\s+Description\s*$")
_FLAT_ROW_RE = re.compile(
    r"^(?P<name>[A-Za-z_][\w.-]*)\s+(?P<type>(?:array of )?" + _TYPE_WORDS + r")(?:\s+(?P<rest>.*?))?\s*$")


@register(r"^esxcli system module parameters list\b", "esxcli system module parameters list")
def parse_module_parameters_list(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli system module parameters list -m DRV`` (table ``Name  Type  Value  Description``).

    Declared parameters → ``parameters`` (name → description, or type if none); rows with a non-empty
    ``Value`` → ``options`` (``{}`` only when a complete, unfiltered table shows none set). Column
    offsets come from the dashed rule or the header; rows that do not fit them (whitespace-flattened copies such as
    ``esxi_g_esxcli_system_module_parameters_list_bnx2x_PARTIAL_flattened_pasek.txt``) are read as
    ``NAME TYPE DESCRIPTION…``: there Value cannot be told from Description, so no option is recorded
    and a note says so. ``| grep`` output without the rule
    (``…_ixgbe_grep_esxi60_elatov.txt``) and truncated rows are tolerated (truncation noted). Several
    tables in one text (repeated greps) are all read. Never raises.
    """
    result = ParseResult(family="esxcli system module parameters list")
    module = _module_name(cmd)
    if not module:
        result.notes.append("esxcli system module parameters list: no -m/--module on the command line")
        return result
    lines = text.splitlines()
    params: dict[str, str] = {}
    options: dict[str, str] = {}
    used: list[str] = []
    values_known = True
    header_seen = False
    i = 0
    while i < len(lines):
        hm = _PL_HEADER_RE.match(lines[i])
        if not hm:
            i += 1
            continue
        header_seen = True
        header = lines[i]
        rule = lines[i + 1] if i + 1 < len(lines) and is_rule(lines[i + 1]) else None
        cols: list[tuple[str, int, int]] | None = None
        if rule and len(re.findall(r"-+", rule)) == 4:
            cols = columns_from_header(header, rule)  # exact spans even when the header is flattened
        else:
            cols = columns_from_header(header)
            if [c[0] for c in cols] != ["Name", "Type", "Value", "Description"]:
                cols = None  # flattened header without a rule: rows are read word by word
        lead = hm.group("lead")
        tabbed = "\t" in header.strip()  # tabs between the labels: the rows' columns are tab-separated too
        i += 2 if rule else 1
        while i < len(lines):
            line = lines[i]
            if not line.strip() or is_command_echo(line) is not None or _PL_HEADER_RE.match(line):
                break
            if lead and not line.startswith(lead):
                break
            i += 1
            fields = re.split(r"[ ]*\t[\t ]*", line.strip()) if tabbed else []
            if len(fields) == 4:  # an editor put tabs between the columns: one field per column
                name, ptype, value, desc = fields
            else:
                name, ptype, value, desc = (cut(line, s, e) for _, s, e in cols) if cols else ("", "", "", "")
            if _NAME_RE.match(name) and _TYPE_RE.match(ptype):
                _parameter(result, module, params, options, name, ptype, value, desc)
                used.append(line.rstrip())
                continue
            fm = _FLAT_ROW_RE.match(line.strip())
            if fm:
                values_known = False
                _parameter(result, module, params, options, fm.group("name"), fm.group("type"), None,
                           (fm.group("rest") or "").strip())
                used.append(line.rstrip())
                continue
            result.notes.append(
                f"esxcli system module parameters list: row not understood (truncated?): {line.strip()!r}")
    if not header_seen:
        result.notes.append(
            "esxcli system module parameters list: no 'Name  Type  Value  Description' header found")
        return result
    if not params:
        result.notes.append(
            f"esxcli system module parameters list: table of {module} has no rows (truncated or filtered)")
        return result
    raw = "\n".join(used)
    filtered = "|" in cmd.raw
    if filtered:
        pipe = cmd.raw.partition("|")[2].strip()
        result.notes.append(
            f"esxcli system module parameters list: output of {module} is filtered ({pipe}): "
            "parameters/options are partial")
    result.module(module, "parameters", params, raw)
    if options or (values_known and not filtered):
        result.module(module, "options", options, raw)
    if not values_known:
        result.notes.append(
            f"esxcli system module parameters list: whitespace-flattened rows of {module}: Value cannot be told "
            "from Description, options not recorded")
    return result


def _parameter(result: ParseResult, module: str, params: dict[str, str], options: dict[str, str], name: str,
               ptype: str | None, value: str | None, desc: str | None) -> None:
    """One row of a ``parameters list`` (text or API): ``params[name]`` = its description (else its type),
    ``options[name]`` = its value when set, and its ``module_parameter`` record."""
    params[name] = desc or ptype or ""
    if value:
        options[name] = value
    result.records.append({"kind": "module_parameter", "module": module, "name": name, "type": ptype,
                           "value": value or None, "description": desc or None})


@register_rows(("system", "module", "parameters", "list"))
def module_parameters_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``system module parameters list --module X`` rows answered over the vSphere API (``Name``, ``Type``,
    ``Value``, ``Description``; ``args["module"]`` names the module) → module ``parameters`` and ``options``
    (``{}`` when none is set: the API answer is the complete, unfiltered table) and the records, as
    :func:`parse_module_parameters_list` reads them from the text. Never raises."""
    result = ParseResult(family=esxcli_api_family(("system", "module", "parameters", "list")))
    module = text_of((args or {}).get("module"))
    if not module:
        result.notes.append("esxcli system module parameters list (API): module name unknown")
        return result
    params: dict[str, str] = {}
    options: dict[str, str] = {}
    lines = []
    for row in rows:
        n = norm_row(row)
        name = clean(text_of(n.get("name")))
        if not name:
            result.notes.append(f"esxcli system module parameters list (API): row without a name: {row_line(row)!r}")
            continue
        _parameter(result, module, params, options, name, clean(text_of(n.get("type"))),
                   clean(text_of(n.get("value"))), clean(text_of(n.get("description"))))
        lines.append(row_line(row))
    if params:
        raw = "\n".join(lines)
        result.module(module, "parameters", params, raw)
        result.module(module, "options", options, raw)
    else:
        result.notes.append(f"esxcli system module parameters list (API): module {module} answered no parameter")
    return result
