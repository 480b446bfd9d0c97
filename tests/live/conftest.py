"""Fixtures for the live vSphere tests: govmomi's vcsim started on 127.0.0.1 (free port) and stopped
(helpers in vcsimtools.py; the tests are skipped when vcsim is not installed)."""
from __future__ import annotations

import pytest

from vcsimtools import ToolMissing, Vcsim, start_vcsim


@pytest.fixture(scope="session")
def vcsim_factory(tmp_path_factory):
    """``start(*args, listen=...)`` → Vcsim; every instance is stopped at the end of the session."""
    started: list[Vcsim] = []
    base = tmp_path_factory.mktemp("vcsim")

    def start(*args: str, listen: str = "127.0.0.1:0") -> Vcsim:
        try:
            sim = start_vcsim(base, *args, listen=listen)
        except ToolMissing as exc:
            pytest.skip(str(exc))
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()


@pytest.fixture(scope="session")
def vcsim(vcsim_factory) -> Vcsim:
    """A shared vcsim: 1 datacenter, 1 cluster of 3 hosts + 1 standalone host, no VMs (read-only use)."""
    return vcsim_factory("-cluster", "1", "-host", "3", "-standalone-host", "1", "-vm", "0")
