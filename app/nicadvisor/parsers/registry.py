"""Which parser reads which command.

Parser modules register themselves with :func:`register` in the table of readers
(:mod:`nicadvisor.parsers.registration`, below them: filled on first use by importing every module of this package
and of its platform sub-packages ``esxi/``, ``linux/``, ``api/``), so a new command family is one new module. The
registry sits above the readers and imports them, never the reverse. The ``# command:`` header of a
capture may hold several commands (``esxcfg-nics -l ; esxcli hardware pci list``), prompts
(``[root]``, ``nsx-edge-1>``), pipes and greps (``esxcfg-nics -l | grep vmnic5``); :func:`split_commands`
normalises those and :func:`parse_output` runs each command's parser over the whole text.
"""
from __future__ import annotations

import re

from nicadvisor import commands
from nicadvisor.parsers.base import CommandLine, ParseResult, ParserFn
from nicadvisor.parsers.command_text import _short_options, normalise
from nicadvisor.parsers.framing import is_command_echo, unframe
from nicadvisor.parsers.linux.pseudo import pseudo_reason, software_device
# the table of readers lives below them (they register there); its names stay importable from here
from nicadvisor.parsers.registration import _ENTRIES, _load, register, register_rows, rows_reader  # noqa: F401


def split_commands(header: str) -> list[CommandLine]:
    """The commands named by a ``# command:`` header, normalised, in order."""
    parts = re.split(r"\s+;\s+|\s+&&\s+|\s+\(and\s+", header)
    return [CommandLine.parse(normalise(p)) for p in parts if normalise(p)]


def parsers_for(cmd: CommandLine) -> list[tuple[str, ParserFn]]:
    """The (family, parser) pairs whose pattern matches ``cmd``, most specific first: the pattern
    that matches the longest part of the command wins (``lspci -vv`` before a bare ``lspci``)."""
    _load()
    tool, _, rest = cmd.text.partition(" ")
    text = f"{tool} {_short_options(tool, rest)}".strip()  # the spelling the patterns name
    hits = [(m.end(), e) for e in _ENTRIES if (m := e.pattern.match(text))]
    hits.sort(key=lambda h: -h[0])
    return [(e.family, e.fn) for _, e in hits]


def families() -> list[str]:
    """Every registered command family (for documentation and tests)."""
    _load()
    return sorted({e.family for e in _ENTRIES})


# A vm-support ``commands/`` file name: ``basename(argv0)`` + ``_`` + the arguments joined with ``-`` + ``.txt``
# (vm-support-bundles.md §1 item 6; ``esxcfg-vswitch_-l.txt``, ``vmware_-vl.txt``, ``localcli_network-nic-list.txt``).
_BUNDLE_FILE_RE = re.compile(r"(?:^|[\s/'\"])(?P<base>[A-Za-z][\w.-]{0,63}?)_(?P<args>[-()\w]{1,200})\.txt\b")
# Commands quoted in a ``# note:`` (``'cat /net/pNics/vmnic5/rxqueues/info'``, ```esxcfg-nics -l```, "…").
_QUOTED_RE = re.compile(r"'([^'\n]{2,300})'|`([^`\n]{2,300})`|\"([^\"\n]{2,300})\"")
#: Lines of the output searched for an echoed command (bounded work on long outputs).
MAX_ECHO_LINES = 2000
#: Different commands one ``# command:`` header may name (the shared captures name at most 3); each is read over the
#: whole text, once however often the header repeats it (2,000 times the same command re-read 355 KB 2,000 times).
MAX_HEADER_COMMANDS = 32


def _known(command: str) -> bool:
    """True when some parser reads at least one command of ``command``."""
    return any(parsers_for(c) for c in split_commands(command))


def bundle_file_command(text: str) -> str | None:
    """The command whose output a vm-support ``commands/`` file named in ``text`` holds (the file the command
    catalogue names, :func:`nicadvisor.commands.bundle_command`, else the bundle's naming rule reversed: ``commands/esxcfg-vswitch_-l.txt`` → ``esxcfg-vswitch -l``, ``localcli_network-nic-list.txt`` →
    ``esxcli network nic list``), when a parser reads it; else None. Never raises."""
    for m in _BUNDLE_FILE_RE.finditer(text):
        base, args = m.group("base"), m.group("args")
        named = commands.bundle_command(f"commands/{base}_{args}.txt")  # a file the command catalogue names
        if named is not None and _known(named):
            return named
        if base == "localcli" and "--" not in args:
            candidate = "esxcli " + " ".join(args.split("-"))
        else:
            candidate = f"{base} {args.replace('--', ' -')}"
        if _known(candidate):
            return candidate
    return None


