"""The checks that ran, with what passed as well as what failed: a board signs off what was checked, not only the
list of problems (issue 19 §1).

One row per capability-matrix column (counted over the physical pNICs: pass / warn / fail / not read / not judged,
:mod:`nicadvisor.model.capabilities`) and one per check on other objects — the MTU of the switches and TEP vmknics,
VDS IPFIX and the MTU path test — counted over the objects it applies to: passed when the fact it reads is known and
no error or warning finding of its rules is on the object. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from nicadvisor.model.capabilities import CAPABILITIES, FAIL, NOT_JUDGED, PASS, UNKNOWN, WARN, capability_matrix
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Host, Severity


@dataclass(frozen=True)
class CheckRow:
    """One check: ``what`` it checks, ``on`` which objects (``"physical pNICs"``), and how many of them passed,
    warned, failed, could not be judged for want of a fact (``not_read``) or were not judged by design
    (``not_judged``: a pNIC that carries no overlay)."""

    what: str
    on: str
    passed: int = 0
    warned: int = 0
    failed: int = 0
    not_read: int = 0
    not_judged: int = 0

    @property
    def checked(self) -> int:
        """The objects the check ran on (every count)."""
        return self.passed + self.warned + self.failed + self.not_read + self.not_judged


#: Checks on objects other than a pNIC's matrix cells: (what, on, objects of a host, whether an object is judged at
#: all, the fact read, its rule ids).
_OBJECT_CHECKS: tuple[tuple[str, str, Callable[[Host], list[Any]], Callable[[Host, Any], bool], Callable[[Any], Any],
                            tuple[str, ...]], ...] = (
    ("Switch MTU at least 1700 (a switch known to carry no overlay is not judged)", "switches",
     lambda h: list(h.switches), lambda h, s: h.switch_overlay_role(s) != "none", lambda s: s.mtu,
     ("switch-mtu-below-1600", "switch-mtu-below-1700")),
    ("TEP vmknic MTU at least 1700", "TEP vmknics", lambda h: [v for v in h.vmknics if v.is_tep],
     lambda h, v: True, lambda v: v.mtu, ("tep-mtu-below-1600", "tep-mtu-below-1700")),
    ("VDS IPFIX off", "switches", lambda h: list(h.switches), lambda h, s: True, lambda s: s.ipfix_enabled,
     ("vds-ipfix-enabled",)),
    ("MTU path test (vmkping -d / ping -M do) passed", "hosts", lambda h: [h], lambda h, _h: True,
     lambda h: h.mtu_path_ok, ("mtu-path-test-failed", "mtu-path-test-failed-linux")),
)


def checks_run(audit: Audit, by_host: dict[str, list[Finding]] | None = None,
               rows_of: Callable[[Host], list[Any]] | None = None) -> list[CheckRow]:
    """The rows of the "Checks that ran" table (module docstring), matrix columns first. ``by_host``: the findings
    per host (:func:`nicadvisor.report.fleet.findings_by_host`) and ``rows_of``: host → its capability-matrix rows,
    computed when not given."""
    if by_host is None:
        by_host = {}
        for f in audit.findings:
            by_host.setdefault(f.host, []).append(f)
    column = {c.key: {PASS: 0, WARN: 0, FAIL: 0, UNKNOWN: 0, NOT_JUDGED: 0} for c in CAPABILITIES}
    objects = [{"passed": 0, "warned": 0, "failed": 0, "not_read": 0, "not_judged": 0} for _ in _OBJECT_CHECKS]
    for host in audit.hosts:
        mine = by_host.get(host.name, [])
        for row in (rows_of(host) if rows_of is not None else capability_matrix(host, mine)):
            for c in CAPABILITIES:
                column[c.key][row.cells[c.key].status] += 1
        for counts, (_what, _on, objs, judged, fact, rules) in zip(objects, _OBJECT_CHECKS):
            for obj in objs(host):
                name = "" if obj is host else obj.name
                hits = [f.severity for f in mine if f.rule_id in rules and f.obj == name]
                if not judged(host, obj):
                    counts["not_judged"] += 1
                elif Severity.ERROR in hits:
                    counts["failed"] += 1
                elif Severity.WARNING in hits:
                    counts["warned"] += 1
                elif fact(obj) is None:
                    counts["not_read"] += 1
                else:
                    counts["passed"] += 1
    rows = [CheckRow(c.title, "physical pNICs", column[c.key][PASS], column[c.key][WARN], column[c.key][FAIL],
                     column[c.key][UNKNOWN], column[c.key][NOT_JUDGED]) for c in CAPABILITIES]
    rows += [CheckRow(what, on, **counts) for counts, (what, on, *_rest) in zip(objects, _OBJECT_CHECKS)]
    return rows
