"""Issue 16 §1–§3: READY means every decisive check was made.

* the table of decisive checks is written once (nicadvisor.model.readiness.DECISIVE_CHECKS) and is the same in the
  docs, the README, the JSON, the PDF legend and the HTML;
* a host is READY only when every check was decided on its overlay pNICs; take away what decides any one and it is
  NOT RATED, "N decisive checks not made on HOST: run …" with the exact command, names filled in and quoted;
* NOT READY comes from an error finding (the unfit-candidates case is the ``overlay-no-fit-pnic`` error);
* the audit summary prints the share of decided cells per column and how many hosts could be rated;
* "Finish this audit" is in the CLI summary, the JSON, the PDF and the HTML;
* the ESXi release: shown on every host row and page, named by every compatibility finding, and a missing decisive
  check (with ``vmware -vl``) when it was not read.

Hosts are real captures (the demo lab, tests/parsers/captures) or, for the logic of one check at a time, model
values (capturetools.FULLY_READ_PNIC: the X710 facts of resources/vcg/nic_facts.csv line 2)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from capturetools import FULLY_READ_PNIC, fully_read
from nicadvisor.cli import main
from nicadvisor.model import Audit, Evidence, Host, PhysicalNic, Severity, Switch, VmkernelNic
from nicadvisor.model.readiness import DECISIVE_CHECKS, commands_for
from nicadvisor.model.references import reference_of
from nicadvisor.model.verdict import NOT_RATED, NOT_READY, READY, coverage_of, host_verdict
from nicadvisor.report import audit_to_dict, validate_document
from nicadvisor.report.html_export import to_html
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit
from nicadvisor.judgement import judge

REPO = Path(__file__).resolve().parents[2]
PARSER_CAPTURES = REPO / "tests" / "parsers" / "captures"
ESXI600 = PARSER_CAPTURES / "esxi600_vmware-lv_and_nic_list_tg3_elatov.txt"


#: The Finish this audit block of the demo lab's linux-e810-pulchart: its MTU and its PCIe link, read from sysfs.
E810 = ["cat /sys/class/net/em1/mtu", *(f"cat /sys/class/net/em1/device/{a}" for a in (
    "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"))]

def _ready_host() -> Host:
    """An ESXi 6.7 GA host whose X710 (vmnic2) uplinks the switch of a TEP at MTU 9000, every decisive fact read."""
    h = Host("esx67", kind="esxi", pnics=[PhysicalNic("vmnic2", mtu=9000)],
             switches=[Switch("vds-overlay", kind="distributed", mtu=9000, uplinks=["vmnic2"])],
             vmknics=[VmkernelNic("vmk10", mtu=9000, is_tep=True, switch="vds-overlay")])
    return fully_read(h, "vmnic2")


def test_the_table_is_written_once_and_is_the_same_in_the_docs_and_the_readme():
    docs = (REPO / "docs" / "json-output.md").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert [c.key for c in DECISIVE_CHECKS] == ["link", "mtu", "geneve_offload", "rx_filter_or_rss", "release",
                                                "driver", "pcie", "ens"]
    for c in DECISIVE_CHECKS:
        assert f"| {c.title} | {c.applies} | {c.why} | {c.reference} |" in docs, c.key
        assert f"| {c.title} | {c.why} | {c.reference} |" in readme, c.key
        ref_file, _, section = c.reference.partition(" §")
        text = (REPO.parent / "shared" / "reference" / ref_file).read_text(encoding="utf-8")
        assert section.split(";")[0] in text, c.reference  # the section cited exists


def test_ready_needs_every_check_and_without_any_one_it_is_not_rated_with_its_command():
    h = _ready_host()
    v = host_verdict(h, judge([h], guide=None))
    assert v.status == READY and v.reason.startswith("all 7 decisive checks made on vmnic2") and not v.finish
    removed = {"link_speed_mbps": "esxcli network nic list", "geneve_offload": "vsish -e get /net/pNics/vmnic2/properties",
               "driver_version": "esxcli network nic get -n vmnic2", "build": "vmware -vl",
               "pcie_width": "lspci -d"}
    for fact, command in removed.items():
        h = _ready_host()
        obj = h if fact == "build" else h.pnic("vmnic2")
        setattr(obj, fact, None)
        if fact == "build":
            h.product_version = h.product_update = None
        v = host_verdict(h, judge([h], guide=None))
        assert v.status == NOT_RATED, fact
        # without the release the driver listing cannot be checked either: two checks, one command
        n = "2 decisive checks" if fact == "build" else "1 decisive check"
        assert v.reason.startswith(f"{n} not made on esx67"), (fact, v.reason)
        assert any(c.startswith(command) for c in v.finish), (fact, v.finish)
    # Rx filters and RSS: either decides; neither read leaves it open, with both commands
    h = _ready_host()
    h.pnic("vmnic2").geneve_rx_filter = None
    assert host_verdict(h, judge([h], guide=None)).status == READY  # RSS on decides it
    h.pnic("vmnic2").rss = None
    v = host_verdict(h, judge([h], guide=None))
    assert v.status == NOT_RATED and v.finish == ("vsish -e get /net/pNics/vmnic2/rxqueues/info",)
    # the TEP's MTU is on the path: not read, the check is open with the command that reads it
    h = _ready_host()
    h.vmknics[0].mtu = None
    assert host_verdict(h, judge([h], guide=None)).finish == ("esxcfg-vmknic -l",)
    # ENS where the host switch runs ENS: i40en_ens is the ENS driver, so the driver catalogue decides it (a document,
    # marked as one); with i40en, of which the catalogue states no ENS, the check is open with the command that reads it
    h = _ready_host()
    h.switches[0].ens_mode = "ens"
    assert host_verdict(h, judge([h], guide=None)).finish == ()
    assert h.pnic("vmnic2").evidence["ens_capable"].command == "from the driver catalogue"
    h = _ready_host()
    h.switches[0].ens_mode = "ens"
    h.pnic("vmnic2").driver = "i40en"
    assert host_verdict(h, judge([h], guide=None)).finish == ("esxcfg-nics -e",)


def test_a_port_whose_line_rate_cannot_exceed_any_pcie_link_needs_no_pcie_reading():
    h = _ready_host()
    p = h.pnic("vmnic2")
    p.pcie_speed_gts = p.pcie_width = None
    p.link_speed_mbps = 1000  # 1 Gbit/s: below the 2 Gbit/s of a PCIe Gen1 x1 link
    assert host_verdict(h, judge([h], guide=None)).status == READY


def test_names_are_filled_in_and_never_one_the_allowlist_refuses():
    h = Host("lnx", kind="linux", pnics=[PhysicalNic("enp2s0f1.100", pci_address="0000:02:00.0")])
    p = h.pnics[0]
    assert commands_for("link", h, p) == ("ethtool enp2s0f1.100",)
    assert commands_for("rss", h, p) == ("ethtool -l enp2s0f1.100", "ethtool -x enp2s0f1.100")
    # the PCIe link from sysfs, as the collectors read it
    assert commands_for("pcie", h, p) == tuple(f"cat /sys/class/net/enp2s0f1.100/device/{a}" for a in (
        "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"))
    assert commands_for("mtu", h, p) == ("cat /sys/class/net/enp2s0f1.100/mtu",)
    assert commands_for("ens", h, p) == ()
    # a name the SSH allowlist refuses (shell syntax), or a pNIC known only by its PCI address: the listing names it
    for name in ("eth 0;rm", "pci:0000:02:00.0", "-x"):
        h = Host("lnx", kind="linux", pnics=[PhysicalNic(name, pci_address="0000:02:00.0")])
        assert commands_for("link", h, h.pnics[0]) == ("ip -d -j link show",)
    h = Host("esx", kind="esxi", pnics=[PhysicalNic("pci:0000:18:00.0")])
    assert commands_for("geneve_offload", h, h.pnics[0]) == ("esxcfg-nics -l",)
    # a host whose kind no input told: the pNIC's name chooses the platform
    h = Host("x", pnics=[PhysicalNic("vmnic4"), PhysicalNic("eno1")])
    assert commands_for("rss", h, h.pnics[0]) == ("vsish -e get /net/pNics/vmnic4/rxqueues/info",)
    assert commands_for("rss", h, h.pnics[1]) == ("ethtool -l eno1", "ethtool -x eno1")


def test_a_host_with_only_a_listing_and_its_release_is_never_ready(tmp_path):
    """elatov's ESXi 6.0.0 GA Mac mini: vmware -lv and esxcli network nic list of one session, two 1 GbE tg3 ports at
    MTU 1500. Link, MTU and release are read; no pNIC is fit for Geneve (MTU 1500): NOT READY by an error finding,
    and what else it lacks is listed."""
    host_dir = tmp_path / "macm"
    host_dir.mkdir()
    (host_dir / ESXI600.name).write_text(ESXI600.read_text())
    audit = run_audit(AuditRequest(capture_paths=(str(host_dir),)))
    (hv,) = audit.verdict.hosts
    errors = [f for f in audit.findings if f.severity is Severity.ERROR]
    # tg3 on ESXi 6.0 is a vmklinux driver (an error of its own on each port); and no pNIC is fit for the overlay
    assert hv.status == NOT_READY and sorted({f.rule_id for f in errors}) == ["legacy-vmklinux-driver",
                                                                              "overlay-no-fit-pnic"]
    assert "vsish -e get /net/pNics/vmnic0/properties" in hv.finish and "vmware -vl" not in hv.finish
    (release,) = [f for f in audit.findings if f.rule_id == "esxi-release"]
    assert release.title == "ESXi release: ESXi 6.0" and "build 2809209" in release.message
    # with an MTU that fits, the pNICs are fit for the overlay, and the host is still never READY: its vmklinux
    # driver is an error (which decides its Driver column), and Geneve offload and RSS were not read
    for p in audit.hosts[0].pnics:
        p.mtu = 9000
    audit.findings = evaluate_findings(audit.hosts)
    (hv,) = audit.verdict.hosts
    assert "overlay-no-fit-pnic" not in {f.rule_id for f in audit.findings}
    assert hv.status == NOT_READY and {m.check for m in hv.missing} == {"geneve_offload", "rx_filter_or_rss"}


def test_demo_lab_ready_only_when_decided_and_every_other_host_lists_what_it_lacks(tmp_path, capsys):
    code = main(["audit", "--demo", "--no-history", "--json", str(tmp_path / "a.json"),  # the full summary
                 "--pdf", str(tmp_path / "a.pdf"), "--html", str(tmp_path / "a.html")])
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "a.json").read_text())
    validate_document(doc)
    assert code == 1 and doc["verdict"]["label"] == "NOT READY"
    for hv in doc["verdict"]["hosts"]:
        assert (hv["label"] == "READY") == (not hv["missing"] and hv["checks_made"] == hv["checks_applicable"])
        if hv["label"] != "READY":
            assert hv["finish"], hv["host"]
            # the CLI prints the same block under the host
            block = "\n".join(f"    {c}" for c in hv["finish"])
            assert block in out, hv["host"]
        errors = [f for f in doc["findings"] if f["host"] == hv["host"] and f["severity"] == "error"]
        assert (hv["label"] == "NOT READY") == bool(errors)  # NOT READY comes from an error finding
    # the summary: decided cells per column and hosts rated, the same in the CLI and the JSON
    r = doc["readiness"]
    assert [c["key"] for c in r["decisive_checks"]] == [c.key for c in DECISIVE_CHECKS]
    # esxi-vcf9-nested is no longer rated NOT READY on a local MTU error of its default netstack (issue 24 §3):
    # its TEP path is unknown, so it is not rated
    assert (r["hosts_rated"], r["hosts"]) == (5, 10)
    line = "Decided cells: " + ", ".join(f"{c['title']} {c['decided']}/{c['cells']}" for c in r["columns"])
    assert f"{line}; hosts rated: 5 of 10" in out
    assert all(c["cells"] == 24 for c in r["columns"])  # 24 physical pNICs
    # the release on every host row (CLI) and in the JSON
    assert "esxi-hpe-connectx5 (esxi, ESXi release not read (run vmware -vl)): 2 pNICs" in out
    hpe = next(h for h in doc["hosts"] if h["name"] == "esxi-hpe-connectx5")
    assert hpe["release"] == {"label": None, "text": "not read (run vmware -vl)"}
    # the PDF: the missing checks on page 1, before anything else about the hosts; the commands on each host page;
    # the table of decisive checks as the legend
    pages = [p.extract_text() for p in PdfReader(tmp_path / "a.pdf").pages]
    first = pages[1]  # page 1 is the decision (issue 25 §1), the executive summary follows
    assert "Decisive checks not made" in first and first.index("Decisive checks not made") < first.index("Scope:")
    text = " ".join(pages)
    # each check's document by its title in the reference list, never by its internal file name (issue 19 §1)
    flat = " ".join(text.split())
    assert "What READY needs: the decisive checks" in text and all(
        reference_of(c.reference.split(" §")[0]).title in flat and c.reference.split(" §")[0] not in flat
        for c in DECISIVE_CHECKS)
    assert "Finish this audit" in text and "cat /sys/class/net/em1/mtu" in text and "release not read (run vmware -vl)" in text
    html = (tmp_path / "a.html").read_text()
    assert 'id="decisive-checks"' in html and '<pre class="evidence finish">' + "\n".join(E810) + '</pre>' in html
    assert "ESXi release not read (run vmware -vl)" in html  # in the host's heading


def test_the_release_is_on_every_view_and_named_by_every_compatibility_finding(tmp_path, capsys):
    folder = tmp_path / "macm"
    folder.mkdir()
    (folder / ESXI600.name).write_text(ESXI600.read_text())
    assert main(["audit", "--quiet", "--no-history", "--capture", str(folder), "--json", str(tmp_path / "a.json"),
                 "--pdf", str(tmp_path / "a.pdf")]) == 1
    out = capsys.readouterr().out
    text = "ESXi 6.0 (6.0.0, build 2809209, GA)"
    assert f"macm (esxi, ESXi release {text}): 2 pNICs" in out
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["hosts"][0]["release"] == {"label": "ESXi 6.0", "text": text}
    assert f"Host macm · {text}" in " ".join(p.extract_text() for p in PdfReader(tmp_path / "a.pdf").pages)
    assert text in to_html(run_audit(AuditRequest(capture_paths=(str(folder),)))).replace("&nbsp;", " ")


def test_every_compatibility_finding_names_the_release_it_used():
    audit = run_audit(AuditRequest(demo=True))
    compat = [f for f in audit.findings if f.rule_id.startswith(("vcg-", "guide-")) and f.rule_id not in
              ("guide-data-stale", "guide-unreadable")]
    assert compat
    for f in compat:
        assert re.search(r"ESXi? \d|release", f.message), (f.rule_id, f.message)
    # the release of each ESXi host is judged once and stated: known, or not read with the command that reads it
    esxi = [h.name for h in audit.hosts if h.kind == "esxi"]
    stated = [f for f in audit.findings if f.rule_id in ("esxi-release", "esxi-release-unknown")]
    assert sorted(f.host for f in stated) == sorted(esxi)
    assert all("vmware -vl" in f.message + f.recommendation for f in stated if f.rule_id == "esxi-release-unknown")


def test_coverage_counts_every_physical_pnic_and_the_hosts_rated():
    h = _ready_host()
    audit = Audit(hosts=[h], inputs=["x"])
    audit.findings = judge([h], guide=None)
    c = coverage_of(audit)
    assert (c.hosts_rated, c.hosts) == (1, 1) and all(s.cells == 1 for s in c.columns)
    # not read, and no decisive check needs it here: coalescing (ENS, read nowhere either, the driver catalogue
    # states of i40en_ens, the ENS driver)
    assert {s.column for s in c.columns if s.decided == 0} == {"coalescing"}
    assert audit_to_dict(audit)["readiness"]["hosts_rated"] == 1


def test_an_esxi_host_whose_pcie_link_lspci_d_reads_is_ready():
    """Issue 24 §1: READY is reachable on a physical ESXi host with ports above 2 Gbit/s. Its PCIe link unread, the
    host is NOT RATED and "Finish this audit" names lspci -d; the link that lspci -d's reader decodes from a real
    configuration-space dump (pciutils' ConnectX-3 Pro dump, read as lspci -d: no public ESXi output exists) decides
    the check, and the host is READY."""
    from capturetools import local_capture
    from nicadvisor.parsers.registry import parse_output

    h = _ready_host()
    p = h.pnic("vmnic2")
    for fact in ("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable"):
        setattr(p, fact, None)
        p.evidence.pop(fact, None)
    v = host_verdict(h, judge([h], guide=None))
    assert v.status == NOT_RATED and v.finish == ("lspci -d",)
    dump = local_capture("pciutils_lspci-vvxxxx_cap-aer-root_connectx3pro_gen3_x8_and_root_port.txt")
    (result,) = parse_output("lspci -d", dump.text)
    p.pci_address = "0000:03:00.0"  # the function the dump holds, as the host's nic list would name it
    for fact, value in result.pnics[f"pci:{p.pci_address}"].items():
        if fact.startswith("pcie_"):
            p.set_fact(fact, value.value, Evidence("lspci -d", value.line, "pciutils cap-aer-root"))
    v = host_verdict(h, judge([h], guide=None))
    assert v.status == READY and not v.finish, v.reason


def test_no_text_says_no_esxi_command_shows_the_pcie_link():
    """Issue 24 §1: ESXi's lspci -d dumps the configuration space that holds the link; the README, the JSON
    documentation and the report legend say so, and none of them says the link cannot be read on the host."""
    from nicadvisor.report.legend import PCIE_ON_ESXI

    assert "lspci -d" in PCIE_ON_ESXI
    from nicadvisor.model import Host, PhysicalNic
    from nicadvisor.change_commands import pnic_show_commands

    shown = pnic_show_commands(Host(name="esx", kind="esxi"), PhysicalNic(name="vmnic0", pci_address="0000:3b:00.0"))
    assert shown["pcie_show_command"].startswith("lspci -d") and "Manual" not in shown["pcie_show_command"]
    for path in (REPO / "README.md", REPO / "docs" / "json-output.md"):
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert "lspci -d" in text, path
        for wrong in ("no read-only ESXi command", "shows a pNIC's PCIe link in no read-only command",
                      "no read-only command shows a pNIC's PCIe link"):
            assert wrong not in text, (path, wrong)
