"""Fixtures of the export tests: ``audit`` is the hand-built sample of :mod:`audit_sample`."""
from __future__ import annotations

import pytest

from audit_sample import build_audit
from nicadvisor.model import Audit


@pytest.fixture
def audit() -> Audit:
    return build_audit()
