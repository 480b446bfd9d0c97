"""A cache of the rule-expression grammar's parse tables, so that a process does not build them again.

``rule-engine`` (the rules' expression language) builds its parser when it is imported: PLY's LALR table generator,
about 0.4–0.5 s of CPU time in every process that evaluates rules — a third of a ``nic-advisor audit`` run on one
host. PLY itself is made to reuse tables (``yacc(write_tables=True)`` writes them as a module ``parsetab`` beside the
grammar, and every later ``yacc()`` reads that module and uses it when its grammar signature is the one of the
grammar being built). ``rule-engine`` turns the writing off, so as not to write into its install folder.

This module keeps those tables in the user's cache folder instead (``platformdirs.user_cache_dir("nic-advisor")``,
``rule-engine-<version>-lalr.json``, data only: JSON, never code) and hands them to PLY as the module it asks for
(``rule_engine.parser.parsetab``) before ``rule_engine`` is imported:

* PLY checks the table's version and grammar signature (the start symbol, precedence, tokens and every rule's
  text, ``ParserReflect.signature``) and builds the tables itself when either differs: a stale or foreign file costs
  the build it would have cost anyway. The signature proves the grammar, not the tables: a file is used only when
  its SHA-256 (written with it) matches, every shift, reduction and goto names a state or production that exists,
  every production's function is a ``p_…`` name, and it is a regular file of this user's that no one else can
  write (no link followed, none planted in a shared folder).
* A file that is missing, damaged, larger than :data:`MAX_BYTES`, of the wrong shape or not a regular file (a FIFO
  is never waited on) is ignored; the first process that builds the tables writes them
  (:func:`nicadvisor.atomic_file.write_private_text`: atomically, owner-only), and a cache folder that cannot be
  written is no error.

Measured by ``benchmarks/rule_grammar.py`` (0.95 s of CPU to import the rules engine and load the shipped rules
with the tables built, 0.53 s with them read from the cache, on the 2-core development machine).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import stat
import sys
import types
from importlib import metadata
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: The module name PLY imports for ``rule_engine``'s parser tables (its ``tabmodule`` default, ``parsetab``, in the
#: package of the parser class, ``rule_engine.parser``).
TABLE_MODULE = "rule_engine.parser.parsetab"
#: The largest cache file read (the tables of rule-engine 5.1 take about 60 KB).
MAX_BYTES = 4 * 1024 * 1024
_KEYS = ("tabversion", "method", "signature", "action", "goto", "productions")

#: The name of a grammar function of rule-engine's parser (PLY's ``p_`` prefix).
_GRAMMAR_FUNCTION = re.compile(r"p_[A-Za-z0-9_]{1,100}")

#: What happened in this process: ``offered`` (a cache file was read and handed to PLY), ``used`` (PLY took its
#: tables: their signature matched), ``written`` (the tables built here were written to the cache).
status = {"offered": False, "used": False, "written": False}


#: Environment variable naming the cache file instead (a test run shares one file among the processes it starts,
#: whose XDG folders are each test's own).
CACHE_ENV = "NICADVISOR_GRAMMAR_CACHE"


def cache_path() -> Path | None:
    """``$NICADVISOR_GRAMMAR_CACHE``, else ``<user cache dir>/rule-engine-<version>-lalr.json``; None when the
    installed rule-engine's version is not known (then nothing is cached)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    try:
        version = metadata.version("rule-engine")
    except metadata.PackageNotFoundError:
        return None
    import platformdirs

    return Path(platformdirs.user_cache_dir("nic-advisor")) / f"rule-engine-{version}-lalr.json"


