"""Issue 24 §3 "ESXi commands checked against the esxcli tree": every esxcli command NIC Advisor prints — the command
catalogue (``commands.CATALOGUE``, which the collectors and the collector script run), ``rules/*.yaml``, the string
values of every module but the readers and the GUI (``rules_engine/commands.py``, ``vcg/knowledge.py``, …), and
the plan as rendered for the demo lab (every change, verify and roll-back step) — is checked against the esxcli
command tree of real hosts: its namespace and command exist, and each option is an option of that command.

The tree (``tests/data/esxcli_tree.json``, made by ``tests/data/esxcli_tree_extract.py``; each command names its
source) joins the two public machine-readable esxcli trees of real hosts found:

* govmomi ``simulator/esx/command_info.go`` (``govc host.esxcli.model -c -dump`` on an ESXi 8.x host): namespaces,
  commands and every option's short and long aliases — both are checked;
* pyvisdk's handlers (generated from an ESXi 5.x host's ``vim.EsxCLI`` types): option names are esxcli's SOAP
  parameter names (the long option without dashes, ``--interface-name`` → ``interfacename``), so long options are
  checked and short options (``-i``, ``-m``) are not checkable.

Namespaces neither dump holds (``network nic coalesce``/``tso``/``stats``/``pauseParams``, ``network diag``, the
internal ``intnet``/``networkinternal`` plugins) are listed as not checkable, never passed silently (the test prints
them). A command in a namespace the tree holds must be one of its commands or sub-namespaces, and each option it
gives must be one of the command's options: else the test fails.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from nicadvisor.commands import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
TREE = json.loads((ROOT / "tests" / "data" / "esxcli_tree.json").read_text(encoding="utf-8"))
COMMANDS: dict[str, dict[str, dict]] = TREE["commands"]
#: Where the plan's and the catalogue's ESXi commands are written.
APP = ROOT / "app" / "nicadvisor"
#: Where commands are written: the rules and every module's strings (docstrings left out), except the readers
#: (parsers/: the commands they read, not print), the GUI's wording and the titles of cited documents.
SOURCES = [*sorted((ROOT / "rules").glob("*.yaml")),
           *sorted(p for p in APP.rglob("*.py") if not p.relative_to(APP).parts[0] in ("parsers", "gui")
                   and p.relative_to(APP).as_posix() != "model/references.py")]
_ESXCLI = re.compile(r"\besxcli((?: +(?:[a-zA-Z][a-zA-Z0-9]*|-{1,2}[a-zA-Z][\w-]*(?:=\S*)?|'[^'\n]*'|\"[^\"\n]*\"|"
                     r"[^\s|;()\"'`\\]+))+)")
_STOP = re.compile(r"^(?:and|or|then|if|to|on|with|for|the|a|of|it|in|is|are|only|when|was)$")


def _namespaces() -> set[str]:
    out = set()
    for ns in COMMANDS:
        parts = ns.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


NAMESPACES = _namespaces()


def esxcli_lines(text: str) -> list[str]:
    """Every ``esxcli …`` command written in ``text``, up to a pipe, a separator, a quote or the line's end."""
    text = text.replace("\\n", "\n")
    return ["esxcli" + m.group(1) for line in text.splitlines() for m in _ESXCLI.finditer(line)]


#: Options the plan prints that the ESXi 5.x host of a pyvisdk entry predates, so its tree can neither confirm nor
#: refute them: not checkable, printed by the test, never counted as checked. ``--append`` (``-a``): the plan's
#: module-parameter change when the current string was not read (issue 24 §3 names it); the only public use found
#: is its short form on an ESXi 7+ icen host (``esxcli system module parameters set -a -m icen -p …``, a shell
#: script in the code index, file id 9934805387, no repository path); no public esxcli dump of ESXi 6.5+ with this
#: namespace was found.
LATER_OPTIONS = {("system.module.parameters", "set"): {"--append", "-a"}}


def _option_known(option: str, spec: dict, where: tuple[str, str] = ("", "")) -> bool | None:
    """Whether ``option`` (``-n``, ``--nic-name``) is an option of the command ``spec``; None when the source cannot
    tell (a short option of a pyvisdk entry, which holds no aliases; an option of :data:`LATER_OPTIONS`)."""
    if spec["source"] == "govmomi":
        return any(option in o["aliases"] for o in spec["options"])
    if not option.startswith("--") or option in LATER_OPTIONS.get(where, ()):
        return None
    return option[2:].replace("-", "").lower() in {o["name"] for o in spec["options"]}


def check(command: str) -> tuple[str, str]:
    """``(status, why)`` of one esxcli command against the tree: ``ok``, ``wrong`` (namespace known, command or an
    option not), ``not-checkable`` (a namespace neither host's dump holds)."""
    tokens = re.sub(r"'[^']*'|\"[^\"]*\"", "V", command).split()[1:]  # a quoted value is one token
    words: list[str] = []
    for t in tokens:
        if t.startswith("-") or not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9]*", t) or _STOP.match(t):
            break
        words.append(t)
    options = [t.split("=", 1)[0] for t in tokens[len(words):] if re.match(r"-{1,2}[a-zA-Z]", t)]
    if not words:
        return "not-checkable", "no namespace"
    for i in range(len(words) - 1, 0, -1):
        ns, cmd = ".".join(words[:i]), words[i]
        if ns in COMMANDS and cmd in COMMANDS[ns]:
            spec = COMMANDS[ns][cmd]
            known = {o: _option_known(o, spec, (ns, cmd)) for o in options}
            bad = [o for o, k in known.items() if k is False]
            if bad:
                return "wrong", (f"esxcli {ns.replace('.', ' ')} {cmd}: option(s) {bad} not among "
                                 f"{[a or o['name'] for o in spec['options'] for a in (o['aliases'] or [''])]}"
                                 f" ({spec['source']})")
            unchecked = [o for o, k in known.items() if k is None]
            return "ok", f"{ns}.{cmd}" + (f" (options {unchecked} not checkable: {spec['source']})" if unchecked
                                          else "")
    longest = max((i for i in range(1, len(words) + 1) if ".".join(words[:i]) in NAMESPACES), default=0)
    if longest == 0:
        return "not-checkable", f"namespace {words[0]!r} is in neither host's esxcli dump"
    ns = ".".join(words[:longest])
    if longest == len(words):
        return "wrong", f"esxcli {ns.replace('.', ' ')}: a namespace, no command given"
    return "not-checkable", f"{ns}.{words[longest]} is in neither host's esxcli dump"


