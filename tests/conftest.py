"""Shared pytest fixtures."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Keep the user's folders out of the tests: audit history, journals, caches and the known-hosts store
# (platformdirs follows the XDG variables) live in one scratch folder per test run.
_SCRATCH = Path(tempfile.mkdtemp(prefix="nicadvisor-tests-"))
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)  # one per pytest-xdist worker: none is left behind
for _var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
    os.environ[_var] = str(_SCRATCH / _var.lower())
# The rule grammar's parse tables (nicadvisor.rules_engine.grammar_cache): one file for this worker and every child
# it starts, whose XDG folders are often a test's own (each would build the tables again: 0.4 s of CPU a child)
os.environ["NICADVISOR_GRAMMAR_CACHE"] = str(_SCRATCH / "rule-engine-lalr.json")

from capturetools import SHARED


@pytest.fixture
def shared_dir() -> Path:
    return SHARED


@pytest.fixture
def sticky_folder():
    """A sticky, world-writable folder like ``/tmp``, made in /tmp so that a second user (``nobody``) can reach it
    (issue 29 §1-§2: links and folders planted by another user); removed afterwards."""
    import shutil

    folder = Path(tempfile.mkdtemp(dir="/tmp", prefix="nic-shared-"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def rows_host(tmp_path):
    """``rows_host(n)``: a host folder whose ``esxcfg-nics -l`` lists ``n`` pNICs, the real row of a shared capture
    renamed ``vmnicN`` (benchmarks/growth.py's ``rows`` shape)."""
    import sys

    bench = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, bench)
    try:
        import growth
    finally:
        sys.path.remove(bench)

    def make(n: int) -> Path:
        host = tmp_path / "esx-rows"
        host.mkdir()
        (host / "nics.txt").write_text(growth.rows_capture(n))
        return host
    return make


def _shipped_rule_files_read_once() -> None:
    """Every audit reads the shipped ``rules/*.yaml`` anew: PyYAML's pure-Python parser, three passes per file, about
    0.5 s of CPU time per audit, nearly all of an audit of one capture (cProfile of run_audit over 19 shared captures:
    load_rules 114.6 of 118.2 s). The suite runs thousands of audits in its worker processes, over rule files that
    never change while it runs, so within a test process each shipped file is read once per (inode, size, mtime) and
    its compiled rules (frozen :class:`~nicadvisor.rules_engine.loader.Rule` objects) reused; any other file (a user
    rule, a test's own or broken file) is read every time, as the application reads it, errors included.
    ``NICADVISOR_TESTS_READ_RULES_EVERY_TIME=1`` turns this off."""
    if os.environ.get("NICADVISOR_TESTS_READ_RULES_EVERY_TIME") == "1":
        return
    try:
        from nicadvisor.rules_engine import loader
        read, shipped = loader.load_rule_file, loader.default_rules_dir().resolve()
    except (ImportError, AttributeError):  # moved: every audit reads the files itself (slower, still right)
        return
    read_once: dict[tuple, tuple] = {}

    def load_rule_file(path):
        try:
            where = Path(path).resolve()
            st = where.stat()
        except OSError:
            return read(path)
        if where.parent != shipped:
            return read(path)
        key = (str(where), st.st_ino, st.st_size, st.st_mtime_ns)
        if key not in read_once:
            read_once[key] = tuple(read(path))
        return list(read_once[key])

    load_rule_file.__doc__ = read.__doc__
    loader.load_rule_file = load_rule_file


_shipped_rule_files_read_once()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (``CI`` set) a skipped test is a failure: the project's setup installs every tool the tests
    need (vcsim, govc, sshd, netperf, poppler ...), so a skip there means a missing install step."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped in CI, which must run every test: {reason}"


#: Folders whose tests start real parts (SSH servers, vcsim, network namespaces, Qt windows, child processes under
#: limits, PyInstaller builds): the `slow` ones. `pytest -m "not slow"` is the quick inner loop (README, Development);
#: CI runs everything. ``golden`` is in the quick loop again since the shipped rule files are read once per test
#: process (:func:`_shipped_rule_files_read_once`): its 229 snapshots took 464 s (-n 0, a loaded machine), now 5 s.
SLOW_FOLDERS = {"gui", "e2e", "live", "faults", "packaging_install", "hostile", "nsx", "bench", "ssh", "collect",
                "store", "services"}