def _digest(data: dict[str, Any]) -> str:
    """SHA-256 of the tables in ``data`` (every key of :data:`_KEYS`, canonical JSON): a file damaged after it was
    written (a bit flipped, a truncated write of another tool) is never used."""
    tables = {k: data[k] for k in _KEYS}
    return hashlib.sha256(json.dumps(tables, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _table_module(data: dict[str, Any]) -> types.ModuleType:
    """The ``parsetab`` module PLY's ``LRTable.read_table`` reads, from the cached ``data``. Raises ValueError,
    TypeError or KeyError when ``data`` has not the shape :func:`_table_data` writes: its digest, and tables whose
    every shift, reduction and goto names a state or production that exists (PLY's signature check proves the
    grammar is the same, not that the tables are whole)."""
    if not isinstance(data, dict) or not all(k in data for k in _KEYS) or data.get("sha256") != _digest(data):
        raise ValueError("not the tables this module writes (keys or digest)")
    # an action is a shift (> 0), a reduction (< 0), accept (0) or None: an error entry a nonassoc precedence made
    action = {int(state): {str(t): None if a is None else int(a) for t, a in row.items()}
              for state, row in data["action"].items()}
    goto = {int(state): {str(t): int(s) for t, s in row.items()} for state, row in data["goto"].items()}
    productions = []
    for p in data["productions"]:
        text, name, length, func, file, line = p
        if func is not None and not (isinstance(func, str) and _GRAMMAR_FUNCTION.fullmatch(func)):
            raise ValueError(f"production {text!r}: {func!r} is not a grammar function's name")
        productions.append((str(text), str(name), int(length), None if func is None else str(func),
                            None if file is None else str(file), None if line is None else int(line)))
    states = set(action)
    for row in action.values():
        for a in row.values():
            if a is not None and ((a > 0 and a not in states) or (a < 0 and -a >= len(productions))):
                raise ValueError(f"action {a} names no state or production")
    if not set(goto) <= states or any(s not in states for row in goto.values() for s in row.values()):
        raise ValueError("a goto names no state")
    module = types.ModuleType(TABLE_MODULE)
    module._tabversion = str(data["tabversion"])  # type: ignore[attr-defined]
    module._lr_method = str(data["method"])  # type: ignore[attr-defined]
    module._lr_signature = str(data["signature"])  # type: ignore[attr-defined]
    module._lr_action = action  # type: ignore[attr-defined]
    module._lr_goto = goto  # type: ignore[attr-defined]
    module._lr_productions = productions  # type: ignore[attr-defined]
    return module


def offer(path: Path | None = None) -> bool:
    """Before ``rule_engine`` is imported: put the cached tables where PLY will look for them. Returns whether a
    table was offered (PLY still uses it only when its signature matches). Never raises."""
    if "rule_engine" in sys.modules or TABLE_MODULE in sys.modules:
        return False
    try:
        path = path or cache_path()
        if path is None:
            return False
        from nicadvisor.atomic_file import check_no_planted_link

        check_no_planted_link(path)  # no link another user put in a shared folder
        # a FIFO put there never blocks the start; a link as the file itself is not followed
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW)
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ValueError("not a regular file")
            if st.st_uid != os.geteuid() or st.st_mode & 0o022:
                raise ValueError("not a file of this user's alone (another owner, or writable by others)")
            raw = f.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES} bytes")
        sys.modules[TABLE_MODULE] = _table_module(json.loads(raw))
        status["offered"] = True
        return True
    except FileNotFoundError:
        return False
    except Exception as exc:  # noqa: BLE001 - a damaged cache only costs the build
        log.debug("rule grammar cache %s not used: %s", path, exc)
        return False


def _table_data() -> dict[str, Any]:
    """The tables of the parser ``rule_engine`` built (or read), with the grammar signature PLY checks."""
    from rule_engine._vendor.ply import yacc
    from rule_engine.engine import Rule

    grammar = Rule.parser
    lr = grammar._parser
    pdict = {k: getattr(grammar, k) for k in dir(grammar)}
    pdict.setdefault("__file__", sys.modules[type(grammar).__module__].__file__)
    pdict.setdefault("__package__", sys.modules[type(grammar).__module__].__package__)
    reflect = yacc.ParserReflect(pdict, log=yacc.NullLogger())
    reflect.get_all()
    return {
        "tabversion": yacc.__tabversion__, "method": "LALR", "signature": reflect.signature(),
        "action": lr.action, "goto": lr.goto,
        "productions": [(p.str, p.name, p.len, p.func, os.path.basename(p.file) if p.file else None, p.line)
                        for p in lr.productions],
    }


def _holds(path: Path, data: dict[str, Any]) -> bool:
    """Whether the file at ``path`` already holds the tables of ``data``, whole (its content's digest is theirs)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
        held = json.loads(raw) if len(raw) <= MAX_BYTES else {}
        return held.get("sha256") == data["sha256"] == _digest(held)
    except Exception:  # noqa: BLE001 - unreadable or damaged: written again
        return False


def keep(path: Path | None = None) -> bool:
    """After ``rule_engine`` was imported: write its tables to the cache when they were built here (not read from
    a matching cache file). Returns whether a file was written. Never raises."""
    served = sys.modules.get(TABLE_MODULE)
    try:
        from rule_engine.engine import Rule

        if served is not None and Rule.parser._parser.action is getattr(served, "_lr_action", None):
            status["used"] = True  # PLY took the cached tables
            return False
        path = path or cache_path()
        if path is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise ValueError("not a regular file: left as it is")
        data = json.loads(json.dumps(_table_data()))  # as a reader will see it: string keys, lists
        data["sha256"] = _digest(data)
        if served is None and _holds(path, data):
            return False  # rule_engine was imported before offer(): the file already holds these tables
        from nicadvisor.atomic_file import write_private_text

        write_private_text(path, json.dumps(data, separators=(",", ":")))  # atomically, owner-only
        status["written"] = True
        return True
    except Exception as exc:  # noqa: BLE001 - a cache that cannot be written only costs the next process the build
        log.debug("rule grammar cache %s not written: %s", path, exc)
        return False
    finally:
        if served is not None and sys.modules.get(TABLE_MODULE) is served:
            del sys.modules[TABLE_MODULE]  # only PLY's one read needed it
