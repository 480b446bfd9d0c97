"""The audit: hosts, findings, problems with inputs, benchmark results, and its one verdict.

Kept apart from :mod:`nicadvisor.model.entities` so that the model's modules import one way only: entities ← the
capability matrix ← the readiness checks ← the verdict ← the audit (an import-linter contract keeps it so).
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from nicadvisor.model.entities import Finding, Host, InputProblem, Severity
from nicadvisor.model.verdict import Verdict, verdict_of


@dataclass
class Audit:
    """The result of one audit: hosts, findings, problems with inputs, optional benchmark results.

    ``completion`` is ``complete`` once every input was read and the rules ran; ``running``, ``interrupted``
    (its process died), ``cancelled`` or ``failed`` for an audit reopened from the history that never got there.
    ``hosts_expected`` is how many hosts the inputs named when that was known before reading them (capture
    folders), else None. :attr:`verdict` is the one verdict every view shows.
    """

    hosts: list[Host] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    inputs_not_understood: list[InputProblem] = field(default_factory=list)
    benchmarks: list[Any] = field(default_factory=list)
    history_id: int | None = field(default=None, compare=False)  # row id in the audit history store
    completion: str = "complete"
    hosts_expected: int | None = None
    #: The NSX version the rollout targets (``"4.2"``), a scope field given with ``--target-nsx``; None when not given.
    target_nsx: str | None = None
    #: Evidence captured more than this many days before the audit is flagged in the reports (None: the default of
    #: :data:`nicadvisor.report.scope.MAX_EVIDENCE_AGE_DAYS`); ``--max-evidence-age``, not kept in the history.
    evidence_max_age_days: int | None = field(default=None, compare=False)
    created_at: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    #: what people checked by hand and what became of it (nicadvisor.model.attestations.AttestationOutcome), in the
    #: order given; empty for an audit reopened from the history (its attested facts and findings are kept there)
    attestations: list[Any] = field(default_factory=list)

    @property
    def rated(self) -> bool:
        """True when at least one physical (or not known to be pseudo) pNIC was read: only then can the
        audit call the hosts ready or not; an audit that understood nothing is "not rated"."""
        return any(p.is_physical is not False for h in self.hosts for p in h.pnics)

    @property
    def verdict(self) -> Verdict:
        """READY / NOT READY / NOT RATED with the reason (:func:`nicadvisor.model.verdict.verdict_of`)."""
        return verdict_of(self)

    @property
    def worst_severity(self) -> Severity | None:
        """The most severe finding's severity, or None without findings."""
        if not self.findings:
            return None
        return min((f.severity for f in self.findings), key=lambda s: s.rank)
