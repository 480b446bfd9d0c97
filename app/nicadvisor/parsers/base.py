"""Shared shapes and helpers for the parsers.

A parser is a pure function ``parse(text, cmd) -> ParseResult``: ``text`` is the verbatim command output
(possibly holding several commands' outputs, prompts or prose around it), ``cmd`` the parsed
:class:`CommandLine`. Parsers never raise on malformed text: what they cannot read they skip and
mention in ``ParseResult.notes``. They do no I/O.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from nicadvisor.parsers.pci_address import normalise_pci


@dataclass(frozen=True)
class Fact:
    """A value read from output, with the raw line(s) it was read from."""

    value: Any
    line: str


@dataclass
class ParseResult:
    """What one parser read from one output.

    ``pnics`` maps a pNIC key to ``{field: Fact}`` where the key is the interface name
    (``vmnic2``, ``enp2s0``) or, when the output names only the PCI address, ``"pci:0000:5e:00.0"``.
    Field names are those of :class:`nicadvisor.model.PhysicalNic` (likewise ``vmknics`` →
    VmkernelNic, ``switches`` → Switch, ``modules`` → KernelModule, ``host`` → Host).
    """

    family: str
    pnics: dict[str, dict[str, Fact]] = field(default_factory=dict)
    vmknics: dict[str, dict[str, Fact]] = field(default_factory=dict)
    switches: dict[str, dict[str, Fact]] = field(default_factory=dict)
    modules: dict[str, dict[str, Fact]] = field(default_factory=dict)
    host: dict[str, Fact] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Free-form records for outputs that feed no model field yet (nsxdp-cli, NSX Edge) but were read.
    records: list[dict[str, Any]] = field(default_factory=list)
    # (table, key, field) given two different values in this output: left unknown (see _put)
    conflicted: set[tuple[int, str, str]] = field(default_factory=set)

    @property
    def understood(self) -> bool:
        """True when anything at all was read."""
        return bool(self.pnics or self.vmknics or self.switches or self.modules or self.host or self.records)

    def pnic(self, key: str, name: str, value: Any, line: str) -> None:
        """Record pNIC fact ``name`` = ``value`` for ``key``; ``None`` values are not recorded."""
        _put(self, self.pnics, key, name, value, line)

    def vmknic(self, key: str, name: str, value: Any, line: str) -> None:
        """Like :meth:`pnic`, for a vmknic fact."""
        _put(self, self.vmknics, key, name, value, line)

    def switch(self, key: str, name: str, value: Any, line: str) -> None:
        """Like :meth:`pnic`, for a switch fact."""
        _put(self, self.switches, key, name, value, line)

    def module(self, key: str, name: str, value: Any, line: str) -> None:
        """Like :meth:`pnic`, for a module fact."""
        _put(self, self.modules, key, name, value, line)

    def host_fact(self, name: str, value: Any, line: str) -> None:
        """Record host fact ``name`` (first value wins; None is not recorded)."""
        if value is not None and name not in self.host:
            self.host[name] = Fact(value, line)


def _put(result: "ParseResult", table: dict[str, dict[str, Fact]], key: str, name: str, value: Any,
         line: str) -> None:
    """Record ``table[key][name]`` in ``result``. Two different values for the same key in the same output (a
    before/after paste, two hosts' outputs in one file) cannot be told apart from the text: the fact is left
    unknown and a note in ``result.notes`` quotes both lines (the same value twice is kept)."""
    if value is None or not key:
        return
    facts = table.setdefault(key, {})
    slot = (id(table), key, name)
    if slot in result.conflicted:
        return
    if name not in facts:
        facts[name] = Fact(value, line.rstrip("\n"))
    elif facts[name].value != value:
        first = facts.pop(name)
        result.conflicted.add(slot)
        if len(result.notes) < 200:
            result.notes.append(f"{key} {name} is {first.value!r} ({first.line.strip()[:200]!r}) and {value!r} "
                                f"({line.strip()[:200]!r}) in the same output: left unknown")


@dataclass(frozen=True)
class CommandLine:
    """One command as recorded in a ``# command:`` header, split at the first pipe.

    ``raw`` is the text as recorded, ``argv`` the shell words before any ``|``, ``target`` the
    interface or module the command is about when it names one (``-n vmnic1``, ``-m bnx2x``,
    ``/net/pNics/vmnic3/``, ``ethtool -k enp2s0``, ``| grep vmnic5``), else None.
    """

    raw: str
    argv: tuple[str, ...]
    target: str | None = None

    @property
    def text(self) -> str:
        """The normalised command (argv joined by spaces) that parser patterns match."""
        return " ".join(self.argv)

    @classmethod
    def parse(cls, raw: str) -> "CommandLine":
        """Split ``raw`` (one command, no ``;``) into argv; never raises."""
        raw = raw.strip()
        head, _, tail = raw.partition("|")
        head = re.sub(r"\s+\(.*\)\s*$", "", head)  # trailing "(per …)" remarks in headers
        try:
            argv = tuple(shlex.split(head))
        except ValueError:
            argv = tuple(head.split())
        return cls(raw=raw, argv=argv, target=_target(argv, tail))


_NIC_RE = re.compile(r"^(vmnic\d+|vusb\d+|en[a-z0-9]+|eth\d+|em\d+|p\d+p\d+|ib\d+|hge\d+|fp-eth\d+)$")


_PLACEHOLDER_WORDS = {"if", "iface", "ifname", "dev", "device", "devname", "interface", "nic", "ethx", "vmnicx",
                      "vmnic#", "nic_name", "name", "port", "module", "driver"}


def is_placeholder(word: str | None) -> bool:
    """True for a placeholder that documentation writes where an interface name goes (``<dev>``, ``{nic}``,
    ``$IFACE``, ``IF``, ``vmnicX``): such a word never names a pNIC."""
    if not word:
        return True
    return bool(re.search(r"[<>{}$]", word)) or word.lower() in _PLACEHOLDER_WORDS


def _target(argv: tuple[str, ...], pipe_tail: str) -> str | None:
    found = _target_word(argv, pipe_tail)
    return None if is_placeholder(found) else found


def _target_word(argv: tuple[str, ...], pipe_tail: str) -> str | None:
    for i, word in enumerate(argv):
        if word in ("-n", "--nic-name", "-m", "--module", "-I", "--interface-name", "--uplink", "-u") \
                and i + 1 < len(argv):
            return argv[i + 1]
        m = re.search(r"/net/pNics/([^/<>]+)/", word)
        if m:
            return m.group(1)
    if argv and argv[0].endswith("ethtool"):
        words = [w for w in argv[1:] if not w.startswith("-")]
        if words:
            return words[0]
    if argv and argv[0] == "esxcfg-module" and len(argv) > 2:
        return argv[-1]
    m = re.search(r"grep\s+['\"]?(vmnic\d+)\b", pipe_tail)
    if m:
        return m.group(1)
    return None


# --- small value helpers -------------------------------------------------------------------------

def to_int(text: str | None) -> int | None:
    """``"1500"`` → 1500, ``"0x1f"`` → 31; anything else (``N/A``, ``-``, ``""``) → None."""
    if text is None:
        return None
    t = text.strip().rstrip(",")
    try:
        return int(t, 16) if t.lower().startswith("0x") else int(t)
    except ValueError:
        return None


def to_bool(text: str | None) -> bool | None:
    """``on/yes/true/1/enabled/up`` → True, ``off/no/false/0/disabled/down`` → False, else None."""
    if text is None:
        return None
    t = text.strip().lower().split()[0] if text.strip() else ""
    if t in ("on", "yes", "true", "1", "enabled", "up", "activated"):
        return True
    if t in ("off", "no", "false", "0", "disabled", "down", "deactivated"):
        return False
    return None


def speed_mbps(text: str | None) -> int | None:
    """``"25000Mbps"``, ``"25000"``, ``"25000Mb/s"``, ``"10Gbps"`` → Mbit/s; unknown → None."""
    if not text:
        return None
    m = re.match(r"^\s*(\d+)\s*(M|G)?(?:b(?:ps|/s)?)?\s*$", text.strip(), re.I)
    if not m:
        return None
    value = int(m.group(1))
    return value * 1000 if (m.group(2) or "").upper() == "G" else value


def hex4(text: str | int | None) -> str | None:
    """A PCI ID as 4 lower-case hex digits: ``"0x8086"``, ``"8086"``, ``"8086h"``, ``-32634`` → ``"8086"``.

    An int is masked to 16 bits (pyVmomi returns IDs as signed 16-bit ints, nic-data-sources.md §14
    item 1); empty or non-hex text (and bools) → None.
    """
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, int):
        return f"{text & 0xFFFF:04x}"
    t = text.strip().lower()
    if t.startswith("0x"):
        t = t[2:]
    t = t.removesuffix("h")
    if not re.fullmatch(r"[0-9a-f]{1,4}", t):
        return None
    return t.rjust(4, "0")


def natural_key(name: str) -> tuple:
    """Sort key that orders ``vmnic2`` before ``vmnic10`` (not lexical order, nic-data-sources.md §14)."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name))


def norm_pci(text: str | None) -> str | None:
    """A PCI address normalised to ``dddd:bb:dd.f`` (hex, lower case), or None for ``Pseudo``, ``N/A``, an
    ambiguous short form (``02:00``) or anything that is not an address. Thin wrapper of
    :func:`nicadvisor.parsers.pci_address.normalise_pci` (the one normaliser; its docstring lists the forms and
    sources): ``0000:19:00.0``, ``19:00.0``, ``0000:19:00:0`` (esxcli ``Bus Info``), ``0000:0c1:00.0`` (ESXi 5.x).
    """
    if not text:
        return None
    return normalise_pci(text).normalised


def outside_quotes(text: str, quotes: str = '"') -> Iterator[tuple[int, str]]:
    """``(index, character)`` of every character of ``text`` outside quoted strings: a string opens with one of
    ``quotes`` and closes with the same character, a backslash escapes the next one inside it; the quote characters
    themselves are left out. One linear scan (the JSON and ``vsish -p`` readers find brackets with it)."""
    quote, escaped = "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in quotes:
            quote = ch
        else:
            yield i, ch


# --- table helpers -------------------------------------------------------------------------------

_RULE_RE = re.compile(r"^\s*-{3,}(\s+-{2,})*\s*$")


def is_rule(line: str) -> bool:
    """True for dashed separator lines (``------  ----`` or one long ``-----`` rule)."""
    return bool(_RULE_RE.match(line))


def columns_from_header(header: str, rule: str | None = None) -> list[tuple[str, int, int]]:
    """Column (name, start, end) offsets of a fixed-width table.

    With a per-column dashed ``rule`` the offsets come from the dash runs (exact even when values are
    empty); otherwise from header words separated by 2+ spaces. ``end`` of the last column is -1.
    """
    spans: list[tuple[int, int]] = []
    if rule and len(re.findall(r"-+", rule)) > 1:
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
        names = [header[s:e if i + 1 < len(spans) else None].strip() for i, (s, e) in enumerate(spans)]
    else:
        parts = [(m.start(), m.group(0)) for m in re.finditer(r"\S+(?: \S+)*", header)]
        spans = [(s, s + len(n)) for s, n in parts]
        names = [n for _, n in parts]
    cols = []
    for i, (s, _e) in enumerate(spans):
        end = spans[i + 1][0] if i + 1 < len(spans) else -1
        cols.append((names[i], s, end))
    return cols


def cut(line: str, start: int, end: int) -> str:
    """The text of ``line`` between column offsets (``end`` -1 = to the end of the line)."""
    return (line[start:] if end == -1 else line[start:end]).strip()


def kv_lines(text: str, sep: str = ":") -> list[tuple[int, str, str, str]]:
    """All ``key: value`` lines as (indent, key, value, raw line); keys keep inner spaces."""
    out = []
    for raw in text.splitlines():
        if sep not in raw:
            continue
        key, _, value = raw.partition(sep)
        if not key.strip() or len(key.strip()) > 60:
            continue
        indent = len(key) - len(key.lstrip())
        out.append((indent, key.strip(), value.strip(), raw))
    return out


ParserFn = Callable[[str, CommandLine], ParseResult]
#: ``fn(rows, args)``: the rows of an esxcli answer over the vSphere API (:mod:`nicadvisor.parsers.rows`) and the
#: command's options → what they say.
RowsFn = Callable[[Iterable[Mapping[str, Any]], Mapping[str, Any]], ParseResult]
