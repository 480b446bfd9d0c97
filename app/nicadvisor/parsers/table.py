"""The one table reader for header-driven, whitespace-aligned or whitespace-flattened tables.

A table parser describes its columns once (:class:`ColumnSpec`: a key, the header spellings, the shape of a
value) and this module does the rest:

* :func:`find_layout` recognises a header line by its labels — names and positions. Labels are matched
  longest first (``Link Status`` before ``Link``), so the ESXi 5.x ``esxcli network nic list`` header (``Link``,
  no ``Admin Status``) and the 6.x–9.x one (``Admin Status  Link Status``) are read by the same spec; a column
  the spec does not know is kept as an unknown column (its values are ignored), a column the header lacks is
  simply unknown for every row.
* :func:`read_row` reads one row: cut at the header's column offsets when the row is aligned with the header
  (same indentation, no value crossing a column boundary, every value of the right shape), else split by
  **shapes**: a whitespace-flattened row is matched to the columns in order by recognising the values that have
  a fixed shape (uplink name, PCI address, MAC address, speed, duplex, MTU ...), a column may be absent (empty),
  and a free-text column (the description) takes the remaining words. The split is a dynamic programme over
  (column, word) that maximises the number of shaped values matched: linear in columns × words.
* :func:`read_tables` finds every header in a text and reads its rows up to a blank line or an echoed command;
  rows that fail are returned with their line number, the rest of the table is kept.

Headers are bounded (:data:`MAX_LINE` characters), rows split by shapes too (:data:`MAX_WORDS` words); no regular
expression here has nested quantifiers.
Pure functions; nothing raises on malformed text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

MAX_LINE = 4096
"""Longer lines are not read as headers or rules (bounded work on pasted garbage)."""
MAX_WORDS = 512
"""Rows of more words are not read (the shape split costs columns × words); a long *word* (a pasted blob in a
description) is fine: tokenising is linear and evidence is clipped downstream."""

Shape = Callable[[str], bool]

_WORD_RE = re.compile(r"\S+")
_RULE_RE = re.compile(r"^[ \t]*-{3,}[- \t]*$")
_ELISION = frozenset({"...", "…", "[...]", "(...)", "<...>", "[…]"})


@dataclass(frozen=True)
class ColumnSpec:
    """One column a parser knows.

    ``key``: the name the parser reads values by; ``labels``: header spellings (one or more words each,
    matched case-insensitively word by word); ``shape``: test of one value (one word), or None for free text
    (one or more words, original spacing kept); ``strong``: a fixed-shape value (a MAC, a PCI address) that
    anchors the split of flattened rows, versus a weak one (any word, e.g. a driver name).
    """

    key: str
    labels: tuple[str, ...]
    shape: Shape | None = None
    strong: bool = True


@dataclass(frozen=True)
class Column:
    """A column found in a header: ``key`` (None for a header word no spec knows), ``label`` as printed,
    ``start``/``end`` character offsets in the tab-expanded header (``end`` None for the last column)."""

    key: str | None
    label: str
    start: int
    end: int | None
    spec: ColumnSpec | None


@dataclass(frozen=True)
class Layout:
    """The columns of one table, in header order, with the header's indentation (characters, tabs expanded)
    and its 1-based line number (0 for a layout built from specs, without a header: shape splitting only)."""

    columns: tuple[Column, ...]
    indent: int = 0
    line_no: int = 0
    aligned: bool = True

    @property
    def keys(self) -> frozenset[str]:
        """The spec keys the header holds."""
        return frozenset(c.key for c in self.columns if c.key)


@dataclass(frozen=True)
class Row:
    """One row read: ``values`` maps spec keys to the text as printed (absent and unknown columns left out);
    ``line_no`` is 1-based within the text read; ``mode`` ``"aligned"`` or ``"shapes"``."""

    values: dict[str, str]
    line_no: int
    line: str
    mode: str


@dataclass
class Table:
    """One table of a text: its layout, the rows read, the ``(line_no, line)`` of rows that were not, and the
    ``(line_no, line, label)`` of rows read without one cell that is not a key (``skipped_cells``: see
    :func:`read_tables`)."""

    layout: Layout
    rows: list[Row] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    skipped_cells: list[tuple[int, str, str]] = field(default_factory=list)


# --- header ------------------------------------------------------------------------------------------------

def _words(line: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0)) for m in _WORD_RE.finditer(line)]


def find_layout(line: str, specs: Sequence[ColumnSpec], required: Iterable[str], line_no: int = 0,
                exclude: Iterable[str] = ()) -> Layout | None:
    """The layout of ``line`` when it is a header holding every ``required`` key, starting with a known label and
    holding none of the ``exclude`` labels (another command's header: ``PCI Device`` is not ``esxcfg-nics -l``'s
    ``PCI``), else None. Header words no label matches become unknown columns (adjacent unknown words separated
    by one space form one column). Tabs are expanded (8 columns) before offsets are taken."""
    if len(line) > MAX_LINE or not line.strip():
        return None
    lowered_line = line.lower()
    for key in required:  # cheap test first: each required column's label must be in the line (most lines are rows)
        labels_of = next((sp.labels for sp in specs if sp.key == key), ())
        if labels_of and not any(label.split()[0].lower() in lowered_line for label in labels_of):
            return None
    text = line.expandtabs()
    words = _words(text)
    lowered = " ".join(w[2].lower() for w in words)
    if any(f" {x.lower()} " in f" {lowered} " for x in exclude):
        return None
    labels = sorted(((tuple(w.lower() for w in label.split()), spec, label) for spec in specs for label in spec.labels),
                    key=lambda x: -len(x[0]))
    found: list[tuple[int, str, ColumnSpec | None, int]] = []  # (start, label, spec, end)
    i = 0
    while i < len(words):
        for lw, spec, _label in labels:
            n = len(lw)
            if tuple(w[2].lower() for w in words[i:i + n]) == lw:
                found.append((words[i][0], text[words[i][0]:words[i + n - 1][1]], spec, words[i + n - 1][1]))
                i += n
                break
        else:
            start, end, word = words[i]
            if found and found[-1][2] is None and start - found[-1][3] == 1:
                prev = found.pop()
                found.append((prev[0], text[prev[0]:end], None, end))
            else:
                found.append((start, word, None, end))
            i += 1
    if not found or found[0][2] is None:
        return None
    keys = {s.key for _st, _l, s, _e in found if s is not None}
    if not set(required) <= keys:
        return None
    columns = tuple(Column(s.key if s else None, label, start, found[k + 1][0] if k + 1 < len(found) else None, s)
                    for k, (start, label, s, _end) in enumerate(found))
    return Layout(columns, indent=len(text) - len(text.lstrip()), line_no=line_no)


def layout_from_specs(specs: Sequence[ColumnSpec]) -> Layout:
    """A layout in spec order without header positions (for header-less output, e.g. ``| grep vmnic5``): rows
    are split by shapes only."""
    return Layout(tuple(Column(s.key, s.labels[0], 0, None, s) for s in specs), aligned=False)


def apply_rule(layout: Layout, rule: str) -> Layout:
    """``layout`` with column offsets taken from a per-column dashed ``rule`` under the header (exact even when
    labels are right-aligned); unchanged when the rule's dash runs do not pair one-to-one with the columns."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"-+", rule.expandtabs()[:MAX_LINE])]
    if len(runs) != len(layout.columns):
        return layout
    cols = tuple(Column(c.key, c.label, runs[k][0], runs[k + 1][0] if k + 1 < len(runs) else None, c.spec)
                 for k, c in enumerate(layout.columns))
    return Layout(cols, indent=runs[0][0], line_no=layout.line_no)


