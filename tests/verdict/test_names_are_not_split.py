"""A finding names its object structurally (host, object), so no host, switch or pNIC name changes a verdict.

Issue 20 §1: a host named ``rack1/esx01`` was READY (exit 0) where the same host named ``esx01`` was NOT READY,
because findings were matched to hosts by splitting their target text at "/". Every verdict path is run here with
"/", ":", spaces and non-ASCII in the names: the demo lab's real captures under other host names, and the overlay
fitness path with switch names that hold "/".
"""
from __future__ import annotations

from pathlib import Path

import pytest

from nicadvisor.model import Finding, Severity
from nicadvisor.model.readiness import overlay_fit_findings
from nicadvisor.model.verdict import NOT_RATED, NOT_READY, host_verdict, verdict_of
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import DEMO_LAB, AuditRequest, run_audit

from tests.rules.test_overlay_precision import _host

NAMES = ["rack1/esx01", "esx01:443", "esx 01", "esx-ü-01", "a/b/c", "/esx01", "esx01/"]


def _renamed_lab(tmp: Path, name_of) -> list[str]:
    """The demo lab's host folders, each capture headed by ``# host: <name_of(folder)>``."""
    tmp.mkdir()
    out = []
    for folder in sorted(p for p in DEMO_LAB.iterdir() if p.is_dir()):
        dest = tmp / folder.name
        dest.mkdir()
        for f in sorted(folder.iterdir()):
            if f.is_file():
                (dest / f.name).write_text(f"# host: {name_of(folder.name)}\n" + f.read_text(encoding="utf-8"),
                                           encoding="utf-8")
        out.append(str(dest))
    return out


@pytest.mark.parametrize("weird", NAMES)
def test_every_demo_host_keeps_its_verdict_under_any_name(tmp_path, weird):
    plain = run_audit(AuditRequest(capture_paths=tuple(_renamed_lab(tmp_path / "plain", lambda n: n))))
    odd = run_audit(AuditRequest(capture_paths=tuple(_renamed_lab(tmp_path / "odd", lambda n: f"{weird}{n}"))))
    v_plain, v_odd = verdict_of(plain), verdict_of(odd)
    assert len(v_plain.hosts) == len(v_odd.hosts) == 10
    got = {h.host.removeprefix(weird): (h.status, h.reason.replace(weird, "")) for h in v_odd.hosts}
    assert got == {h.host: (h.status, h.reason) for h in v_plain.hosts}
    assert v_odd.status == v_plain.status
    assert [(f.rule_id, f.obj, f.severity) for f in odd.findings] == \
        [(f.rule_id, f.obj, f.severity) for f in plain.findings]


@pytest.mark.parametrize("weird", NAMES)
def test_no_fit_candidate_is_not_ready_whatever_the_host_and_switch_names(weird):
    h = _host(tep_switch=None, mtus={"vmnic0": 1500, "vmnic1": 1500}, on={"vmnic0": "vSwitch0", "vmnic1": "vSwitch0"})
    h.name = weird
    h.switches[0].name = f"{weird}/vSwitch0"
    findings = evaluate(load_rules(), [h])
    assert not any(f.severity is Severity.ERROR for f in findings)
    assert {f.obj for f in findings if f.rule_id == "switch-mtu-below-1600"} == {f"{weird}/vSwitch0"}
    assert host_verdict(h, findings).status == NOT_RATED  # judged without the unfit-overlay error: never READY
    (unfit,) = overlay_fit_findings([h], findings)  # the judgement's error: NOT READY comes from an error finding
    assert unfit.host == weird and unfit.severity is Severity.ERROR and "vmnic0" in unfit.message
    v = host_verdict(h, findings + [unfit])
    assert v.status == NOT_READY and v.reason == f"1 configuration change before the rollout (MTU 1500 → ≥ 1600 on {weird}/vSwitch0)"


def test_an_error_on_a_host_whose_name_holds_a_slash_names_its_object():
    h = _host(tep_switch="vds", mtus={"vmnic0": 1500}, on={"vmnic0": "vds"})
    h.name = "rack1/esx01"
    findings = evaluate(load_rules(), [h])
    v = host_verdict(h, findings)
    assert v.status == NOT_READY and v.reason.endswith("on vds)") and "esx01/vds" not in v.reason
    assert [c.target for c in v.changes] == ["vds"]  # the pNIC MTU and its switch MTU: one setting


def test_a_finding_stored_before_the_object_field_gets_it_from_its_target():
    f = Finding(rule_id="r", title="t", severity=Severity.ERROR, host="rack1/esx01", message="", recommendation="",
                target="rack1/esx01/vmnic0")
    assert f.obj == "vmnic0"
    assert Finding(rule_id="r", title="t", severity=Severity.ERROR, host="h", message="", recommendation="",
                   obj="sw/1").target == "h/sw/1"