def printed_commands() -> list[tuple[str, str]]:
    """(where, command) for every esxcli command the catalogue, the rules, the plan builders and the collector script
    write."""
    out = [(f"commands.CATALOGUE {c.text!r}", cmd) for c in CATALOGUE for cmd in esxcli_lines(c.text)]
    # every Linux-free catalogue command goes through the same check as what the plan prints
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        texts = _strings(text) if path.suffix == ".py" else [text]
        out.extend((str(path.relative_to(ROOT)), cmd) for t in texts for cmd in esxcli_lines(t))
    return out


def _strings(source: str) -> list[str]:
    """The string values a Python module writes (adjacent literals joined, an f-string's fields as ``X``), without
    its docstrings (prose about esxcli namespaces, not commands)."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            out.append(n.value)
        elif isinstance(n, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "X" for v in n.values))
    return out


def test_the_plan_rendered_for_the_demo_lab_names_real_commands():
    from nicadvisor.report.remediation import remediation_plan, steps
    from nicadvisor.services.audit import AuditRequest, run_audit

    plan = remediation_plan(run_audit(AuditRequest(demo=True)))
    printed = [cmd for item in plan for st in steps(item) for text in (st.change, st.verify, st.rollback)
               for cmd in esxcli_lines(text)]
    assert len(printed) >= 5  # the demo plan prints esxcli steps (MTU, vSwitch, driver)
    wrong = [f"{cmd}  —  {why}" for cmd in printed for status, why in [check(cmd)] if status == "wrong"]
    assert not wrong, "\n".join(wrong)


def test_the_tree_is_kept_with_its_sources():
    assert re.search(r"^github.com/vmware/govmomi @ [0-9a-f]{40} : simulator/esx/command_info.go", TREE["sources"]["govmomi"])
    assert re.search(r"^github.com/xuru/pyvisdk @ [0-9a-f]{40} : ", TREE["sources"]["pyvisdk"])
    assert {o["name"] for o in COMMANDS["network.ip.interface"]["set"]["options"]} == {"enabled", "interfacename", "mtu"}
    ring = COMMANDS["network.nic.ring.current"]["get"]
    assert ring["source"] == "govmomi" and ring["options"][0]["aliases"] == ["-n", "--nic-name"]


def test_the_checker_catches_a_wrong_command_and_a_wrong_option():
    assert check("esxcli network ip interface set --interface-name vmk1 --mtu 9000")[0] == "ok"
    assert check("esxcli network ip interface set --interface-name vmk1 --mtu-size 9000")[0] == "wrong"
    assert check("esxcli system module set --enabled=false --module=bnx2x")[0] == "ok"
    assert check("esxcli system module set --enable=false --module=bnx2x")[0] == "wrong"
    assert check("esxcli network nic ring current get -n vmnic0")[0] == "ok"
    assert check("esxcli network nic ring current get -i vmnic0")[0] == "wrong"  # govmomi knows short options
    assert check("esxcli software vib install -d /vmfs/volumes/ds/b.zip")[0] == "ok"
    assert check("esxcli network vswitch standard")[0] == "wrong"
    assert check("esxcli network nic coalesce get -n vmnic0")[0] == "not-checkable"


def test_every_printed_esxi_command_is_in_the_esxcli_tree(capsys):
    rows = [(where, cmd, *check(cmd)) for where, cmd in printed_commands()]
    wrong = [f"{where}: {cmd}  —  {why}" for where, cmd, status, why in rows if status == "wrong"]
    assert not wrong, "\n".join(wrong)
    ok = {why.split(" ")[0] for _, _, status, why in rows if status == "ok"}
    unchecked = sorted({why for _, _, status, why in rows if status == "not-checkable"})
    with capsys.disabled():
        print(f"\nesxcli tree: {len(ok)} command(s) checked: {', '.join(sorted(ok))}")
        print(f"not checkable ({len(unchecked)}):\n  " + "\n  ".join(unchecked))
        partly = sorted({why for _, _, status, why in rows if status == "ok" and "not checkable" in why})
        print(f"options not checkable ({len(partly)}):\n  " + "\n  ".join(partly))
    # the commands the MTU, driver and ring plans print are among those checked
    assert {"network.ip.interface.set", "network.vswitch.standard.set", "system.module.set",
            "system.module.parameters.set", "software.vib.install", "network.nic.get",
            "network.nic.ring.current.get"} <= ok


@pytest.mark.parametrize("command", ["esxcli network ip interface set -i vmk1 -m 9000",
                                     "esxcli network vswitch standard set -v vSwitch1 -m 9000"])
def test_the_mtu_plan_commands_name_real_commands(command):
    assert check(command)[0] == "ok"