def is_rule(line: str) -> bool:
    """True for a dashed rule line (``------  ----`` or one long ``-----``)."""
    return len(line) <= MAX_LINE and bool(_RULE_RE.match(line))


def is_elision(line: str) -> bool:
    """True for a line that is only an author's elision mark (``...``, ``…``, ``[...]``)."""
    return line.strip() in _ELISION


# --- rows --------------------------------------------------------------------------------------------------

def _fits(spec: ColumnSpec | None, value: str) -> bool:
    if spec is None or not value:
        return True
    if spec.shape is None:
        return True
    return " " not in value and "\t" not in value and spec.shape(value)


def _aligned(text: str, layout: Layout) -> dict[str, str] | None:
    """Values cut at the header offsets, or None when the row is not aligned with the header."""
    if len(text) - len(text.lstrip()) != layout.indent:
        return None
    values: dict[str, str] = {}
    for col in layout.columns:
        s = col.start
        if 0 < s < len(text) and not text[s - 1].isspace() and not text[s].isspace():
            return None  # a value crosses this column's left edge
        value = (text[s:] if col.end is None else text[s:col.end]).strip()
        if not _fits(col.spec, value):
            return None
        if col.key and value:
            values[col.key] = value
    return values


_NEG = -1


def split_by_shapes(line: str, columns: Sequence[Column]) -> dict[str, str] | None:
    """Split a (possibly whitespace-flattened) row into column values by the shapes of its words.

    Each column takes one word of its shape (a free-text column: one or more words) or is absent; every word
    must be taken. Among the splits, the one matching most shaped values wins (strong shapes count 3, weak 1;
    ties: earlier columns take words first). Returns ``{key: text}`` (free text keeps its spacing) or None when
    no split takes every word. O(columns × words).
    """
    words = _words(line)
    n, m = len(columns), len(words)
    if m == 0 or m > MAX_WORDS:
        return None
    # best[c][t]: best score matching columns c.. to words t..; inside[c][t]: free-text column c already holds
    # at least one word and continues at word t.
    best = [[_NEG] * (m + 1) for _ in range(n + 1)]
    inside = [[_NEG] * (m + 1) for _ in range(n + 1)]
    choice: dict[tuple[int, int, bool], str] = {}
    best[n][m] = 0
    for c in range(n - 1, -1, -1):
        spec = columns[c].spec
        for t in range(m, -1, -1):
            if spec is not None and spec.shape is None:  # free text
                # inside: stop here (go to next column) or take word t and stay inside
                opts_in = [(best[c + 1][t], "end")]
                if t < m and inside[c][t + 1] > _NEG:
                    opts_in.append((inside[c][t + 1], "more"))
                score, how = max(opts_in, key=lambda x: x[0])
                inside[c][t] = score
                choice[(c, t, True)] = how
                opts = [(best[c + 1][t], "skip")]
                if t < m and inside[c][t + 1] > _NEG:
                    opts.insert(0, (inside[c][t + 1], "text"))
            else:
                opts = []
                if t < m and best[c + 1][t + 1] > _NEG:
                    word = words[t][2]
                    if spec is None:
                        opts.append((best[c + 1][t + 1] + 1, "take"))
                    elif spec.shape and spec.shape(word):
                        opts.append((best[c + 1][t + 1] + (3 if spec.strong else 1), "take"))
                opts.append((best[c + 1][t], "skip"))
            valid = [o for o in opts if o[0] > _NEG]
            if valid:
                score, how = max(valid, key=lambda x: x[0])  # max keeps the first of equal scores
                best[c][t] = score
                choice[(c, t, False)] = how
    if best[0][0] <= _NEG:
        return None
    values: dict[str, str] = {}
    c, t, state_in = 0, 0, False
    text_start: int | None = None
    while c < n:
        how = choice.get((c, t, state_in))
        key = columns[c].key
        if how == "take":
            if key:
                values[key] = words[t][2]
            c, t = c + 1, t + 1
        elif how == "skip":
            c += 1
        elif how == "text":
            text_start, state_in, t = words[t][0], True, t + 1
        elif how == "more":
            t += 1
        elif how == "end":
            if key and text_start is not None:
                values[key] = line[text_start:words[t - 1][1]]
            c, state_in, text_start = c + 1, False, None
        else:
            return None
    return values


