"""Issue 24 §2: the verdict keeps the configuration the rollout itself sets (VDS/vSwitch MTU, TEP MTU, uplink
profile) apart from what blocks it (hardware, driver or firmware, ESXi release, the physical network), and counts
each setting once: the ``overlay-no-fit-pnic`` error and the per-pNIC MTU findings it restates are one MTU setting,
and a VDS MTU is one setting of every member host."""
from __future__ import annotations

import copy
import csv
import json

from nicadvisor.cli import main
from nicadvisor.model.changes import KIND, changes_sentence, kind_of
from nicadvisor.model.readiness import overlay_fit_findings
from nicadvisor.model.verdict import NOT_READY, host_verdict, verdict_of
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit

from tests.rules.test_overlay_precision import _host


def test_demo_verdict_counts_configuration_apart_from_blockers(tmp_path, capsys):
    code = main(["audit", "--demo", "--no-history", "--quiet", "--json", str(tmp_path / "a.json"),
                 "--csv", str(tmp_path / "a.csv")])
    out = capsys.readouterr().out
    assert code == 1  # the exit code of NOT READY stays
    head = next(line for line in out.splitlines() if line.startswith("Verdict:"))
    assert "NOT READY: 4 configuration changes before the rollout (MTU 1500 → ≥ 1600 on 4 hosts)" in head
    assert "1 driver change (bnx2x on esxi-pasek-bnx2x)" in head
    doc = json.loads((tmp_path / "a.json").read_text())
    v = doc["verdict"]
    assert v["reason"] in head
    config = [c for c in v["changes"] if c["configuration"]]
    # four hosts, each one MTU setting: the no-fit error and its per-pNIC MTU warnings are one fact
    assert sorted(h for c in config for h in c["hosts"]) == sorted(
        ["esxi-elatov-z2mini", "esxi-h0062-x722-cx4lx", "esxi-hpe-connectx5", "esxi-mfd-x550-e810"])
    assert all(c["kind"] == "switch" and c["what"] == "MTU 1500 → ≥ 1600" for c in config)
    host = {h["host"]: h for h in v["hosts"]}
    assert host["esxi-h0062-x722-cx4lx"]["reason"].startswith("1 configuration change before the rollout (MTU 1500")
    assert [c["kind"] for c in host["esxi-pasek-bnx2x"]["changes"]] == ["driver"]
    with (tmp_path / "a-verdict.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["reason"].startswith(v["reason"])
    kinds = {r["label"]: r for r in rows if r["scope"] in ("configuration", "blocker")}
    assert set(kinds) >= {"configuration change", "driver change"}


def test_one_vds_mtu_is_one_change_of_every_member_host():
    hosts = []
    for name in ("esx1", "esx2", "esx3"):
        h = _host(tep_switch="dvs-overlay", mtus={"vmnic0": 1500, "vmnic1": 1500},
                  on={"vmnic0": "dvs-overlay", "vmnic1": "dvs-overlay"})
        h.name = name
        h.vmknics[0].mtu = 1500
        hosts.append(h)
    findings = evaluate(load_rules(), hosts)
    errors = [f for f in findings if f.severity.value == "error"]
    # the rules see a pNIC MTU per uplink, the switch MTU and the TEP MTU on each host
    assert len(errors) >= 9
    findings += overlay_fit_findings(hosts, findings)
    from nicadvisor.model import Audit

    audit = Audit(hosts=hosts, findings=findings, inputs=[])
    v = verdict_of(audit)
    assert v.status == NOT_READY and v.exit_code == 1
    switch = [c for c in v.changes if c.kind == "switch"]
    assert len(switch) == 1 and switch[0].hosts == ("esx1", "esx2", "esx3") and switch[0].target == "dvs-overlay"
    tep = [c for c in v.changes if c.kind == "nsx"]
    assert {c.hosts for c in tep} == {("esx1",), ("esx2",), ("esx3",)}  # each TEP vmknic is its own setting
    assert v.reason.startswith("4 configuration changes before the rollout (MTU 1500 → ≥ 1600 on 3 hosts")
    assert not v.blockers
    one = host_verdict(hosts[0], [f for f in findings if f.host == "esx1"])
    assert one.reason.startswith("2 configuration changes before the rollout (MTU 1500 → ≥ 1600 on dvs-overlay")


def test_each_rule_changes_the_object_it_names():
    rules = {r.id: r for r in load_rules()}
    assert kind_of(_finding("legacy-vmklinux-driver", "driver")).key == "driver"
    assert kind_of(_finding("pcie-link-downgraded", "pcie")).key == "hardware"
    assert kind_of(_finding("tep-mtu-below-1600", "tep")).key == "nsx"
    assert kind_of(_finding("mtu-path-test-failed", "mtu")).key == "physical"
    assert kind_of(_finding("switch-mtu-below-1600", "mtu")).key == "switch"
    assert {k.key for k in KIND.values() if k.configuration} == {"switch", "nsx"}
    # every shipped rule has a kind
    assert all(kind_of(_finding(i, r.category)).key in KIND for i, r in rules.items())
    assert changes_sentence([]) == ""


def _finding(rule_id: str, category: str):
    from nicadvisor.model import Finding, Severity

    return Finding(rule_id=rule_id, title=rule_id, severity=Severity.ERROR, host="h", message="", recommendation="",
                   category=category)


def test_an_unread_mtu_is_said_in_words_and_merges_with_a_read_one():
    from nicadvisor.model.changes import _merge_what, _mtu_change

    # no MTU read: the sentence says so, never "MTU ? → ≥ 1600"
    assert _mtu_change([None], ["MTU below 1600"]) == "MTU (not read) → ≥ 1600"
    # one unread and one read description of the same setting: the read value wins, the larger need is kept
    assert _merge_what("MTU (not read) → ≥ 1600", "MTU 1500 → ≥ 1700") == "MTU 1500 → ≥ 1700"
    assert _merge_what("MTU (not read) → ≥ 1600", "MTU (not read) → ≥ 1600") == "MTU (not read) → ≥ 1600"
    assert _merge_what("MTU 9000 → ≥ 1600", "MTU 1500 → ≥ 1600") == "MTU 1500/9000 → ≥ 1600"
