"""Issue 25 §1-§3: page 1 is the decision (the request with the target NSX version, the verdict with one line per
blocker, risk and reach, effort, capture dates, PDF signature fields), the plan grouped by what it changes, and a
fleet a reader can search (host index in natural order, every member of a group, grouped appendix, --quiet)."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from pypdf import PdfReader

from nicadvisor.cli import main
from nicadvisor.model.changes import KIND
from nicadvisor.paths import demo_lab_dir
from nicadvisor.report.fleet import compact_names, host_groups, host_index, natural_key
from nicadvisor.report.remediation import plan_groups, remediation_plan
from nicadvisor.report.scope import capture_lines, stated_date
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit
from nicadvisor.store import AuditStore
from nicadvisor.vcg.nsx_interop import load_table, host_support, release_findings

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parents[1] / "app" / "nicadvisor" / "report" / "audit.schema.json"
ESXI60 = HERE.parents[1] / "tests" / "parsers" / "captures" / "esxi600_vmware-lv_and_nic_list_tg3_elatov.txt"


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("decision")
    code = main(["audit", "--demo", "--no-history", "--quiet", "--target-nsx", "4.2", "--pdf", str(out / "d.pdf"),
                 "--json", str(out / "d.json"), "--html", str(out / "d.html")])
    assert code == 1
    return out


def test_page_one_is_the_decision(demo_reports):
    reader = PdfReader(str(demo_reports / "d.pdf"))
    first = " ".join(reader.pages[0].extract_text().split())
    for text in ("Change request", "Target NSX", "vCenter / cluster / VDS in scope",
                 "Approve authorises first the remediation plan", "then the NSX 4.2 rollout",
                 "NOT READY", "Blocker", "driver change: bnx2x on esxi-pasek-bnx2x",
                 "Configuration the rollout sets", "MTU 1500 → ≥ 1600 on 4 hosts", "Risk and reach", "Effort",
                 "Reboots / maintenance windows", "vCenter-level changes", "Physical-network changes", "network team",
                 "Hardware to buy", "Target NSX 4.2 against each host", "Inputs captured", "Signed by"):
        assert text in first, text
    # capture dates from the captures' own headers, never the checkout's file dates
    assert "file dates" not in first and "dated by their # source: line" in first and "OLD EVIDENCE" in first
    fields = reader.get_fields()
    assert fields["scope.target_nsx"]["/V"] == "4.2"
    on_page_one = {a.get_object().get("/T"): a.get_object() for a in reader.pages[0]["/Annots"]}
    for i in (1, 2, 3):
        assert on_page_one[f"board{i}.signature"]["/FT"] == "/Sig"  # a field a PDF reader offers to sign
        for key in ("role", "name", "date"):
            assert on_page_one[f"board{i}.{key}"]["/FT"] == "/Tx"
    assert "decision" in {a.get_object().get("/Parent", {}).get("/T") for a in reader.pages[0]["/Annots"]}
    # rendered as a user sees it
    png = demo_reports / "p1"
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", "-png", str(demo_reports / "d.pdf"), str(png)],
                   check=True)
    assert (demo_reports / "p1-01.png").stat().st_size > 10_000


def test_target_nsx_is_kept_in_the_json_and_the_history(demo_reports, tmp_path):
    doc = json.loads((demo_reports / "d.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert doc["scope"]["target_nsx"] == "4.2"
    assert {r["status"] for r in doc["scope"]["target_nsx_hosts"]} == {"unknown"}  # no demo host states its release
    html = (demo_reports / "d.html").read_text()
    assert 'name="scope.target_nsx" size="8" value="4.2"' in html
    store = AuditStore(tmp_path / "h.sqlite3")
    audit = run_audit(AuditRequest(capture_paths=(str(ESXI60),), target_nsx="4.2"), store=store)
    assert store.load(audit.history_id).target_nsx == "4.2"
    store.close()
    with pytest.raises(SystemExit) as bad:
        main(["audit", "--demo", "--no-history", "--target-nsx", "four"])
    assert bad.value.code == 2


def test_a_release_the_target_nsx_does_not_list_is_a_blocker(tmp_path):
    audit = run_audit(AuditRequest(capture_paths=(str(ESXI60),)))
    (tmp_path / "t.json").write_text(json.dumps({"check_at": "x", "versions": [
        {"nsx": "4.2", "esxi": ["7.0 U3", "8.0"], "source": "a table written for this test"}]}))
    table = load_table(tmp_path / "t.json")
    rows = host_support(audit.hosts, "4.2.1", table)  # 4.2.1 belongs to the 4.2 line
    assert [(r.release, r.status) for r in rows] == [("ESXi 6.0", "unsupported")]
    (f,) = release_findings(rows, "4.2.1")
    assert f.severity.value == "error" and "ESXi 6.0 is not supported by NSX 4.2.1" in f.message
    audit.findings = evaluate_findings(audit.hosts) + [f]
    assert [c.kind for c in audit.verdict.blockers if c.kind == "release"] == ["release"]
    assert "1 ESXi upgrade" in audit.verdict.reason
    (tmp_path / "bad.json").write_text(json.dumps({"versions": [{"nsx": "4.2", "esxi": ["8.0"]}]}))
    with pytest.raises(ValueError, match="without its source"):
        load_table(tmp_path / "bad.json")
    assert host_support(audit.hosts, "4.2", load_table())[0].status == "unknown"  # the shipped table: cited only


def test_capture_dates_come_from_the_captures_own_headers():
    collector = ("# source: nic-advisor collect-script esxi (0.1.0) on esx01 as root, 2026-05-01 10:22:33 UTC\n"
                 "# command: esxcli network nic list\n")
    assert stated_date(collector) == ("2026-05-01 10:22 UTC", "collector")
    demo = next((demo_lab_dir() / "esxi-elatov-z2mini").iterdir()).read_text(encoding="utf-8")
    assert stated_date(demo) == ("2018-02-20", "source")  # the dated post the output was published in
    assert stated_date("# source: UNATTRIBUTED GitHub file\n# command: x\n") is None
    audit = run_audit(AuditRequest(demo=True))
    assert any("OLD EVIDENCE" in line for line in capture_lines(audit))
    assert not any("OLD EVIDENCE" in line for line in capture_lines(audit, max_age_days=100_000))


def test_the_plan_is_grouped_by_what_it_changes_in_order(demo_reports):
    audit = run_audit(AuditRequest(demo=True))
    plan = remediation_plan(audit)
    groups = plan_groups(audit, plan)
    assert [g.kind.order for g in groups] == sorted(g.kind.order for g in groups)
    assert [n for g in groups for n, _i in g.items] == list(range(1, len(plan) + 1))  # numbered in that order
    by = {g.kind.key: g for g in groups}
    assert by["driver"].kind.owner == "virtualisation team" and by["driver"].kind.reboot
    assert by["physical"].kind.owner == "network team" and not by["physical"].kind.reboot
    assert set(by) <= set(KIND)
    text = " ".join(PdfReader(str(demo_reports / "d.pdf")).pages[0].extract_text().split())
    assert "Host driver / firmware" in text and "maintenance mode and a reboot per host" in text
    html = (demo_reports / "d.html").read_text()
    assert 'id="group-driver"' in html and 'id="item-1"' in html


def test_natural_order_and_every_member_listed():
    names = ["esx-10", "esx-2", "esx-1", "esx-100", "esx-3"]
    assert sorted(names, key=natural_key) == ["esx-1", "esx-2", "esx-3", "esx-10", "esx-100"]
    assert compact_names(names) == "esx-[1–3], esx-10, esx-100"
    assert compact_names(["a-01", "a-02"]) == "a-01, a-02"


def _fleet(root: Path, copies: int) -> list[str]:
    lab = sorted(p for p in demo_lab_dir().iterdir() if p.is_dir())
    names = []
    for i in range(1, copies + 1):
        for folder in lab:
            dest = root / f"{folder.name}-{i}"
            dest.mkdir(parents=True)
            for f in sorted(folder.iterdir()):
                if f.is_file():
                    (dest / f.name).write_text(f"# host: {dest.name}\n" + f.read_text(encoding="utf-8"),
                                               encoding="utf-8")
            names.append(dest.name)
    return names


def test_a_fleet_names_every_host_and_quiet_stays_short(tmp_path, capsys):
    names = _fleet(tmp_path / "fleet", 11)  # -1 … -11: text order would put -10 and -11 before -2
    code = main(["audit", "--capture", str(tmp_path / "fleet"), "--no-history", "--quiet",
                 "--pdf", str(tmp_path / "f.pdf"), "--html", str(tmp_path / "f.html")])
    out, err = capsys.readouterr()
    assert code == 1
    lines = (out + err).splitlines()
    assert len(lines) <= 60, len(lines)
    assert sum(1 for ln in lines if re.match(r"\d+\. ", ln)) == 10  # one line per group of alike hosts
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "f.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert all(name in text for name in names)
    index = text[text.index("Host index"):]
    assert index.index("esxi-pasek-bnx2x-2 ") < index.index("esxi-pasek-bnx2x-10 ")
    assert "esxi-pasek-bnx2x-[1–11]" in text  # the group lists all its members
    # the appendix of inputs not understood: one row per group and file, not one per host
    appendix = text[text.index("Appendix: inputs not understood"):]
    assert appendix.count("on 11 hosts of") == 3  # three problems of the bnx2x captures, each said once for the group
    assert appendix.count("esxi-pasek-bnx2x-[1–11]") == 3
    html = (tmp_path / "f.html").read_text()
    assert 'id="host-index"' in html and '<a href="#host-1">' in html
    audit = run_audit(AuditRequest(capture_paths=(str(tmp_path / "fleet"),)))
    groups = host_groups(audit)
    rows = host_index(groups, {hv.host: hv for hv in audit.verdict.hosts})
    assert [r.host for r in rows] == sorted(names, key=natural_key) and len(groups) == 10


def test_page_one_counts_speak_in_words_not_placeholders():
    from nicadvisor.model.text import plural
    from nicadvisor.report.decision import _on_hosts

    assert [plural(1, "host"), plural(2, "host"), plural(0, "pNIC")] == ["1 host", "2 hosts", "0 pNICs"]
    assert plural(2, "switch", "switches") == "2 switches"
    # page 1's effort table: nothing to buy reads "none", never "0 on 0 host(s)"
    assert _on_hosts(0, 0) == "none" and _on_hosts(1, 1) == "1 on 1 host" and _on_hosts(2, 2) == "2 on 2 hosts"
