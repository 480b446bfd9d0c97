"""The approved plan checked on a new audit (:mod:`nicadvisor.report.plan_check`, issue 25 §4), on the demo lab's real
captures: the same captures read again change nothing, so every plan target is "not done" with the new evidence
line; a fact changed in the model to the planned value is "done", to a third value "changed differently", and a fact
or host the new audit lacks is "not re-read". The record's JSON follows its schema, its PDF is one page."""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from pypdf import PdfReader

from nicadvisor.commands import advised
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import CommandNotRun
from nicadvisor.report.plan_check import (
    CHANGED, DONE, NOT_DONE, NOT_REREAD, RECORD_SCHEMA, audit_digest, check_plan,
)
from nicadvisor.report.remediation import remediation_plan
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit
from nicadvisor.services.verify import stored_inputs, write_record


@pytest.fixture(scope="module")
def again() -> Audit:
    """The demo lab audited a second time: the same captures."""
    return run_audit(AuditRequest(demo=True))


def _changed(audit: Audit, host: str, change) -> Audit:
    """A copy of ``audit`` with ``change(host)`` applied to one host's model and the rules evaluated again."""
    new = copy.deepcopy(audit)
    change(next(h for h in new.hosts if h.name == host))
    new.findings = evaluate_findings(new.hosts)
    return new


def test_the_same_captures_again_leave_every_plan_target_not_done(demo, again):
    result = check_plan(demo, again)
    plan = [f for item in remediation_plan(demo) for f in item.findings]
    assert len(result.checks) == len(plan) > 10
    assert {c.status for c in result.checks} == {NOT_DONE}
    assert result.exit_code == 1 and result.summary().startswith(f"0 of {len(plan)} plan targets done")
    # a fact's check quotes the line the new audit read it from: for the same captures, the approved finding's line
    mtu = [c for c in result.checks if c.fact == "mtu"]
    assert mtu and all(c.before == c.after and c.planned == "mtu 9000" for c in mtu)
    by_target = {(f.rule_id, f.target): f for f in plan}
    for c in mtu:
        assert c.evidence is not None and c.evidence.line == by_target[(c.rule_id, c.target)].evidence[0].line


def test_the_planned_value_is_done_a_third_value_changed_differently(demo, again):
    def vds(mtu):
        def change(h):
            h.switches[[s.name for s in h.switches].index("vDS-C-Transport")].mtu = mtu
        return change

    checks = {c.target: c for c in check_plan(demo, _changed(again, "esxi-sio4-nsxv", vds(9000))).checks}
    done = checks["esxi-sio4-nsxv/vDS-C-Transport"]
    assert (done.status, done.before, done.after) == (DONE, "mtu 1600", "mtu 9000")
    assert checks["esxi-sio4-nsxv/vmk2"].status == NOT_DONE  # its own MTU was not changed

    checks = {c.target: c for c in check_plan(demo, _changed(again, "esxi-sio4-nsxv", vds(1650))).checks}
    other = checks["esxi-sio4-nsxv/vDS-C-Transport"]
    assert other.status == CHANGED and "not the planned 9000" in other.detail
    assert "switch-mtu-below-1700 still holds" in other.detail

    checks = {c.target: c for c in check_plan(demo, _changed(again, "esxi-sio4-nsxv", vds(1700))).checks}
    assert checks["esxi-sio4-nsxv/vDS-C-Transport"].status == CHANGED  # no rule holds, but 1700 is not the plan


def test_what_the_new_audit_did_not_read_is_not_re_read(demo, again):
    target = next(f for f in demo.findings if f.rule_id == "pnic-mtu-below-1600")
    new = _changed(again, target.host, lambda h: (setattr(h.pnic(target.obj), "mtu", None)))
    check = next(c for c in check_plan(demo, new).checks if c.target == target.target and c.fact == "mtu")
    assert check.status == NOT_REREAD and "did not read mtu" in check.detail and check.after == ""
    read_by = advised(["mtu"], "esxi", "pnic")[0].replace("{nic}", target.obj)
    assert f"it is read by {read_by}" in check.detail  # the command that reads it, with the pNIC's name
    # when the collector recorded why that command could not run, that is the reason given
    new.hosts[[h.name for h in new.hosts].index(target.host)].not_run.append(
        CommandNotRun(read_by, "privilege", "exit status 1: permission denied"))
    check = next(c for c in check_plan(demo, new).checks if c.target == target.target and c.fact == "mtu")
    assert check.detail.endswith(f"{read_by} needs more privilege (on Linux: root) (exit status 1: permission denied)")

    gone = copy.deepcopy(again)
    gone.hosts = [h for h in gone.hosts if h.name != target.host]
    gone.findings = [f for f in gone.findings if f.host != target.host]
    result = check_plan(demo, gone)
    mine = [c for c in result.checks if c.host == target.host]
    assert mine and {c.status for c in mine} == {NOT_REREAD}
    assert all(f"{target.host} is not in the new audit" in c.detail for c in mine)
    assert result.exit_code == 1  # the other hosts are still not done
    only = copy.deepcopy(demo)
    only.findings = [f for f in only.findings if f.host == target.host]
    assert check_plan(only, gone).exit_code == 2  # nothing known undone, something not re-read