def resolve_command(header: str, notes: tuple[str, ...] | list[str] = (), text: str = "") -> str:
    """The command an output is read as: ``header`` (the ``# command:`` line) when a parser reads one of its
    commands; else a command the header names as a vm-support file (``bundle file commands/esxcfg-vswitch_-l.txt``);
    else the first command quoted in a ``# note:`` line (``used 'cat /net/pNics/vmnic5/rxqueues/info'``) that a
    parser reads; else the first command echoed after a shell prompt inside ``text`` that a parser reads
    (``~ # ethtool -i vmnic7``, ``commands$ sed -n '/DVS/,$p' esxcfg-vswitch_-l.txt``; a session of several commands
    is cut by :func:`split_session` first); else ``header`` unchanged. Never raises."""
    if _known(header):
        return header
    found = bundle_file_command(header)
    if found:
        return found
    for note in notes:
        for m in _QUOTED_RE.finditer(note):
            quoted = next(g for g in m.groups() if g is not None)
            if _known(quoted):
                return normalise(quoted)
        found = bundle_file_command(note)
        if found:
            return found
    for line in unframe(text).splitlines()[:MAX_ECHO_LINES]:
        found = _echoed_command(line)
        if found:
            return found
    return header


def _echoed_command(line: str) -> str | None:
    """The command a parser reads that ``line`` echoes after a shell prompt (or names as a vm-support file), else
    None."""
    echoed = is_command_echo(line)
    if not echoed:
        return None
    return normalise(echoed) if _known(echoed) else bundle_file_command(echoed)


def split_session(text: str) -> list[tuple[str, str]]:
    """A pasted shell session cut at its prompt lines: ``(echoed command, its output with the prompt line)`` for each
    command a parser reads, in order (``hand32@node1:~$ ethtool -c enp6s0f1`` … ``hand32@node1:~$ ethtool -k
    enp6s0f1`` …). The output of a command no parser reads (``sysctl …``) and lines before the first prompt are left
    out. Only the first :data:`MAX_ECHO_LINES` lines are searched for prompts (bounded work). Never raises."""
    chunks: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for i, line in enumerate(unframe(text).splitlines()):
        echoed = is_command_echo(line) if i < MAX_ECHO_LINES else None
        if echoed is not None:
            command = _echoed_command(line) or ""
            current = [line] if command else None
            if current is not None:
                chunks.append((command, current))
            continue
        if current is not None:
            current.append(line)
    return [(command, "\n".join(lines) + "\n") for command, lines in chunks]


#: The host a shell prompt names (``[root@perf10 ~]#``, ``admin@esx01:~$``): the word after the ``@``.
_PROMPT_HOST_RE = re.compile(r"^[ \t]*\[?[\w.-]{1,64}@(?P<host>[\w.-]{1,253})[\s:\]]")


def _output_host(command: str, output: str) -> tuple[bool, str | None]:
    """Whether the chunk ``output`` of :func:`split_session` (its prompt line, then what ``command`` printed) shows
    an output (a prompt with nothing under it, or only its command again, tells no host's output), and the host its
    prompt names (None: a prompt without ``user@host``)."""
    prompt, _, rest = output.partition("\n")
    m = _PROMPT_HOST_RE.match(prompt)
    shown = not all(not ln.strip() or normalise(ln) == command for ln in rest.splitlines()[:MAX_ECHO_LINES])
    return shown, (m.group("host") if m else None)


def session_hosts(text: str) -> list[tuple[str, str]]:
    """``text`` cut into one text per host when the prompts of its pasted session name two or more hosts that each
    printed an output (``[root@perf10 ~]#`` … ``[root@dhcp47154 ~]#``, ``[root@esx1:~]`` … ``[root@esx2:~]``):
    ``(host, that host's lines)`` in the order the hosts first appear, each text holding every prompt line of that
    host and the lines after it up to the next host's prompt (outputs of commands no parser reads included, so that
    they are still noted), the lines before the first prompt going to the first host. A prompt that names no host,
    or a host with no output, continues the host before it. An empty list for a text of one host or none (it is read
    as it is). The text is unframed first (:func:`~nicadvisor.parsers.framing.unframe`: idempotent, as every parser
    reads it); only the first :data:`MAX_ECHO_LINES` lines are searched for prompts. Linear; never raises."""
    if text.count("@", 0, 1 << 20) < 2:  # two hosts' prompts need two "user@host": most captures end here, unread
        return []
    lines = unframe(text).splitlines()
    starts: list[tuple[int, str | None, bool]] = []  # (line index, prompt's host, an output under it)
    for i, line in enumerate(lines[:MAX_ECHO_LINES]):
        echoed = is_command_echo(line)
        if echoed:  # a bare prompt (""), or no prompt (None), starts no chunk
            end = next((j for j in range(i + 1, min(len(lines), MAX_ECHO_LINES))
                        if is_command_echo(lines[j]) is not None), len(lines))
            shown, host = _output_host(_echoed_command(line) or normalise(echoed), "\n".join(lines[i:end]))
            starts.append((i, host, shown))
    hosts = list(dict.fromkeys(host for _, host, shown in starts if host is not None and shown))
    if len(hosts) < 2:
        return []
    parts: dict[str, list[str]] = {host: [] for host in hosts}
    current, at = hosts[0], 0
    for i, host, shown in starts:
        parts[current] += lines[at:i]
        current, at = (host if host in parts else current), i
    parts[current] += lines[at:]
    return [(host, "\n".join(part) + "\n") for host, part in parts.items()]


