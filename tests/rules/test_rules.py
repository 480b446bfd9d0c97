"""The shipped rule files load, bad rule files are refused with file and line, rules fire on facts."""
from __future__ import annotations


import pytest

from capturetools import SHARED

from nicadvisor.model import Evidence, Host, PhysicalNic, Severity, Switch, VmkernelNic
from nicadvisor.paths import rules_dir
from nicadvisor.rules_engine import RuleError, evaluate, load_rules
from nicadvisor.rules_engine.context import pcie_bandwidth_gbps
from nicadvisor.rules_engine.loader import load_rule_file

REFERENCES = SHARED / "reference"


@pytest.mark.parametrize("path", sorted(rules_dir().glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_rule_file_loads(path):
    rules = load_rule_file(path)
    assert rules, f"{path} holds no rules"
    for r in rules:
        for ref in r.references:
            if ref.startswith("https://"):  # a vendor page: the reference catalogue gives its title and version
                continue
            doc = ref.split(" §")[0]
            assert (REFERENCES / doc).is_file(), f"{r.id} cites {doc}, which is not in shared/reference"


def test_required_rule_set_present():
    ids = {r.id for r in load_rules()}
    for rid in ("pnic-mtu-below-1600", "pnic-mtu-below-1700", "pnic-mtu-not-jumbo", "switch-mtu-below-1600",
                "tep-mtu-below-1600", "no-geneve-offload", "no-rx-filter-no-rss", "no-geneve-rx-filter", "no-rss",
                "pcie-link-downgraded", "pcie-budget-below-line-rate", "not-ens-capable", "uplink-link-down",
                "link-below-10g", "legacy-vmklinux-driver", "coalescing-on", "vds-ipfix-enabled"):
        assert rid in ids


def _write(tmp_path, text):
    p = tmp_path / "bad.yaml"
    p.write_text(text, encoding="utf-8")
    return p


GOOD = """rules:
  - id: x
    title: A rule
    severity: warning
    applies_to: pnic
    category: mtu
    condition: mtu != null and mtu < 1600
    message: "mtu ${mtu}"
    recommendation: "fix it"
    references: ["nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput"]
"""


def test_unknown_key_rejected_with_file_and_line(tmp_path):
    p = _write(tmp_path, GOOD.replace("    title: A rule\n", "    title: A rule\n    colour: red\n"))
    with pytest.raises(RuleError, match=r"bad\.yaml:2: .*colour"):
        load_rule_file(p)


def test_bad_condition_names_its_line(tmp_path):
    p = _write(tmp_path, GOOD.replace("mtu != null and mtu < 1600", "mtu <<< 3"))
    with pytest.raises(RuleError, match=r"bad\.yaml:7: rule x: bad condition"):
        load_rule_file(p)


def test_bad_severity_and_yaml(tmp_path):
    with pytest.raises(RuleError, match=r"bad\.yaml:4: 'fatal' is not one of"):
        load_rule_file(_write(tmp_path, GOOD.replace("severity: warning", "severity: fatal")))
    with pytest.raises(RuleError, match="not valid YAML"):
        load_rule_file(_write(tmp_path, "rules: [\n  - id: x\n"))


def test_duplicate_ids_refused(tmp_path):
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD, encoding="utf-8")
    with pytest.raises(RuleError, match="already defined at a.yaml:2"):
        load_rules(tmp_path)


def _ev(line):
    return Evidence("esxcli network nic list", line, "test")


def _host(tep_switch="vSwitch0"):
    h = Host(name="esx1", kind="esxi")
    n = PhysicalNic(name="vmnic0")
    for k, v in dict(mtu=1500, link_up=True, link_speed_mbps=1000, driver="igb", geneve_offload=False,
                     geneve_rx_filter=False, rss=False, pcie_speed_gts=5.0, pcie_width=4,
                     pcie_speed_capable_gts=8.0, pcie_width_capable=8, pci_address="0000:18:00.0",
                     is_physical=True).items():
        n.set_fact(k, v, _ev(f"line for {k}"))
    h.pnics.append(n)
    pseudo = PhysicalNic(name="vusb0")
    pseudo.set_fact("is_physical", False, _ev("vusb0 Pseudo cdce"))
    pseudo.set_fact("mtu", 1500, _ev("vusb0 ... 1500"))
    h.pnics.append(pseudo)
    sw = Switch(name="vSwitch0")
    sw.set_fact("mtu", 1500, _ev("vSwitch0 1500"))
    sw.set_fact("uplinks", ["vmnic0"], _ev("vSwitch0 vmnic0"))
    sw.set_fact("ipfix_enabled", True, _ev("ipfix"))
    h.switches.append(sw)
    tep = VmkernelNic(name="vmk10")
    tep.set_fact("is_tep", True, _ev("vmk10 vxlan"))
    tep.set_fact("switch", tep_switch, _ev(f"vmk10 {tep_switch}"))  # on vSwitch0 vmnic0 carries the overlay
    tep.set_fact("mtu", 1650, _ev("vmk10 1650"))
    h.vmknics.append(tep)
    return h


def test_rules_fire_on_facts_with_evidence():
    findings = evaluate(load_rules(), [_host()])
    by = {(f.rule_id, f.target): f for f in findings}
    mtu = by[("pnic-mtu-below-1600", "esx1/vmnic0")]
    assert mtu.severity is Severity.ERROR and "MTU 1500 bytes" in mtu.message
    assert mtu.evidence[0].line == "line for mtu"
    assert "vmnic0" in mtu.recommendation
    assert ("switch-mtu-below-1600", "esx1/vSwitch0") in by
    assert ("tep-mtu-below-1700", "esx1/vmk10") in by
    assert ("no-rx-filter-no-rss", "esx1/vmnic0") in by
    assert ("no-geneve-rx-filter", "esx1/vmnic0") not in by  # the stronger rule covers it
    assert ("legacy-vmklinux-driver", "esx1/vmnic0") in by
    assert ("link-below-10g", "esx1/vmnic0") in by
    assert ("vds-ipfix-enabled", "esx1/vSwitch0") in by
    down = by[("pcie-link-downgraded", "esx1/vmnic0")]
    assert "5 GT/s x4" in down.message and "63 Gbit/s" in down.message.replace(".0 ", " ")
    assert not any(f.target == "esx1/vusb0" for f in findings), "pseudo devices are not audited"
    assert findings == sorted(findings, key=lambda f: (f.severity.rank, f.host, f.target, f.rule_id))


def test_unknown_facts_raise_no_finding():
    h = Host(name="h", kind="esxi", pnics=[PhysicalNic(name="vmnic1")])
    assert evaluate(load_rules(), [h]) == []


def test_pcie_bandwidth():
    assert pcie_bandwidth_gbps(8.0, 8) == 63.0  # "x8 lane NICs ... limited to 64Gbps"
    assert pcie_bandwidth_gbps(16.0, 16) == 252.1  # dmesg: 252.048 Gb/s available
    assert pcie_bandwidth_gbps(2.5, 1) == 2.0
    assert pcie_bandwidth_gbps(None, 8) is None
    assert pcie_bandwidth_gbps(7.0, 8) is None


def test_a_typo_in_a_fact_name_is_refused_with_its_line(tmp_path):
    with pytest.raises(RuleError, match=r"bad\.yaml:7: rule x: condition names unknown fact\(s\) mtux for pnic"):
        load_rule_file(_write(tmp_path, GOOD.replace("mtu != null and mtu < 1600", "mtux != null and mtux < 1600")))
    with pytest.raises(RuleError, match=r"bad\.yaml:8: rule x: message names unknown fact\(s\) mtuu"):
        load_rule_file(_write(tmp_path, GOOD.replace('"mtu ${mtu}"', '"mtu ${mtuu}"')))
    # derived facts of the context are known too
    ok = load_rule_file(_write(tmp_path, GOOD.replace("mtu != null and mtu < 1600",
                                                      "switch_mtu != null and module_options['RSS'] == null")))
    assert ok[0].id == "x"


# --- review fixes: Linux twins, paravirtual wording, TEP-aware switch MTU, MTU path test --------------------

def _linux_host():
    h = Host(name="lnx", kind="linux")
    n = PhysicalNic(name="em1")
    for k, v in dict(mtu=1500, coalesce_adaptive_rx=False, coalesce_rx_usecs=12, is_physical=True,
                     driver="virtio_net", is_virtual_uplink=True).items():
        n.set_fact(k, v, Evidence("ethtool -c em1", f"line for {k}", "test"))
    h.pnics.append(n)
    return h


def test_linux_hosts_get_linux_advice_not_esxi_advice():
    by = {f.rule_id: f for f in evaluate(load_rules(), [_linux_host()])}
    assert "coalescing-on" not in by and "pnic-mtu-below-1600" not in by
    coal = by["linux-coalescing-on"]
    assert "ethtool -C em1 adaptive-rx off rx-usecs 0" in coal.recommendation and "esxcli" not in coal.recommendation
    mtu = by["linux-pnic-mtu-below-1600"]
    # no switch or TEP is known on this host: the overlay rule holds only if em1 carries overlay, one step lower
    assert mtu.severity is Severity.WARNING and mtu.full_severity is Severity.ERROR and mtu.overlay_role == "possible"
    assert mtu.message.startswith("If em1 will carry overlay traffic") and mtu.title.endswith("(if it carries overlay)")
    assert mtu.rollback == "ip link set dev em1 mtu 1500\n(and restore the previous persistent network configuration)"
    assert mtu.change.startswith("ip link set dev em1 mtu 9000") and "ping -M do -s 8972" in mtu.verify
    for text in (mtu.recommendation, mtu.change, mtu.verify, mtu.rollback):
        assert "vmkping" not in text and "vSwitch" not in text and "esxcli" not in text
    virt = by["virtual-uplink-offload"]
    assert "paravirtual NIC (virtio_net)" in virt.message and "vmxnet3" not in virt.message


def test_esxi_hosts_keep_esxi_advice():
    by = {f.rule_id: f for f in evaluate(load_rules(), [_host()])}
    assert "linux-pnic-mtu-below-1600" not in by
    mtu = by["pnic-mtu-below-1600"]  # vmnic0 is an uplink of the standard vSwitch0; the host's TEP is vmk10
    assert "esxcli network vswitch standard set -v vSwitch0 -m 9000" in mtu.change  # kind not read: both forms
    assert "Get-VDSwitch -Name 'vSwitch0' | Set-VDSwitch -Mtu 9000" in mtu.change
    assert "vmkping ++netstack=vxlan -I vmk10 -d -s 8972 <remote TEP IP>" in mtu.verify
    assert "esxcli network vswitch standard set -v vSwitch0 -m 1500" in mtu.rollback


def _tep_host(tep_switch):
    h = _host(tep_switch)
    sw1 = Switch(name="vDS-Transport")
    sw1.set_fact("mtu", 1500, _ev("vDS-Transport 1500"))
    h.switches.append(sw1)
    return h


def test_switch_mtu_error_only_on_the_tep_switch_when_the_tep_switch_is_known():
    by = {(f.rule_id, f.target): f for f in evaluate(load_rules(), [_tep_host("vDS-Transport")])}
    assert ("switch-mtu-below-1600", "esx1/vDS-Transport") in by
    assert ("switch-mtu-below-1600", "esx1/vSwitch0") not in by
    info = by[("switch-mtu-below-1700-no-tep", "esx1/vSwitch0")]
    assert info.severity is Severity.INFO and "carries no TEP" in info.message
    assert by[("switch-mtu-below-1600", "esx1/vDS-Transport")].severity is Severity.ERROR
    # TEP switch unknown: every switch may carry the overlay, so each gets the error as a conditional warning
    by = {(f.rule_id, f.target): f for f in evaluate(load_rules(), [_tep_host(None)])}
    for target in ("esx1/vDS-Transport", "esx1/vSwitch0"):
        f = by[("switch-mtu-below-1600", target)]
        assert (f.severity, f.full_severity, f.overlay_role) == (Severity.WARNING, Severity.ERROR, "possible")
    assert not any(r == "switch-mtu-below-1700-no-tep" for r, _ in by)


def _demo_audit(host_dir):
    from nicadvisor.services.audit import DEMO_LAB, AuditRequest, run_audit
    return run_audit(AuditRequest(capture_paths=(str(DEMO_LAB / host_dir),)))


def test_demo_sio4_nsxv_only_the_transport_vds_is_held_to_the_overlay_mtu():
    # esxi-sio4-nsxv: TEP vmk2 (netstack vxlan) is on vDS-C-Transport (MTU 1600); vSwitch0, dvSwitch and
    # DSwitch have MTU 1500 and carry management/iSCSI/VM traffic only.
    found = {(f.rule_id, f.target.split("/")[-1]): f.severity for f in _demo_audit("esxi-sio4-nsxv").findings}
    assert found[("switch-mtu-below-1700", "vDS-C-Transport")] is Severity.WARNING
    for sw in ("vSwitch0", "dvSwitch", "DSwitch"):
        assert ("switch-mtu-below-1600", sw) not in found
        assert found[("switch-mtu-below-1700-no-tep", sw)] is Severity.INFO


def test_demo_vcf9_nested_is_not_failed_on_a_local_mtu_error_of_the_default_netstack():
    """esxi_vmkping-d_message_too_long_mtu_mismatch.txt: ``vmkping -d -s 1500`` on the default netstack →
    ``sendto() failed (Message too long)``: a local MTU error of the sending vmknic (a 1528-byte frame on a 1500-byte
    vmk0), not a path failure, and nothing about the TEP path (issue 24 §3). The host's TEP path stays unknown and
    no mtu-path-test-failed error makes it NOT READY."""
    audit = _demo_audit("esxi-vcf9-nested")
    host = audit.hosts[0]
    assert host.mtu_path_ok is None
    assert not [f for f in audit.findings if f.rule_id == "mtu-path-test-failed"]


def test_a_tep_that_cannot_send_a_1600_byte_frame_fails_the_mtu_path_check():
    """The same local error on the TEP netstack with a frame of at most 1600 bytes is a real failure: the TEP
    cannot send what Geneve needs. The real lines of 4_vmkping.md §4.1 (a 1600-byte payload that could not leave)
    read with the command a 1572-byte payload would have had: the rule fires and its verify step pings the TEP."""
    from nicadvisor.parsers.base import CommandLine
    from nicadvisor.parsers.esxi.ping import parse_vmkping

    text = ("PING 10.44.44.59 (10.44.44.59): 1572 data bytes\nsendto() failed (Message too long)\n"
            "sendto() failed (Message too long)\n")
    r = parse_vmkping(text, CommandLine.parse("ping ++netstack=vxlan 10.44.44.59 -s 1572 -d -I vmk10"))
    assert r.host["mtu_path_ok"].value is False
    r6 = parse_vmkping(text.replace("1572 data", "1552 data"),
                       CommandLine.parse("vmkping -6 ++netstack=vxlan -I vmk10 -d -s 1552 fd00::59"))
    assert r6.host["mtu_path_ok"].value is False  # 1552 + 48 = 1600 bytes of IPv6 frame
    big = parse_vmkping(text.replace("1572 data", "1600 data"),
                        CommandLine.parse("ping ++netstack=vxlan 10.44.44.59 -s 1600 -d -I vmk10"))
    assert "mtu_path_ok" not in big.host  # a 1628-byte frame on a 1600-byte TEP: larger than Geneve needs
    host = Host(name="h", kind="esxi", mtu_path_ok=False,
                vmknics=[VmkernelNic(name="vmk10", netstack="vxlan", is_tep=True, addresses=["10.44.44.58"])])
    host.evidence["mtu_path_ok"] = Evidence(command="ping ++netstack=vxlan", line=r.host["mtu_path_ok"].line)
    f = next(f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "mtu-path-test-failed")
    assert f.verify == "vmkping ++netstack=vxlan -I vmk10 -d -s 8972 <remote TEP IP>"
    assert "esxcli network ip interface set -i <vmknic> -m 9000" in f.change


def test_an_unread_value_in_a_command_is_a_placeholder_not_the_word_unknown():
    """Recommendations and rollbacks are commands to run: a fact not read (the switch of vmnic0 on a demo host)
    becomes ``<switch name>`` there, never ``-v unknown``; the message still says "unknown"."""
    from nicadvisor.services.audit import AuditRequest, run_audit

    audit = run_audit(AuditRequest(demo=True))
    rollbacks = [f.rollback for f in audit.findings if f.rollback]
    assert rollbacks and not any("-v unknown" in r for r in rollbacks)
    assert any("-v <switch name>" in r for r in rollbacks)


def test_the_overlay_vmkping_always_names_the_tep_netstack_and_proves_the_mtu_it_names():
    """issue 24 §3: the payload is MTU − 28 for IPv4 (1572/1672/8972 for 1600/1700/9000) and MTU − 48 for IPv6
    (vmkping -6); the test always runs ++netstack=vxlan -I <TEP vmk>, never on the default netstack."""
    from nicadvisor.change_commands import ping_payload, vmkping_command, vmknic_mtu_command

    assert [ping_payload(m) for m in (1600, 1700, 9000)] == [1572, 1672, 8972]
    assert [ping_payload(m, ipv6=True) for m in (1600, 1700, 9000)] == [1552, 1652, 8952]
    v4 = Host(name="a", kind="esxi", vmknics=[VmkernelNic(name="vmk10", netstack="vxlan", is_tep=True,
                                                          addresses=["10.44.44.58"])])
    assert vmkping_command(v4, 1700) == "vmkping ++netstack=vxlan -I vmk10 -d -s 1672 <remote TEP IP>"
    v6 = Host(name="b", kind="esxi", vmknics=[VmkernelNic(name="vmk11", netstack="vxlan", is_tep=True,
                                                          addresses=["fd00::58"])])
    assert vmkping_command(v6) == "vmkping -6 ++netstack=vxlan -I vmk11 -d -s 8952 <remote TEP IP>"
    odd = Host(name="c", kind="esxi", vmknics=[VmkernelNic(name="vmk1", netstack="defaultTcpipStack", is_tep=True)])
    assert vmkping_command(odd).startswith("vmkping ++netstack=vxlan -I vmk1 ")
    assert vmknic_mtu_command("vmk0", 9000) == "esxcli network ip interface set -i vmk0 -m 9000"


def test_a_plain_vmknic_mtu_is_set_with_esxcli_network_ip_interface_set():
    """The vmknic MTU change is esxcli network ip interface set -i vmkN -m M (after its switch), its roll-back the
    same command with the MTU read (issue 24 §3; the real VCF 9 session runs 'interface set -i vmk0 -m 9000')."""
    from nicadvisor.change_commands import vmknic_commands

    host = Host(name="h", kind="esxi", switches=[Switch(name="vSwitch0", kind="standard", mtu=1500)],
                vmknics=[VmkernelNic(name="vmk0", netstack="defaultTcpipStack", mtu=1500, switch="vSwitch0")])
    facts = vmknic_commands(host, host.vmknics[0])
    assert facts["mtu_change_command"].splitlines() == [
        "first the switch: esxcli network vswitch standard set -v vSwitch0 -m 9000",
        "then the vmknic: esxcli network ip interface set -i vmk0 -m 9000"]
    assert facts["mtu_rollback_command"] == "esxcli network ip interface set -i vmk0 -m 1500"
