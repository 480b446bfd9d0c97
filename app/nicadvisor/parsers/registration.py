"""The table of readers: which parser reads which command, and which reader reads which esxcli command's rows over
the vSphere API.

Each reader module registers itself here with :func:`register` (and :func:`register_rows`); the table is filled on
first use by importing every module of this package and of its platform sub-packages (``esxi/``, ``linux/``,
``api/``), so a new command family is one new module. This module sits below the readers (they import it, it imports
them only by name at run time); :mod:`nicadvisor.parsers.registry` above them matches a capture's commands against
the table and runs the readers.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

from nicadvisor import commands
from nicadvisor.parsers.base import ParserFn, RowsFn


@dataclass(frozen=True)
class _Entry:
    pattern: re.Pattern[str]
    family: str
    fn: ParserFn


_ENTRIES: list[_Entry] = []
#: esxcli words → the reader of that command's rows over the vSphere API (:func:`register_rows`).
_ROW_READERS: dict[tuple[str, ...], RowsFn] = {}
_loaded = False


def register(pattern: str, family: str):
    """Decorator: ``fn`` parses commands whose normalised text matches regex ``pattern`` (re.match). ``family``
    names its command family in the command catalogue (:mod:`nicadvisor.commands`: the command's text, platform,
    transports and facts). Raises ValueError for a family the catalogue does not list (a programming error)."""
    if not commands.by_family(family):
        raise ValueError(f"parser family {family!r} has no entry in the command catalogue (nicadvisor.commands)")

    def deco(fn: ParserFn) -> ParserFn:
        _ENTRIES.append(_Entry(re.compile(pattern), family, fn))
        return fn

    return deco


def register_rows(words: tuple[str, ...]):
    """Decorator: ``fn(rows, args) -> ParseResult`` reads the rows of ``esxcli <words>`` answered over the vSphere
    API (``args``: the command's long options without dashes, ``{"nic-name": "vmnic0"}``). It lives in the same
    module as the parser of that command's text. Raises ValueError when ``words`` already has a reader or is not the
    ``esxcli_api`` of a command of the catalogue (:mod:`nicadvisor.commands`)."""
    if not any(c.esxcli_api == tuple(words) for c in commands.esxcli_api_commands()):
        raise ValueError(f"esxcli {' '.join(words)} is no esxcli_api command of the command catalogue")

    def deco(fn: RowsFn) -> RowsFn:
        if tuple(words) in _ROW_READERS:
            raise ValueError(f"esxcli {' '.join(words)} rows already have a reader")
        _ROW_READERS[tuple(words)] = fn
        return fn

    return deco


def rows_reader(words: tuple[str, ...] | list[str]) -> RowsFn | None:
    """The reader registered for the rows of ``esxcli <words>`` over the API, or None."""
    _load()
    return _ROW_READERS.get(tuple(words))


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    import nicadvisor.parsers as pkg

    for mod in pkgutil.walk_packages(pkg.__path__, prefix="nicadvisor.parsers."):
        if not mod.ispkg and mod.name.rsplit(".", 1)[-1] not in ("base", "registry", "assemble"):
            importlib.import_module(mod.name)
