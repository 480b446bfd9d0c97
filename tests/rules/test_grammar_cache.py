"""The rule grammar's parse tables are kept between processes (nicadvisor.rules_engine.grammar_cache): the first
process builds them and writes the cache, the next one reads it, and both parse every expression alike. A damaged,
foreign or stale cache file only costs the build; a cache that cannot be written is no error. Each case runs in a
fresh child process (the tables are built when ``rule_engine`` is imported, once per process)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: Expressions over every part of the grammar PLY's tables decide: precedence of ``and``/``or``/``not``,
#: comparisons, arithmetic, the ternary, regex matches, membership, attributes, subscripts, comments.
_PROBE = r"""
import json, sys
from nicadvisor.rules_engine import grammar_cache
import rule_engine

ctx = rule_engine.Context(default_value=None)
facts = {"mtu": 1500, "driver": "ixgben", "queues": [1, 2, 4], "speed": 25000, "geneve": None,
         "nic": {"name": "vmnic0"}}
exprs = ["mtu < 1600 and driver == 'ixgben' or not geneve", "not (mtu < 1600 and speed > 10000)",
         "mtu + 100 * 2 ** 2 - 1", "speed / 1000 % 7", "mtu >= 9000 ? 'jumbo' : 'standard'",
         "driver =~ 'ixg.*'", "driver !~~ 'mlx'", "4 in queues", "nic.name", "queues[1] + queues[-1]",
         "geneve == null or geneve", "mtu # a comment", "-mtu", "driver =~~ '^ix' and (mtu == 1500 or false)",
         "2 ** 3 ** 2", "1 - 2 - 3", "mtu < 1600 == true"]
out = {}
for e in exprs:
    try:
        out[e] = repr(rule_engine.Rule(e, context=ctx).evaluate(facts))
    except Exception as exc:
        out[e] = type(exc).__name__
