"""Which parser reads which command.

Parser modules register themselves with :func:`register`; the registry imports every module of this
package on first use, so a new command family is one new module. The ``# command:`` header of a
capture may hold several commands (``esxcfg-nics -l ; esxcli hardware pci list``), prompts
(``[root]``, ``nsx-edge-1>``), pipes and greps (``esxcfg-nics -l | grep vmnic5``); :func:`split_commands`
normalises those and :func:`parse_output` runs each command's parser over the whole text.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

from nicadvisor.parsers.base import CommandLine, ParseResult, ParserFn
from nicadvisor.parsers.framing import unframe


@dataclass(frozen=True)
class _Entry:
    pattern: re.Pattern[str]
    family: str
    fn: ParserFn


_ENTRIES: list[_Entry] = []
_loaded = False


def register(pattern: str, family: str):
    """Decorator: ``fn`` parses commands whose normalised text matches regex ``pattern`` (re.match)."""

    def deco(fn: ParserFn) -> ParserFn:
        _ENTRIES.append(_Entry(re.compile(pattern), family, fn))
        return fn

    return deco


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    import nicadvisor.parsers as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name not in ("base", "registry"):
            importlib.import_module(f"nicadvisor.parsers.{mod.name}")


_PROMPT_RE = re.compile(r"^(\[[^\]]*\]\s*|~\s*#\s*|[\w.-]+>\s*|#\s+|\$\s+)")
_ESXCLI_POWERCLI_RE = re.compile(r"^\$esxcli\.([\w.]+)\.Invoke\(\)")


_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
#: sudo options that take a value (``sudo -u root ethtool -k eth0``).
_SUDO_VALUE_OPTS = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"}


def _strip_wrappers(text: str) -> str:
    """``text`` without the ``sudo [options]``, ``env [-i] [VAR=value ...]`` and ``VAR=value`` words in front of
    the command (``LC_ALL=C sudo -E /sbin/ethtool -k eth0`` → ``/sbin/ethtool -k eth0``)."""
    words = text.split()
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("sudo", "env"):
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _SUDO_VALUE_OPTS and word == "sudo" else 1
            continue
        if _ASSIGNMENT_RE.fullmatch(word):
            i += 1
            continue
        break
    return " ".join(words[i:]) if i else text


def normalise(raw: str) -> str:
    """One command, without prompt, ``sudo``/``env``/``VAR=value`` prefixes, path prefix or wrapper:
    ``localcli`` → ``esxcli``,
    ``$esxcli.network.nic.list.Invoke()`` → ``esxcli network nic list``, ``vmkvsitools lspci`` → ``lspci``,
    ``/sbin/esxcfg-nics`` → ``esxcfg-nics``."""
    text = raw.strip()
    text = _PROMPT_RE.sub("", text, count=1).strip()
    text = _strip_wrappers(text)
    m = _ESXCLI_POWERCLI_RE.match(text)
    if m:
        return "esxcli " + " ".join(m.group(1).split("."))
    words = text.split(None, 1)
    if not words:
        return ""
    head = words[0].rsplit("/", 1)[-1]
    rest = words[1] if len(words) > 1 else ""
    if head == "localcli":
        rest = re.sub(r"^--plugin-dir\s+\S+\s*", "", rest)
        head = "esxcli"
    if head == "vmkvsitools":
        head, _, rest = rest.partition(" ")
    return f"{head} {rest}".strip()


def split_commands(header: str) -> list[CommandLine]:
    """The commands named by a ``# command:`` header, normalised, in order."""
    parts = re.split(r"\s+;\s+|\s+&&\s+|\s+\(and\s+", header)
    return [CommandLine.parse(normalise(p)) for p in parts if normalise(p)]


def parsers_for(cmd: CommandLine) -> list[tuple[str, ParserFn]]:
    """The (family, parser) pairs whose pattern matches ``cmd``, most specific first: the pattern
    that matches the longest part of the command wins (``lspci -vv`` before a bare ``lspci``)."""
    _load()
    hits = [(m.end(), e) for e in _ENTRIES if (m := e.pattern.match(cmd.text))]
    hits.sort(key=lambda h: -h[0])
    return [(e.family, e.fn) for _, e in hits]


def families() -> list[str]:
    """Every registered command family (for documentation and tests)."""
    _load()
    return sorted({e.family for e in _ENTRIES})


def parse_output(header_command: str, text: str) -> list[ParseResult]:
    """Run the parser of every command in ``header_command`` over ``text``, after removing the framing pasting
    adds (:func:`nicadvisor.parsers.framing.unframe`).

    The most specific parser of each command is tried first, the next one only if it understood
    nothing. Returns one ParseResult per command that has a parser (possibly not ``understood``); an empty
    list means no parser knows any of the commands. Never raises on malformed text: a parser that
    raises is a bug, reported as a note rather than lost.
    """
    text = unframe(text)  # indentation, "> " quotes, CRLF and trailing spaces added by pasting
    results: list[ParseResult] = []
    for cmd in split_commands(header_command):
        first: ParseResult | None = None
        for family, fn in parsers_for(cmd):
            try:
                r = fn(text, cmd)
            except Exception as exc:  # noqa: BLE001 - a parser bug must not end the audit
                r = ParseResult(family=family)
                r.notes.append(f"parser {family} failed on {cmd.raw!r}: {type(exc).__name__}: {exc}")
            first = first or r
            if r.understood:
                results.append(r)
                break
        else:
            if first is not None:
                results.append(first)
    return results