def test_an_empty_plan_is_all_done():
    empty = check_plan(Audit(), Audit())
    assert empty.exit_code == 0 and "no plan item" in empty.summary()


def test_digest_is_of_the_stored_audit_and_changes_with_a_fact(demo):
    same = copy.deepcopy(demo)
    assert audit_digest(same) == audit_digest(demo)
    same.hosts[0].pnics[0].mtu = 9000
    assert audit_digest(same) != audit_digest(demo)


def test_record_json_follows_its_schema_and_the_pdf_is_one_page(demo, again, tmp_path):
    demo = copy.deepcopy(demo)
    demo.history_id = 41
    result = check_plan(demo, again)
    json_path, pdf_path = write_record(result, json_path=tmp_path / "r.json", pdf_path=tmp_path / "r.pdf")
    doc = json.loads(json_path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json.loads(RECORD_SCHEMA.read_text(encoding="utf-8"))).validate(doc)
    assert doc["against"] == {"audit_id": 41, "created_at": demo.created_at, "sha256": audit_digest(demo),
                              "hash_basis": doc["against"]["hash_basis"]}
    assert doc["counts"][NOT_DONE] == len(doc["checks"]) and doc["exit_code"] == 1
    reader = PdfReader(str(pdf_path))
    assert len(reader.pages) == 1  # a plan of 23 targets on one page
    flat = " ".join(reader.pages[0].extract_text().split())
    assert "#41" in flat and audit_digest(demo) in flat.replace(" ", "")
    assert "not done (13)" in flat  # the 13 pNIC MTU targets of the demo lab's largest item
    fields = reader.get_fields() or {}
    assert {"verify.name", "verify.role", "verify.date", "verify.ticket"} <= set(fields)


def test_stored_inputs_give_back_each_target():
    audit = Audit(inputs=["/lab/captures", "local", "ssh://root@10.0.0.5:2222", "ssh://admin@esx1:22",
                          "vcenter://vc1.lab:443", "nsx://nsx1.lab:443"])
    from nicadvisor.model.entities import Host

    audit.hosts = [Host("10.0.0.5:2222", kind="linux"), Host("esx1", kind="esxi")]
    got = stored_inputs(audit)
    assert got.capture_paths == ("/lab/captures",) and got.local
    assert got.ssh == (("root@10.0.0.5:2222", "linux"), ("admin@esx1:22", "esxi"))
    assert got.vcenter == ("https://vc1.lab:443",) and got.nsx == ("https://nsx1.lab:443",) and got.live


def test_a_guard_fact_is_not_what_the_plan_changes():
    """``link-below-10g`` reads ``link_up`` (on, as planned) and ``link_speed_mbps``: the speed is what is checked.
    Real capture: esxcli network nic list of an X550 at 1 Gbit/s (shared/fixtures/captures)."""
    from dataclasses import replace

    from nicadvisor.model.entities import Severity
    from capturetools import capture_path

    approved = run_audit(AuditRequest(
        capture_paths=(str(capture_path("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt")),)))
    slow = next(f for f in approved.findings if f.rule_id == "link-below-10g")
    approved.findings = [replace(slow, severity=Severity.WARNING)]  # planned, as a board would take it
    same = check_plan(approved, copy.deepcopy(approved)).checks[0]
    assert (same.fact, same.status, same.before) == ("link_speed_mbps", NOT_DONE, "link_speed_mbps 1000")

    def faster(h):
        h.pnic(slow.obj).link_speed_mbps = 25000

    done = check_plan(approved, _changed(approved, slow.host, faster)).checks[0]
    assert (done.status, done.after, done.planned) == (DONE, "link_speed_mbps 25000",
                                                       "link_speed_mbps: the rule no longer holds")
