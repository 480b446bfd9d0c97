r"""The pre-pass every parser's input goes through: the framing that pasting adds, removed before any parser runs.

Outputs reach NIC Advisor copied from mail, tickets, wikis and Markdown: indented as a block, quoted with ``> ``,
with CRLF line ends and trailing spaces. :func:`unframe` removes exactly that framing — a CR before each line end,
trailing white space, ``>`` quote prefixes on every non-empty line or on a run of quoted lines (as many levels as
those lines have: ``> > >``, ``>>``), and the indentation common to every non-empty line — and keeps everything else (the relative
indentation of nested outputs, column positions within the block). Pure and linear in the size of the text.

Framing that changes every line is removed too (issue 16 §5):

* Markdown escapes: when every backslash of the text escapes a character Markdown writers escape (``\[``, ``\]``,
  ``\-``, ``\_``, ``\*``, ``\#``, ``\>`` …; never ``\"``, ``\\`` or ``\n``, so JSON is left alone), the
  backslashes are dropped (capture ``esxi_vobd_log_vmnic6_linkstate_down_up_markdown_escaped_blockquote_blog.txt``);
* a blank line after every line (wiki and notebook exports): when no two non-empty lines touch and there are at
  least three, single blank lines are dropped and longer runs become one blank line (the original blank line);
* Markdown code: a fence line (````` ``` ````` or ````` ```shell `````) becomes a blank line; on a line that is not a
  prompt line, two inline-code spans stuck together (``eth0``driver: vif``: a command and its first output line
  joined by an HTML-to-Markdown conversion) are split into two lines, and the backticks of inline code (an even
  count on the line) or one stuck to the line's start or end (``supports-priv-flags: no```) are removed (capture
  ``linux_ec2_ethtool-i_eth0_vif_and_ena_prompt_in_backticks_first_line_joined_backtick_after_last_value_aws_doc.txt``);
* Markdown bold (``**`` in pairs on a line: ``Using M**SI-X interrupts … queue(s)**``, also around a prompt) and
  forum BBCode tags (``[FONT=Arial]``, ``[/FONT]``, ``[COLOR="Red"]``, ``[SIZE=2]``, ``[CODE]``, ``[QUOTE]``) are
  removed wherever they sit in a line (captures ``linux_dmesg_igb_link_up_markdown_bold_inside_lines_lede9894.txt``,
  ``linux_kernlog_grep_bnx2_link_down_up_bbcode_font_tags_inside_lines_ubuntuforums.txt``);
* an author's note after a value — `` # …``, an arrow (`` <-- …``, `` <- …``, `` <--- …``, `` << -- …``, `` <===``,
  `` ==> …``, ``‹--``, ``←``), ``(ed. note …)`` — is cut off the line, outside
  double-quoted strings and not on a prompt line (a shell comment on an echoed command is the registry's to drop),
  so that it never becomes part of a driver or firmware version (capture
  ``rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt``: ``driver: Neterion
  (ed. note s2io)``).

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

MAX_QUOTE_LEVELS = 8
"""Mail quoting deeper than this is not removed (bounded work: each level is one pass over the lines)."""
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
#: Characters a Markdown writer escapes with a backslash in running text (CommonMark "backslash escapes", without
#: the quote, slash and backslash that JSON escapes too).
_MD_ESCAPABLE = frozenset("[]()_*-#>!{}+.|`<~=")
_BBCODE_RE = re.compile(r"\[/?(?:FONT|COLOR|SIZE|CODE|QUOTE|HIGHLIGHT)(?:=[^\]\n]{0,60})?\]", re.I)
_FENCE_RE = re.compile(r"^[ \t]*(?:>[ \t]?)*`{3,}[\w+-]{0,20}[ \t]*$")
#: An author's note after a value: `` # …``, or an arrow pointing at it — `` <- …``, `` <-- …``, `` <--- …``,
#: `` << -- …`` (blog post "Notify Switches on N-VDS": ``shotgun on failure;  << -- This is where it is set``),
#: `` <== …``, `` <===`` (pgyogesh/blog: ``Speed: 10000Mb/s <===``), `` ==> …``, ``‹--``, ``←`` — up to the end of
#: the line (an arrow may end the line). Both start only where a run of blanks starts (the look-behind): a search that
#: tried every blank of a long run re-scanned the rest of the run from each (quadratic; a name and a megabyte of
#: spaces took minutes).
_NOTE_TAIL_RE = re.compile(r"(?<![ \t])[ \t]+(?:#[ \t]|(?:<{1,2}[ \t]?-{1,3}|<={2,3}|={2,3}>|‹-{1,3}|←)(?:[ \t]|$))")
_ED_NOTE_RE = re.compile(r"(?<![ \t])[ \t]*\((?:ed(?:itor)?\.?[ \t]*)?note\b[^()\n]{0,200}\)", re.I)
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


def _md_unescape(text: str) -> str:
    """``text`` with its Markdown backslash escapes removed when every backslash is one (else unchanged)."""
    if "\\" not in text:
        return text
    i, n = text.find("\\"), len(text)
    while i != -1:
        if i + 1 >= n or text[i + 1] not in _MD_ESCAPABLE:
            return text
        i = text.find("\\", i + 2)
    out, i = [], 0
    while True:
        j = text.find("\\", i)
        if j == -1:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        out.append(text[j + 1])
        i = j + 2


def _unmark(line: str) -> str:
    """``line`` without Markdown bold pairs and forum BBCode tags (see the module docstring)."""
    if "[" in line:
        line = _BBCODE_RE.sub("", line)
    if "**" in line and line.count("**") % 2 == 0:
        line = line.replace("**", "")
    return line


def _unbacktick(line: str) -> list[str]:
    """A line without Markdown's code framing (see the module docstring): one or two lines."""
    if "`" not in line:
        return [line]
    if _FENCE_RE.match(line):
        return [""]
    if is_command_echo(line) is not None:
        return [line]  # a prompt line: backticks there are the shell's (command substitution)
    parts: list[str] = []
    start = 0
    for i in range(1, len(line) - 2):
        if line[i:i + 2] == "``" and not line[i - 1].isspace() and line[i - 1] != "`" \
                and not line[i + 2].isspace() and line[i + 2] != "`":
            parts.append(line[start:i + 1])
            start = i + 1
    parts.append(line[start:])
    out = []
    for part in parts:
        if part.count("`") % 2 == 0:
            out.append(part.replace("`", "").rstrip())
        else:
            stripped = part.strip()
            if stripped.startswith("`"):
                part = part.replace("`", "", 1)
            elif stripped.endswith("`"):
                part = part[:part.rfind("`")]
            out.append(part.rstrip())
    return out