def _one_host(session: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """The outputs of ``session`` whose prompt names the first host whose prompt has output under it (or no host),
    and a note for the outputs of every other host: two hosts' prompts in one paste (``[root@perf10 ~]#`` …
    ``[root@dhcp47154 ~]#``, capture ``rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_
    summit_pdf.txt``) are two hosts, never one merged host."""
    first: str | None = None
    kept: list[tuple[str, str]] = []
    others: dict[str, list[str]] = {}
    for command, output in session:
        shown, host = _output_host(command, output)
        if not shown:  # a prompt with no output under it (or only its command again) tells no host's output
            kept.append((command, output))
            continue
        first = first or host
        if host is None or host == first:
            kept.append((command, output))
        else:
            others.setdefault(host, []).append(command)
    notes = [f"the outputs after the prompts of host {host} ({', '.join(cmds)}) are another host's than {first}'s: "
             f"not read into this host (give each host its own capture)" for host, cmds in others.items()]
    return kept, notes


def _unknown_echoes(text: str) -> list[tuple[str, str]]:
    """``(echoed command, its output with the prompt line)`` of every command a prompt echoes that no parser reads
    and that printed something (:func:`split_session` leaves them out), in order; first :data:`MAX_ECHO_LINES` lines
    searched."""
    chunks: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for i, line in enumerate(unframe(text).splitlines()):
        echoed = is_command_echo(line) if i < MAX_ECHO_LINES else None
        if echoed is not None:
            current = [line] if echoed and not _echoed_command(line) else None
            if current is not None:
                chunks.append((echoed, current))
            continue
        if current is not None:
            current.append(line)
    return [(command, "\n".join(lines) + "\n") for command, lines in chunks if any(x.strip() for x in lines[1:])]


def _unknown_outputs(header_command: str, text: str) -> tuple[list[ParseResult], list[str]]:
    """What becomes of the outputs after echoed commands no parser reads, when a session is read command by command:
    one whose command is the header's tool (``# command: ethtool -i eth2`` above ``[root@perf10 ~]# ethtool --foo
    eth2``) is read as the header's command, since the header names it; any other gets a note, never dropped
    silently."""
    tools = {c.argv[0] for c in split_commands(header_command) if c.argv} if _known(header_command) else set()
    results: list[ParseResult] = []
    notes: list[str] = []
    for command, output in _unknown_echoes(text):
        words = normalise(command).split()
        if words and words[0] in tools:
            results += parse_output(header_command, output)
        else:
            lines = sum(1 for x in output.splitlines()[1:] if x.strip())
            notes.append(f"the output after the prompt that echoes {command[:200]!r} ({lines} lines) is not read: no "
                         "parser reads that command")
    return results, notes


def _before_first_echo(text: str) -> str:
    """The lines of ``text`` before its first prompt line that echoes a command a parser reads, ``""`` when they are
    only prompt lines (``esxcli … set`` before the ``list`` it changed) or blank."""
    lines = unframe(text).splitlines()
    for i, line in enumerate(lines[:MAX_ECHO_LINES]):
        if is_command_echo(line) and _echoed_command(line):
            head = lines[:i]
            break
    else:
        return ""
    if all(not ln.strip() or is_command_echo(ln) is not None for ln in head):
        return ""
    return "\n".join(head) + "\n"


def _other_targets(header_command: str, session: list[tuple[str, str]]) -> bool:
    """True when an echoed command of ``session`` is about an interface or module (``-n vmnic3``, ``-m ixgben``,
    ``/net/pNics/vmnic3/``) that no command of the header names: its output belongs to that one, not the header's;
    or when it is a command of the header's platform but of a family no command of the header has (``ethtool eth0``
    then ``ifconfig eth0`` under ``# command: ethtool eth0``): its output is that command's, which the header's parser
    would not read. (``dmesg`` echoed in the ESXi Shell under a ``vmkernel.log`` header is the same log: another
    platform's family, not split.)"""
    header = split_commands(header_command)
    named = {c.target for c in header}
    kinds = {family for c in header for family, _ in parsers_for(c)[:1]}
    platforms = {c.platform for family in kinds for c in commands.by_family(family)}
    for command, _ in session:
        cmd = CommandLine.parse(command)
        if cmd.target is not None and cmd.target not in named:
            return True
        family = next((f for f, _ in parsers_for(cmd)[:1]), None)
        if kinds and family and family not in kinds and platforms & {c.platform for c in commands.by_family(family)}:
            return True
    return False


def _mark_pseudo(result: ParseResult) -> None:
    """Every pNIC key of a Linux command family's ``result`` that names a software device (a bond, a VLAN
    sub-interface ``<parent>.<vlan-id>`` …: :func:`nicadvisor.parsers.linux.pseudo.software_device`) gets
    ``is_physical`` False, unless the output itself said what the device is: the one pseudo-device test for every
    Linux reader (issue 16 §5)."""
    if not any(c.platform == "linux" for c in commands.by_family(result.family)):
        return
    for key, facts in result.pnics.items():
        if "is_physical" not in facts and not key.startswith(("pci:", "pci-id:")) and software_device(key):
            result.pnic(key, "is_physical", False, pseudo_reason(key))


def parse_output(header_command: str, text: str, notes: tuple[str, ...] | list[str] = ()) -> list[ParseResult]:
    """Run the parser of every command in ``header_command`` over ``text``, after removing the framing pasting
    adds (:func:`nicadvisor.parsers.framing.unframe`). A pasted session of several commands is read command by
    command (:func:`split_session`), also under a header that names one: the text before the first prompt is the
    header command's output, each echoed command's output its own (so ``vsish … vmnic2 …`` never gets the offloads
    a later ``vsish … vmnic3 …`` printed). Else the command is taken from ``notes`` or from a prompt line inside
    ``text`` (:func:`resolve_command`).

    The most specific parser of each command is tried first, the next one only if it understood
    nothing. A command the header repeats is read once; past :data:`MAX_HEADER_COMMANDS` different commands the rest
    are not read (a note says so). Returns one ParseResult per command that has a parser (possibly not ``understood``); an empty
    list means no parser knows any of the commands. Never raises on malformed text: a parser that
    raises is a bug, reported as a note rather than lost.
    """
    session, other_hosts = _one_host(split_session(text))
    noted = [ParseResult(family="# command: header", notes=other_hosts)] if other_hosts else []
    if not _known(header_command):
        if len(session) > 1 or other_hosts:  # a pasted session: each output is read as its own command
            unknown, lost = _unknown_outputs(header_command, text)
            noted += [ParseResult(family="# command: header", notes=lost)] if lost else []
            return [r for command, output in session for r in parse_output(command, output)] + unknown + noted
    elif _other_targets(header_command, session) or other_hosts:
        # the header names a command, but the text holds echoed outputs about other interfaces or modules (a pasted
        # session, or a capture appended to another): each output is read as its own command, the text before the
        # first prompt as the header's, so that one interface's or module's output is never credited to another's
        head = _before_first_echo(text)
        first = parse_output(header_command, head) if head.strip() else []
        unknown, lost = _unknown_outputs(header_command, text)
        noted += [ParseResult(family="# command: header", notes=lost)] if lost else []
        return first + [r for command, output in session for r in parse_output(command, output)] + unknown + noted
    header_command = resolve_command(header_command, notes, text)
    text = unframe(text)  # indentation, "> " quotes, CRLF and trailing spaces added by pasting
    results: list[ParseResult] = []
    commands = list({" ".join(c.raw.split()): c for c in reversed(split_commands(header_command))}.values())[::-1]
    if len(commands) > MAX_HEADER_COMMANDS:  # each command reads the whole text: bounded work
        results.append(ParseResult(family="# command: header", notes=[
            f"the header names {len(commands)} different commands; only the first {MAX_HEADER_COMMANDS} are read"]))
        commands = commands[:MAX_HEADER_COMMANDS]
    for cmd in commands:
        first: ParseResult | None = None
        for family, fn in parsers_for(cmd):
            try:
                r = fn(text, cmd)
            except Exception as exc:  # noqa: BLE001 - a parser bug must not end the audit
                r = ParseResult(family=family)
                r.notes.append(f"parser {family} failed on {cmd.raw!r}: {type(exc).__name__}: {exc}")
            first = first or r
            if r.understood:
                _mark_pseudo(r)
                results.append(r)
                break
        else:
            if first is not None:
                results.append(first)
    return results
