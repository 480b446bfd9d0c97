"""Fixtures of the export tests: ``audit`` is the hand-built sample of :mod:`audit_sample`; ``demo`` the demo lab's
audit (real recorded outputs), once per test module."""
from __future__ import annotations

import pytest

from audit_sample import build_audit
from nicadvisor.model import Audit
from nicadvisor.services.audit import AuditRequest, run_audit


@pytest.fixture
def audit() -> Audit:
    return build_audit()


@pytest.fixture(scope="module")
def demo() -> Audit:
    return run_audit(AuditRequest(demo=True))