print(json.dumps({"results": out, "status": grammar_cache.status}))
"""


def _child(cache, extra_env: dict | None = None) -> dict:
    env = {**os.environ, "NICADVISOR_GRAMMAR_CACHE": str(cache), **(extra_env or {})}
    run = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def built_then_read(tmp_path_factory):
    cache = tmp_path_factory.mktemp("grammar") / "tables.json"
    first = _child(cache)
    written = cache.read_bytes()
    second = _child(cache)
    return cache, written, first, second


def test_the_first_process_writes_the_tables_and_the_next_reads_them(built_then_read):
    cache, written, first, second = built_then_read
    assert first["status"] == {"offered": False, "used": False, "written": True}
    assert second["status"] == {"offered": True, "used": True, "written": False}
    assert cache.read_bytes() == written  # read, not written again
    data = json.loads(written)
    assert data["method"] == "LALR" and data["signature"] and data["action"] and data["productions"]


def test_expressions_parse_alike_with_built_and_with_cached_tables(built_then_read):
    _cache, _written, first, second = built_then_read
    assert first["results"] == second["results"]
    results = first["results"]
    assert results["mtu + 100 * 2 ** 2 - 1"] == "Decimal('1899')"  # precedence: ** before * before + and -
    assert results["1 - 2 - 3"] == "Decimal('-4')"  # left-associative
    assert results["mtu >= 9000 ? 'jumbo' : 'standard'"] == "'standard'"
    assert results["not (mtu < 1600 and speed > 10000)"] == "False"


def _resealed(data: dict) -> str:
    """``data`` with its digest made right again: only the check under test can refuse it."""
    from nicadvisor.rules_engine.grammar_cache import _digest

    return json.dumps({**data, "sha256": _digest(data)})


def _out_of_range_shift(data: dict) -> dict:
    row = next(iter(data["action"].values()))
    token = next(t for t, a in row.items() if a is not None and a > 0)
    row[token] = 10 ** 6  # a shift to a state that does not exist
    return data


@pytest.mark.parametrize("damage", ["garbage", "wrong shape", "a flipped byte", "stale signature",
                                    "a shift to no state", "not a grammar function", "too large"])
def test_a_damaged_or_stale_cache_costs_only_the_build_and_is_written_again(built_then_read, tmp_path, damage):
    _cache, written, first, _second = built_then_read
    cache = tmp_path / "tables.json"
    data = json.loads(written)
    if damage == "garbage":
        cache.write_bytes(b"\x00\xff{not json")
    elif damage == "wrong shape":
        cache.write_text(json.dumps({"action": [1, 2, 3]}))
    elif damage == "a flipped byte":  # still JSON, still the grammar's signature: the digest refuses it
        cache.write_text(json.dumps(data).replace('"p_expression_', '"p_expressioN_', 1))
    elif damage == "stale signature":  # another rule-engine's grammar: PLY refuses the tables itself
        cache.write_text(_resealed({**data, "signature": data["signature"] + "x"}))
    elif damage == "a shift to no state":  # PLY's signature check would let it through: parsing would raise KeyError
        cache.write_text(_resealed(_out_of_range_shift(data)))
    elif damage == "not a grammar function":
        data["productions"][1][3] = "__import__"
        cache.write_text(_resealed(data))
    else:
        with cache.open("wb") as f:
            f.truncate(5 * 1024 * 1024)
    cache.chmod(0o600)
    got = _child(cache)
    assert got["status"]["used"] is False and got["status"]["written"] is True
    assert got["results"] == first["results"]
    assert json.loads(cache.read_bytes()) == json.loads(written)


@pytest.mark.parametrize("owner", ["writable by the group", "writable by everyone", "another user's", "a link"])
def test_a_cache_file_others_could_write_or_a_link_is_not_used(built_then_read, tmp_path, owner):
    _cache, written, first, _second = built_then_read
    cache = tmp_path / "tables.json"
    target = tmp_path / "elsewhere.json"
    if owner == "a link":
        target.write_bytes(written)
        target.chmod(0o600)
        cache.symlink_to(target)
    else:
        cache.write_bytes(written)
        cache.chmod({"writable by the group": 0o620, "writable by everyone": 0o602}.get(owner, 0o600))
        if owner == "another user's":
            if os.geteuid() != 0:
                pytest.fail("this test runs as root (CI does): it gives the file to another user")
            os.chown(cache, 65534, 65534)
    got = _child(cache)
    assert got["status"]["offered"] is False and got["status"]["used"] is False
    assert got["results"] == first["results"]
    if owner == "a link":  # a link is neither read nor replaced
        assert cache.is_symlink() and got["status"]["written"] is False


def test_a_process_that_imported_rule_engine_first_leaves_a_good_cache_alone(built_then_read):
    cache, written, _first, _second = built_then_read
    before = cache.stat()
    env = {**os.environ, "NICADVISOR_GRAMMAR_CACHE": str(cache)}
    code = ("import json, rule_engine\nimport nicadvisor.rules_engine\n"
            "from nicadvisor.rules_engine import grammar_cache\nprint(json.dumps(grammar_cache.status))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout) == {"offered": False, "used": False, "written": False}
    after = cache.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns) and cache.read_bytes() == written


def test_a_fifo_in_the_cache_s_place_is_neither_waited_on_nor_replaced(built_then_read, tmp_path):
    _cache, _written, first, _second = built_then_read
    fifo = tmp_path / "tables.json"
    os.mkfifo(fifo)
    got = _child(fifo)  # a read of a FIFO with no writer would block: the child's 120 s timeout would fail the test
    assert got["status"] == {"offered": False, "used": False, "written": False}
    assert got["results"] == first["results"] and fifo.is_fifo()


def test_a_cache_that_cannot_be_written_is_no_error(built_then_read, tmp_path):
    _cache, _written, first, _second = built_then_read
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    got = _child(blocker / "tables.json")
    assert got["status"] == {"offered": False, "used": False, "written": False}
    assert got["results"] == first["results"]