def read_row(line: str, layout: Layout, line_no: int = 0) -> Row | None:
    """Read ``line`` as a row of ``layout``: aligned cut first (when the layout has header offsets), else split by
    shapes. None when neither takes the row (empty, more than :data:`MAX_WORDS` words, no split)."""
    if not line.strip():
        return None
    text = line.expandtabs()
    if layout.aligned and layout.line_no:
        values = _aligned(text, layout)
        if values is not None:
            return Row(values, line_no, line, "aligned")
    values = split_by_shapes(text, layout.columns)
    if values is None:
        return None
    return Row(values, line_no, line, "shapes")


def _without_one_cell(line: str, layout: Layout, required: tuple[str, ...],
                      row_ok: Callable[[Mapping[str, str]], bool], line_no: int) -> tuple[Row, str] | None:
    """``line`` read with one column that is not a key taken as free text (its value then left out): a cell the
    reader cannot read (a TAB inside ``192.168.\t110.255`` split it in two words) does not cost the row. Among the
    columns that give a row ``row_ok`` accepts, the one that keeps the most other values wins (the first in header
    order on a tie); (row, the column's label), or None. O(columns² × words), for failed rows only."""
    text = line.expandtabs()
    best: tuple[int, Row, str] | None = None
    for i, col in enumerate(layout.columns):
        if col.key in required or col.spec is None or col.spec.shape is None:
            continue
        loose = ColumnSpec(col.spec.key, col.spec.labels, None)
        columns = layout.columns[:i] + (Column(col.key, col.label, col.start, col.end, loose),) + layout.columns[i + 1:]
        values = split_by_shapes(text, columns)
        if values is None:
            continue
        values.pop(col.key, None)
        if row_ok(values) and (best is None or len(values) > best[0]):
            best = (len(values), Row(values, line_no, line, "shapes"), col.label)
    return (best[1], best[2]) if best else None