#: Modules outside :data:`SLOW_FOLDERS` whose tests render whole reports (PDF), run the CLI's real parts, or search
#: with hypothesis: the slowest of the quick set in `--durations` (10-70 s each on a loaded 2-core machine), so they
#: leave the quick inner loop too. (The rules, verdict and catalogue modules that only audited many times are back
#: in it: 309 tests with golden, 15 s at -n 0, once the rule files were read once per process.)
SLOW_MODULES = {
    "report/test_report_fleet.py", "report/test_report_pdf.py", "report/test_report_readiness.py",
    "report/test_report_not_run.py", "report/test_report_bench_scope.py",
    "parsers/test_counter_lines.py", "parsers/test_pci_address.py", "test_cli.py", "test_commands.py",
    "test_cli_verify.py", "test_cli_repeated_flags.py",
}


#: Modules whose tests take the longest (each 20-90 s of a worker in ``--durations``: a PyInstaller build, the growth
#: and adversarial-parser children, a 15 MB capture, the namespace benchmarks). They run first, so that on the
#: workers of pytest-xdist no long test starts last and leaves the other workers idle at the end of the run. A
#: module moves whole (its module-scoped fixtures still serve consecutive tests); every other test keeps its place.
LONGEST_FIRST = ("packaging_install/test_frozen_build.py", "hostile/test_linear_growth.py",
                 "hostile/test_linear_parsers.py", "bench/test_bench_remote.py", "hostile/test_pci_dump_memory.py",
                 "hostile/test_redfish_hostile_bmc.py", "bench/test_esxi_endpoint_lab.py",
                 "hostile/test_attestation_files.py", "hostile/test_archive_many_members.py")


def pytest_collection_modifyitems(config, items):
    """Mark `slow` every test in :data:`SLOW_FOLDERS` and :data:`SLOW_MODULES` and every test that needs root (its
    labs are namespaces); put the modules of :data:`LONGEST_FIRST` first, in that order."""
    tests = Path(__file__).resolve().parent
    rank: dict[int, int] = {}
    for i, item in enumerate(items):
        try:
            where = Path(str(item.fspath)).resolve().relative_to(tests)
        except ValueError:
            continue
        if where.parts[0] in SLOW_FOLDERS or where.as_posix() in SLOW_MODULES \
                or item.get_closest_marker("root") is not None:
            item.add_marker(pytest.mark.slow)
        if where.as_posix() in LONGEST_FIRST:
            rank[i] = LONGEST_FIRST.index(where.as_posix())
    order = sorted(range(len(items)), key=lambda i: (rank.get(i, len(LONGEST_FIRST)), i))
    items[:] = [items[i] for i in order]


#: The least time (ms) any pytest-qt wait allows before it fails: a deadline for a condition, never a duration, so
#: a loaded machine makes a passing test slower, never red (pytest-qt's own default is 5 s). Every wait returns as
#: soon as its signal or condition comes; only a failing wait runs to this deadline (pytest-timeout still ends a test).
QT_WAIT_DEADLINE_MS = 120_000
_QT_WAITS = ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive")


@pytest.fixture
def qtbot(qtbot):
    """pytest-qt's ``qtbot`` whose waits (:data:`_QT_WAITS`) allow at least :data:`QT_WAIT_DEADLINE_MS`, whatever
    timeout a test gives (a short one was a bet on the machine's load)."""
    for name in _QT_WAITS:
        def generous(*args, _wait=getattr(qtbot, name), **kwargs):
            timeout = kwargs.get("timeout")
            if timeout is None or (isinstance(timeout, (int, float)) and timeout >= 0):
                kwargs["timeout"] = max(timeout or 0, QT_WAIT_DEADLINE_MS)
            return _wait(*args, **kwargs)
        setattr(qtbot, name, generous)
    return qtbot
