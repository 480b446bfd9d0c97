"""The pre-pass every parser's input goes through: the framing that pasting adds, removed before any parser runs.

Outputs reach NIC Advisor copied from mail, tickets, wikis and Markdown: indented as a block, quoted with ``> ``,
with CRLF line ends and trailing spaces. :func:`unframe` removes exactly that framing — a CR before each line end,
trailing white space, a ``>`` quote prefix present on every non-empty line, and the indentation common to every
non-empty line — and keeps everything else (the relative indentation of nested outputs, column positions within
the block). Pure and linear in the size of the text.

It also removes what pasting a *session* adds around an output, keeping line numbers wherever it can:

* a bare shell prompt with no command (``~ # ``, ``[root@host:~]``, ``user@host:~$``) becomes a blank line (the
  end of an output, as a blank line already is for every table parser);
* the banner lines that vm-support's ``nicinfo.sh`` prints before its table (``Network Interface Cards
  Information.``, vm-support-bundles.md §1 item 4, fixture
  ``vm-support/bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt``) become blank lines;
* an author's elision mark alone on a line (``...``, ``…``, ``[...]``) is removed, so that the rows around it
  stay one table (line numbers after it shift up by one).

Prompt lines that echo a command (``[root@host:~] esxcli network nic list``, ``~ # esxcfg-nics -l``,
``[root@host ~]# ethtool -i eth0``) are kept: parsers use them as the boundary between outputs and some read the
echoed command (``ethtool`` keys a grep-filtered output by it). :func:`is_command_echo` recognises them: it is the
one prompt test of the parsers (the table readers stop a table there, the registry takes a ``# command:`` header's
command from it).
"""
from __future__ import annotations

import re

_QUOTE_RE = re.compile(r"^[ \t]*>[ \t]?")

MAX_PROMPT_LINE = 4096
"""Longer lines are never taken for a prompt (bounded work)."""

# Prompt shapes (each alternative is linear: no nested quantifiers over the same characters):
#   [root@esx01:~] …   [root@host ~]# …   [root] …   [Host-1] # …   (ESXi 5.x+ / RHEL-style bracketed prompts)
#   ~ # …                                                    (ESXi 4.x/5.0 busybox shell)
#   user@host:~$ …   user@host:/tmp# …   tech@wrkstn ~ $ …  (Linux shells)
#   commands$ …   esx01# …                                   (a bare word then $ or #)
#   nsx-edge-1> …                                            (NSX Edge CLI)
#   /> …   /net/pNics/> …                                    (the interactive vsish shell, whose prompt is its current
#                                                             node: nsx-t-performance-on-intel.txt §1.4.3 CLI 2)
_PROMPT_RE = re.compile(
    r"^[ \t]*(?:"
    r"\[[A-Za-z][^\]\n]{0,200}\](?:[ \t]?[#$])?"
    r"|~[ \t]?[#$]"
    r"|[\w.-]{1,64}@[\w.-]{1,253}(?::[^\s#$]{0,200}|[ \t]+[^\s#$]{1,200})?[ \t]?[#$]"
    r"|[\w.~/-]{1,200}[#$]"
    r"|[\w.-]{1,64}>"
    r"|/[\w./-]{0,200}>"
    r"|[#$]"
    r")(?:[ \t]+(?P<cmd>\S.*))?[ \t]*$"
)
_BANNERS = frozenset({"Network Interface Cards Information."})
_ELISIONS = frozenset({"...", "…", "[...]", "[…]", "(...)", "<...>"})


_COMMAND_WORDS = frozenset({
    "esxcli", "localcli", "vsish", "ethtool", "lspci", "vmkchdev", "nsxdp-cli", "vmkping", "vmware", "cat",
    "readlink", "sudo", "env", "ip", "devlink", "flint", "mlxconfig", "govc", "grep", "head", "tail", "sed", "awk",
    "for", "cd", "ls", "tar", "net-dvs", "net-stats", "dmesg", "lshw", "ifconfig", "vmkload_mod", "vm-support", "ssh",
})


def _looks_like_command(cmd: str) -> bool:
    """True when the first word of ``cmd`` is a command NIC Advisor's inputs come from (``esxcli``, ``esxcfg-*``,
    ``ethtool`` ...) or a common shell command: after a bare ``#``/``$`` only such a word makes a prompt line."""
    word = cmd.split(None, 1)[0].rsplit("/", 1)[-1]
    return word in _COMMAND_WORDS or word.startswith("esxcfg-")


def is_command_echo(line: str) -> str | None:
    """The command echoed after a shell prompt on ``line`` (``"esxcfg-nics -l"`` for ``~ # esxcfg-nics -l``), ``""``
    for a bare prompt (``[root@esx:~]``, ``~ #``), None when the line is not a prompt line.

    ``#`` or ``$`` then a command (a known command word: ``# queues supported:8`` is vsish output) is a root/user
    prompt (``# esxcfg-nics -l``, as pasted from the SmartX guide,
    capture ``unattributed_smtx_esxi_esxcfg-nics-l_connectx4lx_ocp_mcx4421a_i350.txt`` note); a line that is only
    ``#`` or ``$`` is a bare prompt; a ``word>`` prompt counts only with a command after it (an NSX Edge prompt:
    a bare ``word>`` may be output)."""
    if len(line) > MAX_PROMPT_LINE:
        return None
    m = _PROMPT_RE.match(line)
    if not m:
        return None
    cmd = m.group("cmd")
    head = line.lstrip()
    if cmd is not None and head[:1] in "#$" and not _looks_like_command(cmd):
        return None  # "# queues supported:8" (vsish), "# Manifest name: <foo>": output, not a prompt
    if cmd is None:
        bare = head.rstrip()
        if bare in ("#", "$"):
            return ""
        return None if bare.endswith(">") else ""
    return cmd.rstrip()


def _common_indent(lines: list[str]) -> str:
    """The longest whitespace prefix shared by every non-empty line (tabs and spaces compared as written)."""
    prefix: str | None = None
    for line in lines:
        if not line.strip():
            continue
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if prefix is None:
            prefix = indent
        else:
            i = 0
            while i < len(prefix) and i < len(indent) and prefix[i] == indent[i]:
                i += 1
            prefix = prefix[:i]
        if not prefix:
            return ""
    return prefix or ""


def unframe(text: str) -> str:
    """``text`` without the framing pasting adds (see the module docstring): CR line ends, trailing spaces, a
    ``>`` quote on every line, the common indentation, bare prompts and nicinfo banners (blanked), elision lines
    (removed). Echoed command lines are kept. Idempotent; never raises."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    # elisions first, quoted or not, so that an unindented "..." in an indented block does not keep the indent
    lines = [line for line in lines if _QUOTE_RE.sub("", line, count=1).strip() not in _ELISIONS]
    filled = [line for line in lines if line.strip()]
    if filled and all(_QUOTE_RE.match(line) for line in filled):
        lines = [_QUOTE_RE.sub("", line, count=1) if line.strip() else "" for line in lines]
    indent = _common_indent(lines)
    if indent:
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip(" \t") for line in lines]
    out = []
    for line in lines:
        bare = line.strip()
        if bare in _BANNERS or (bare and is_command_echo(line) == ""):
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)
