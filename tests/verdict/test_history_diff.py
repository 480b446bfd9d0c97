"""Issue "A report a change board signs" §3: two audits of one estate compared (``nic-advisor history diff``):
pNICs added/removed, facts changed (MTU, driver version), findings fixed/new, the verdicts before and after.

The two audits are of real captures: the same host folder ``esx-a`` holding first the esxcfg-nics -l of a nested
ESXi (vmnic0 MTU 9000, driver version not shown), then the esxcli nic list/get of an ESXi 9 nested host (vmnic0
MTU 1500, nvmxnet3 2.0.0.31). No two public captures of one pNIC at two driver versions exist in the fixtures."""
from __future__ import annotations

import json
import shutil

from capturetools import CAPTURES
from nicadvisor.cli import main
from nicadvisor.model import Audit, Host, PhysicalNic
from nicadvisor.model.diff import diff_audits, diff_lines

BEFORE = "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"
AFTER = "unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt"


def _audit_folder(tmp_path, name: str, capture: str, capsys) -> int:
    host = tmp_path / name / "esx-a"
    host.mkdir(parents=True)
    shutil.copy(CAPTURES / capture, host / capture)
    main(["audit", "--quiet", "--capture", str(host)])
    err = capsys.readouterr().err
    return int(err.split("saved as audit #")[1].split()[0])


def test_history_diff_shows_mtu_and_driver_changes_between_two_real_audits(tmp_path, capsys):
    first = _audit_folder(tmp_path, "before", BEFORE, capsys)
    second = _audit_folder(tmp_path, "after", AFTER, capsys)
    out, pdf = tmp_path / "diff.json", tmp_path / "diff.pdf"
    assert main(["history", "diff", str(first), str(second), "--json", str(out), "--pdf", str(pdf)]) == 0
    text = capsys.readouterr().out
    assert f"Audit #{first} → #{second}" in text
    assert "esx-a/vmnic0 (pNIC) mtu: 9000 → 1500" in text
    assert "esx-a/vmnic0 (pNIC) driver_version: not known → 2.0.0.31" in text
    doc = json.loads(out.read_text())
    assert (doc["before_id"], doc["after_id"]) == (first, second)
    changes = {(c["target"], c["fact"]): (c["before"], c["after"]) for c in doc["facts_changed"]}
    assert changes[("esx-a/vmnic0", "mtu")] == (9000, 1500)
    assert changes[("esx-a/vmnic0", "firmware_version")] == (None, "7")
    assert doc["objects_removed"] == [f"esx-a/vmnic{i} (pNIC)" for i in (1, 2, 3, 4, 5)]
    # vmnic0's MTU fell below 1600: a new error, and the verdict says so before and after
    assert ("pnic-mtu-below-1600", "esx-a/vmnic0") in {(f["rule_id"], f["target"]) for f in doc["findings_new"]}
    assert doc["after"]["verdict"]["label"] == "NOT READY"
    assert doc["before"]["verdict"]["label"] != doc["after"]["verdict"]["label"] or doc["findings_new"]
    from pypdf import PdfReader

    pdf_text = " ".join(p.extract_text() for p in PdfReader(pdf).pages)
    assert "Facts changed" in pdf_text and "driver_version" in pdf_text and "2.0.0.31" in pdf_text
    assert "Findings new" in pdf_text and "pNIC MTU below 1600" in pdf_text


def test_history_diff_needs_two_known_ids(capsys):
    assert main(["history", "diff", "1"]) == 2
    assert "give two audit ids" in capsys.readouterr().err
    assert main(["history", "diff", "999998", "999999"]) == 2


def test_findings_of_a_removed_host_are_not_fixed():
    before = Audit(hosts=[Host("a", pnics=[PhysicalNic("vmnic0", mtu=1500)]), Host("b")])
    after = Audit(hosts=[Host("a", pnics=[PhysicalNic("vmnic0", mtu=9000)])])
    from nicadvisor.services.audit import evaluate_findings

    before.findings, after.findings = evaluate_findings(before.hosts), evaluate_findings(after.hosts)
    diff = diff_audits(before, after)
    assert diff.hosts_removed == ["b"]
    assert [(c.target, c.fact, c.before, c.after) for c in diff.facts_changed] == [("a/vmnic0", "mtu", 1500, 9000)]
    assert {f.rule_id for f in diff.findings_fixed} == {"pnic-mtu-below-1600", "overlay-no-fit-pnic"}
    assert not diff.empty and diff_audits(after, after).empty
    assert "No change" in diff_lines(diff_audits(after, after))[-1]
