"""Fixtures of the history-store tests (helpers in :mod:`storetools`)."""
from __future__ import annotations

import pytest

from nicadvisor.bench.results import BenchResult
from nicadvisor.model import Audit
from storetools import demo_audit, recorded_rr_result


@pytest.fixture
def audit() -> Audit:
    return demo_audit()


@pytest.fixture
def bench_result() -> BenchResult:
    return recorded_rr_result()