def _default_stop(line: str) -> bool:
    from nicadvisor.parsers.framing import is_command_echo

    return not line.strip() or is_command_echo(line) is not None


def read_tables(text: str, specs: Sequence[ColumnSpec], required: Iterable[str], *,
                row_ok: Callable[[Mapping[str, str]], bool] = lambda v: True,
                stop: Callable[[str], bool] = _default_stop, exclude: Iterable[str] = ()) -> list[Table]:
    """Every table of ``text`` whose header holds the ``required`` keys: rows read with :func:`read_row` from
    the line after the header (``exclude``: see :func:`find_layout`; a dashed rule right under it gives exact offsets and is skipped) until a line for
    which ``stop`` is true (default: a blank line or an echoed command). Elision lines (``...``) are skipped.
    A row that cannot be split, or whose values ``row_ok`` rejects, goes to ``Table.failed`` with its 1-based
    line number; the other rows are kept. A row holding a TAB inside a cell that is not a key (``required``) is
    still taken without that cell's value, and listed in ``Table.skipped_cells`` (capture
    ``esxi55_esxcfg-vmknic-l_tab_inside_broadcast_cell_nsxv_vtep_vmk3_mtu1600_blog.txt``: ``192.168.\t110.255``)."""
    required, exclude = tuple(required), tuple(exclude)
    lines = text.splitlines()
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        layout = find_layout(lines[i], specs, required, line_no=i + 1, exclude=exclude)
        if layout is None:
            i += 1
            continue
        table = Table(layout)
        tables.append(table)
        i += 1
        if i < len(lines) and is_rule(lines[i]):
            table.layout = apply_rule(layout, lines[i])
            i += 1
        while i < len(lines):
            raw = lines[i]
            if is_rule(raw) or is_elision(raw):
                i += 1
                continue
            if stop(raw):
                break
            if not raw.strip():
                i += 1
                continue
            if find_layout(raw, specs, required, exclude=exclude) is not None:
                break  # the next table's header
            row = read_row(raw, table.layout, i + 1)
            if row is not None and row_ok(row.values):
                table.rows.append(row)
            elif "\t" in raw.strip() and (loose := _without_one_cell(raw, table.layout, required, row_ok, i + 1)):
                table.rows.append(loose[0])
                table.skipped_cells.append((i + 1, raw, loose[1]))
            else:
                table.failed.append((i + 1, raw))
            i += 1
    return tables


def failed_notes(family: str, tables: Iterable[Table]) -> list[str]:
    """One note per table row that was not read: ``"<family>: line N: row not understood: '<row>'"`` (the row clipped
    to 200 characters), and one per row read without a cell (``Table.skipped_cells``), for a parser to add to its
    result's notes."""
    tables = list(tables)
    return [f"{family}: line {line_no}: row not understood: {raw.strip()[:200]!r}"
            for table in tables for line_no, raw in table.failed] + \
        [f"{family}: line {line_no}: its {label} cell was not understood and is left out (the rest of the row was "
         f"read): {raw.strip()[:200]!r}" for table in tables for line_no, raw, label in table.skipped_cells]
