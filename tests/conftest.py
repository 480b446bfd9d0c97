"""Shared pytest fixtures."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# Keep the user's folders out of the tests: audit history, journals, caches and the known-hosts store
# (platformdirs follows the XDG variables) live in one scratch folder per test run.
_SCRATCH = Path(tempfile.mkdtemp(prefix="nicadvisor-tests-"))
for _var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
    os.environ[_var] = str(_SCRATCH / _var.lower())

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
#: CI runs everything.
SLOW_FOLDERS = {"gui", "e2e", "live", "faults", "packaging_install", "hostile", "nsx", "bench", "ssh", "collect",
                "store", "services"}


def pytest_collection_modifyitems(config, items):
    """Mark `slow` every test in :data:`SLOW_FOLDERS` and every test that needs root (its labs are namespaces)."""
    tests = Path(__file__).resolve().parent
    for item in items:
        try:
            top = Path(str(item.fspath)).resolve().relative_to(tests).parts[0]
        except ValueError:
            continue
        if top in SLOW_FOLDERS or item.get_closest_marker("root") is not None:
            item.add_marker(pytest.mark.slow)
