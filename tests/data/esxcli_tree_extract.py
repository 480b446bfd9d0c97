"""How tests/data/esxcli_tree.json was made (run by hand, not by the tests): the esxcli command tree of two real
ESXi hosts as public repositories hold it.

* govmomi: ``simulator/esx/command_info.go`` ("CommandInfo generated via `govc host.esxcli.model -c -dump`" on an
  ESXi 8.x host): namespaces, commands, each option's name and its aliases (short and long: ``-n``, ``--nic-name``).
* pyvisdk: ``pyvisdk/esxcli/handlers/ha_cli_handler_*.py`` (generated from an ESXi 5.x host's ``vim.EsxCLI`` types):
  namespaces, commands and option names as esxcli's SOAP parameters (the long option without its dashes); no aliases.

Usage: ``python3 esxcli_tree_extract.py GOVMOMI_GIT_DIR PYVISDK_GIT_DIR > esxcli_tree.json`` (bare clones).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys


def _git(git_dir: str, *args: str) -> str:
    return subprocess.check_output(["git", "--git-dir", git_dir, *args], text=True)


def govmomi(git_dir: str) -> tuple[str, dict]:
    commit = _git(git_dir, "rev-parse", "HEAD").strip()
    text = _git(git_dir, "show", "HEAD:simulator/esx/command_info.go")
    tree: dict = {}
    ns_re = re.compile(r'^\t\tCommandInfoItem: esx.CommandInfoItem\{Name: "([\w.]+)"', re.M)
    starts = [(m.start(), m.group(1)) for m in ns_re.finditer(text)] + [(len(text), "")]
    for (at, ns), (end, _) in zip(starts, starts[1:]):
        block = text[at:end]
        methods = re.split(r'\n\t\t\t\{\n\t\t\t\tCommandInfoItem: esx.CommandInfoItem\{Name: "(\w+)"', block)
        for name, body in zip(methods[1::2], methods[2::2]):
            options = []
            for p in re.finditer(r'CommandInfoItem: esx.CommandInfoItem\{Name: "(\w+)".*?\n\s*Aliases:\s*\[\]string\{([^}]*)\}',
                                 body):
                options.append({"name": p.group(1), "aliases": re.findall(r'"([^"]+)"', p.group(2))})
            tree.setdefault(ns, {})[name] = {"source": "govmomi", "options": options}
    return f"github.com/vmware/govmomi @ {commit} : simulator/esx/command_info.go", tree


def pyvisdk(git_dir: str) -> tuple[str, dict]:
    commit = _git(git_dir, "rev-parse", "HEAD").strip()
    call = re.compile(r"execute_soap\(self\._client, self\._host, self\.moid, 'vim\.EsxCLI\.([\w.]+)\.(\w+)',(.*?)\)",
                      re.S)
    tree: dict = {}
    for path in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "pyvisdk/esxcli/handlers").split():
        if not path.endswith(".py") or path.endswith("__init__.py"):
            continue
        for ns, cmd, args in call.findall(_git(git_dir, "show", f"HEAD:{path}")):
            options = [{"name": n, "aliases": []} for n in sorted(re.findall(r"(\w+)=\w+,", args))]
            tree.setdefault(ns, {})[cmd[0].lower() + cmd[1:]] = {"source": "pyvisdk", "options": options}
    return f"github.com/xuru/pyvisdk @ {commit} : pyvisdk/esxcli/handlers/*.py", tree


def main() -> None:
    g_src, g = govmomi(sys.argv[1])
    p_src, p = pyvisdk(sys.argv[2])
    merged = {ns: dict(cmds) for ns, cmds in p.items()}
    for ns, cmds in g.items():  # the ESXi 8.x host's entry wins over the 5.x one
        merged.setdefault(ns, {}).update(cmds)
    doc = {
        "about": "The esxcli command tree (namespace -> command -> options) of two real ESXi hosts, as public "
                 "repositories hold it; made by tests/data/esxcli_tree_extract.py. 'govmomi' entries (an ESXi 8.x "
                 "host) give each option's short and long aliases; 'pyvisdk' entries (an ESXi 5.x host) give option "
                 "names as esxcli's SOAP parameters (the long option without its dashes), no short aliases. "
                 "Namespaces neither host's dump holds (network nic coalesce/tso/stats/pauseParams, network diag, "
                 "the internal plugin namespaces) are not in it.",
        "sources": {"govmomi": g_src + " (CommandInfo generated via `govc host.esxcli.model -c -dump`, ESXi 8.x)",
                    "pyvisdk": p_src + " (generated from an ESXi 5.x host's vim.EsxCLI managed types)"},
        "commands": {ns: {c: merged[ns][c] for c in sorted(merged[ns])} for ns in sorted(merged)},
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