def _drop_note(line: str) -> str:
    """``line`` without an author's note after its value (see the module docstring). One pass: the parity of the
    double quotes before each candidate is counted as the scan goes (linear in the line)."""
    if "note" not in line.lower() and not _NOTE_TAIL_RE.search(line):
        return line
    if is_command_echo(line) is not None:
        return line  # an echoed command: its shell comment is the registry's to drop

    def outside(pos: int, state: list[int]) -> bool:
        state[1] += line.count('"', state[0], pos)
        state[0] = pos
        return state[1] % 2 == 0

    state = [0, 0]
    kept: list[str] = []
    last = 0
    for m in _ED_NOTE_RE.finditer(line):
        if outside(m.start(), state):
            kept.append(line[last:m.start()])
            last = m.end()
    line = "".join(kept) + line[last:]
    state = [0, 0]
    first = len(line) - len(line.lstrip())
    for m in _NOTE_TAIL_RE.finditer(line):
        if m.start() > first and outside(m.start(), state):
            return line[:m.start()].rstrip()
    return line


def _undouble(lines: list[str]) -> list[str]:
    """Lines without the blank line a wiki or notebook export put after every line (see the module docstring)."""
    filled = sum(1 for line in lines if line.strip())
    if filled < 3 or any(a.strip() and b.strip() for a, b in zip(lines, lines[1:])):
        return lines
    out: list[str] = []
    blanks = 0
    for line in lines:
        if not line.strip():
            blanks += 1
            continue
        if blanks >= 2 and out:
            out.append("")
        blanks = 0
        out.append(line)
    return out + [""] if blanks else out


def _unquote(lines: list[str]) -> list[str]:
    """Lines without mail quoting: a ``>`` is removed from every line of a run of two or more consecutive lines
    that all start with one (a bare ``>`` line belongs to the run), or from every non-empty line when all of them
    start with one; repeated while that removes something (``> > >``, ``>>``, and replies one level less quoted
    than what they quote), at most :data:`MAX_QUOTE_LEVELS` times (bounded work)."""
    for _level in range(MAX_QUOTE_LEVELS):
        quoted = [bool(_QUOTE_RE.match(line)) for line in lines]
        filled = [q for q, line in zip(quoted, lines) if line.strip()]
        strip = [False] * len(lines)
        if filled and all(filled):
            strip = [bool(line.strip()) for line in lines]
        else:
            i = 0
            while i < len(lines):
                j = i
                while j < len(lines) and quoted[j]:
                    j += 1
                if j - i >= 2:
                    strip[i:j] = [True] * (j - i)
                i = max(j, i + 1)
        if not any(strip):
            break
        lines = [(_QUOTE_RE.sub("", line, count=1).rstrip() if line.strip() else "") if cut else line
                 for line, cut in zip(lines, strip)]
    return lines


def unframe(text: str) -> str:
    """``text`` without the framing pasting adds (see the module docstring): CR line ends, trailing spaces, ``>``
    quotes on every line (all levels), the common indentation, Markdown escapes and code marks, a blank line after
    every line, authors' notes after values, bare prompts and nicinfo banners (blanked), elision lines (removed).
    Echoed command lines are kept. Idempotent; never raises."""
    text = _md_unescape(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [part for line in text.split("\n") for part in _unbacktick(_unmark(line).rstrip())]
    # elisions first, quoted or not, so that an unindented "..." in an indented block does not keep the indent
    lines = [line for line in lines if _QUOTE_RE.sub("", line, count=1).strip() not in _ELISIONS]
    lines = _unquote(lines)
    lines = _undouble(lines)
    indent = _common_indent(lines)
    if indent:
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip(" \t") for line in lines]
    out = []
    for line in lines:
        bare = line.strip()
        if bare in _BANNERS or (bare and is_command_echo(line) == ""):
            out.append("")
            continue
        out.append(_drop_note(line))
    return "\n".join(out)
