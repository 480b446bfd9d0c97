"""Issue 17 §2, the pure parts of an ESXi benchmark endpoint, read from the recorded public outputs of
tests/bench/esxi_captures (each with its source): the firewall's listings, the choice of a ruleset, the allowlist of
the commands, ESXi's ps, iperf3's own words, and the firewall change with its exact restore driven by recorded
answers — including ESXi's "owned by system service" refusal."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from nicadvisor.bench import BenchError  # noqa: E402
from nicadvisor.bench.esxi import (  # noqa: E402
    COPY_RE, IPERF3, check_esxi, copy_path, exec_refused, listening_port, open_firewall, parse_ps, port_in_use,
    restore_ruleset, started_by,
)
from nicadvisor.bench.esxi_firewall import (  # noqa: E402
    AllowedIps, FirewallState, parse_allowedip_list, parse_firewall_get, parse_rule_list, parse_ruleset_list,
    plan_opening, refused,
)
from nicadvisor.bench.journal import Journal, read_entries  # noqa: E402
from nicadvisor.bench.remote import CmdOut, RemoteCommandRefused, check_remote  # noqa: E402
from nicadvisor.collect.sources import read_capture  # noqa: E402

CAPS = HERE / "esxi_captures"
PEER = "192.168.11.1"


def text(name: str) -> str:
    return read_capture(CAPS / name).text


def test_the_firewall_listings_read_as_recorded():
    assert parse_firewall_get(text("esxi5x_firewall_get_elatov.txt")) == FirewallState(True, "DROP", True)
    four = parse_ruleset_list(text("esxi80u2b_firewall_ruleset_list_dod.txt"))
    assert len(four) == 57
    assert four["remoteSerialPort"].enabled is False and four["remoteSerialPort"].configurable is True \
        and four["remoteSerialPort"].ip_configurable is True
    assert four["vsanhealth-unicasttest"].configurable is False and four["nfsClient"].ip_configurable is False
    two = parse_ruleset_list(text("esxi50_firewall_ruleset_list_collapsed_elatov.txt"))
    assert two["remoteSerialPort"].enabled is True and two["remoteSerialPort"].configurable is None
    assert parse_ruleset_list(text("esxi5x_firewall_ruleset_list_r_remoteSerialPort_false_elatov.txt"))[
        "remoteSerialPort"].enabled is False
    assert parse_ruleset_list(text("esxi5x_firewall_ruleset_list_r_remoteSerialPort_true_elatov.txt"))[
        "remoteSerialPort"].enabled is True
    rules = parse_rule_list(text("esxi5x_firewall_ruleset_rule_list_r_remoteSerialPort_elatov.txt"))
    assert [(r.direction, r.protocol, r.begin, r.end) for r in rules] == [
        ("Outbound", "TCP", 0, 65535), ("Inbound", "TCP", 23, 23), ("Inbound", "TCP", 1024, 65535)]
    assert [(r.ruleset, r.end) for r in parse_rule_list(text(
        "esxi65_firewall_ruleset_rule_list_r_custom-firewall_elatov.txt"))] == [("custom-firewall", 5004)]
    assert [(r.protocol, r.begin) for r in parse_rule_list(text(
        "esxi5x_firewall_ruleset_rule_list_r_syslog_blogexport_elatov.txt"))] == [
        ("UDP", 514), ("TCP", 514), ("TCP", 1514)]  # the blog export's "\---" header line is no row
    assert parse_allowedip_list(text("esxi67_firewall_ruleset_allowedip_list_sshServer_all_vmwaredoc.txt")) == {
        "sshServer": AllowedIps("sshServer", True)}
    assert refused(text("esxi80u2b_firewall_allowed_ip_refused_dod.txt"))


def _esxi80():
    return (parse_firewall_get(text("esxi5x_firewall_get_elatov.txt")),
            parse_ruleset_list(text("esxi80u2b_firewall_ruleset_list_dod.txt")),
            parse_rule_list(text("esxi5x_firewall_ruleset_rule_list_r_remoteSerialPort_elatov.txt")))


def test_the_choice_of_a_ruleset():
    state, rulesets, rules = _esxi80()
    # remoteSerialPort: disabled, may be enabled, opens inbound TCP 1024-65535: enabled for the run, 5201 in range
    got = plan_opening(state, rulesets, rules, {}, "Inbound", "TCP", PEER)
    assert (got.ruleset, got.enable, got.restrict, got.first, got.last, got.port) == (
        "remoteSerialPort", True, False, 1024, 65535, 5201)
    assert "could not be read" in got.why  # its allowed-IP list was not read: left as it is, said in the plan
    (line,) = got.lines("esxi-a", PEER)
    assert "enable ruleset remoteSerialPort (inbound TCP 1024-65535), open to every address while the test runs" in \
        line and "the firewall itself stays on" in line
    # with its list read (model facts here), it is restricted to the peer and put back
    allowed = {"remoteSerialPort": AllowedIps("remoteSerialPort", True)}
    got = plan_opening(state, rulesets, rules, allowed, "Inbound", "TCP", PEER)
    assert got.restrict and f"allowed IP list restricted to {PEER} for the run" in got.lines("esxi-a", PEER)[0]
    # outbound from an ESXi client: the same ruleset opens 0-65535
    out = plan_opening(state, rulesets, rules, {}, "Outbound", "TCP", PEER)
    assert (out.ruleset, out.port) == ("remoteSerialPort", 5201)
    # UDP: no ruleset read opens a range: said, nothing changes
    why = plan_opening(state, rulesets, rules, {}, "Inbound", "UDP", PEER)
    assert isinstance(why, str) and "no ruleset of the ESXi firewall opens a range of inbound UDP ports" in why
    # a single port (inbound TCP 23) belongs to its service and is never chosen
    single = [r for r in rules if r.begin == r.end]
    assert isinstance(plan_opening(state, rulesets, single, {}, "Inbound", "TCP", PEER), str)
    # a firewall that is off needs no change
    off = plan_opening(FirewallState(False, "DROP", True), rulesets, rules, {}, "Inbound", "TCP", PEER)
    assert off.ruleset is None and not off.changes


@pytest.mark.parametrize("argv", [
    ("esxcli", "network", "firewall", "set", "--enabled", "false"),  # never the firewall as a whole
    ("esxcli", "network", "firewall", "set", "-d", "true"),
    ("esxcli", "network", "firewall", "refresh"),
    ("esxcli", "network", "firewall", "ruleset", "set", "-r", "sshServer;reboot", "-e", "true"),
    ("esxcli", "network", "firewall", "ruleset", "allowedip", "add", "--ruleset-id", "sshServer", "--ip-address",
     "0.0.0.0/0;id"),
    ("cp", "/bin/sh", "/usr/lib/vmware/vsan/bin/iperf3.nicadv-0123456789abcdef"),
    ("rm", "-f", "/usr/lib/vmware/vsan/bin/iperf3"),
    ("rm", "-f", "/usr/lib/vmware/vsan/bin/iperf3.copy"),  # a copy ESXi itself ships is never ours
    (IPERF3, "-s", "-1", "-B", "10.0.0.1", "-p", "5201"),  # the original never serves
    ("/usr/lib/vmware/vsan/bin/iperf3.nicadv-0123456789abcdef", "-s", "--logfile", "/etc/passwd"),
    ("/usr/lib/vmware/vsan/bin/iperf3.nicadv-0123456789abcdef", "-c", "10.0.0.1"),
    ("esxcli", "system", "settings", "advanced", "set", "-o", "/User/execInstalledOnly", "-i", "0"),
    ("ps", "aux"),
])
def test_the_allowlist_refuses_everything_else(argv):
    assert not check_esxi(argv)
    with pytest.raises(RemoteCommandRefused):
        check_remote(argv)


def test_the_allowlist_takes_the_endpoint_commands():
    copy = copy_path("0123456789abcdef")
    for argv in [("test", "-f", IPERF3), ("ps", "-c", "-J"), ("cp", IPERF3, copy), ("rm", "-f", copy),
                 ("esxcli", "network", "firewall", "get"), ("esxcli", "network", "firewall", "ruleset", "list"),
                 ("esxcli", "network", "firewall", "ruleset", "list", "-r", "remoteSerialPort"),
                 ("esxcli", "network", "firewall", "ruleset", "rule", "list", "-r", "vsanhealth-unicasttest"),
                 ("esxcli", "network", "firewall", "ruleset", "set", "-r", "remoteSerialPort", "-e", "false"),
                 ("esxcli", "network", "firewall", "ruleset", "set", "--ruleset-id", "sshServer", "--allowed-all",
                  "true"),
                 ("esxcli", "network", "firewall", "ruleset", "allowedip", "remove", "--ruleset-id", "sshServer",
                  "--ip-address", "fd00::1"),
                 (copy, "-s", "-1", "-B", "192.168.11.2", "-p", "5201"),
                 (IPERF3, "-c", "192.168.11.1", "-p", "5201", "-t", "10", "-J", "-B", "192.168.11.2")]:
        assert check_remote(argv)
    assert COPY_RE.match(copy) and not COPY_RE.match(copy + "x")


def test_esxi_ps_rows_and_what_this_run_started():
    rows = parse_ps(text("esxi_ps_c_J_netserver_intel_mfd.txt"))
    assert len(rows) == 21  # every row of the recording, the VT100 tree glyphs taken off
    net = next(r for r in rows if r.name == "netserver")
    assert (net.wid, net.cid, net.cmdline) == (2286412, 2286412, "netserver'")
    py = [r for r in rows if r.name == "python"]
    assert [(r.wid, r.cid) for r in py] == [(2100750, 2100715), (2293710, 2100715)]  # two worlds, one cartel
    assert [r.wid for r in started_by(rows, ["netserver"])] == [2286412]  # by the command line, not a name
    assert started_by(rows, ["/usr/lib/vmware/vsan/bin/iperf3.nicadv-0123456789abcdef", "-s"]) == []


def test_iperf3_and_the_shell_in_their_own_words(tmp_path):
    assert exec_refused(text("esxi80u2_execinstalledonly_refusal_rsync.txt")).startswith("-sh: /vmfs/volumes/")
    assert exec_refused(text("esxi7_vsan_iperf3_server_refused.txt")) == ""  # the original's refusal is another
    assert listening_port(text("esxi7_vsan_iperf3_copy_server_listening.txt")) == 5201
    # a port in use, as iperf3 on this machine says it
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        got = subprocess.run(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)], capture_output=True,
                             text=True, timeout=20)
    assert port_in_use(got.stdout + got.stderr), got.stdout + got.stderr


class RecordedEsxi:
    """Answers the firewall commands of one ruleset with recorded outputs; records every command sent."""

    def __init__(self, answers: dict[tuple[str, ...], tuple[int, str]]) -> None:
        self.answers, self.sent = answers, []

    def __call__(self, argv):
        self.sent.append(tuple(argv))
        rc, out = self.answers.get(tuple(argv), (1, ""))
        return CmdOut(rc, out, "" if rc == 0 else "no recorded output")


def test_owned_by_system_service_refuses_the_restriction_and_nothing_is_left_changed(tmp_path):
    """sshServer, as VMware's documentation recorded it (enabled; allowed IP: All), on an ESXi 8.0 U2b that refuses
    to change its list ("owned by system service", recorded): the refusal is said, the journal row put back, and
    reading the ruleset back shows it as it was. (The documentation lists it with --ruleset-id; the tool sends -r.)"""
    fw = ("esxcli", "network", "firewall", "ruleset")
    doc = text("esxi67_firewall_ruleset_list_sshServer_vmwaredoc.txt")
    esxi = RecordedEsxi({
        fw + ("list", "-r", "sshServer"): (0, doc),
        fw + ("allowedip", "list", "--ruleset-id", "sshServer"): (
            0, text("esxi67_firewall_ruleset_allowedip_list_sshServer_all_vmwaredoc.txt")),
        fw + ("set", "--ruleset-id", "sshServer", "--allowed-all", "false"): (
            1, text("esxi80u2b_firewall_allowed_ip_refused_dod.txt")),
    })
    journal = Journal(tmp_path)
    with pytest.raises(BenchError, match="ESXi refused to restrict the allowed IP list of ruleset sshServer on esxi-a: "
                                         "Invalid operation requested: .* it is owned by system service"):
        open_firewall(esxi, journal, "ssh://root@esxi-a:22", "esxi-a", "sshServer", enable=False, restrict=True,
                      add_peers=(PEER,))
    (row,) = read_entries(tmp_path)
    assert row.kind == "esxi-ruleset" and row.data == {"ruleset": "sshServer", "enabled": True, "allowed_all": True,
                                                       "ips": None, "added": []}  # written before the change
    assert not any("allowedip" in a and "add" in a for a in esxi.sent)  # the peer was never added
    ok, sentence = restore_ruleset(esxi, row.data, "esxi-a")
    assert ok and "read back: as it was" in sentence and "nothing to put back" in sentence
    assert not any(a[:5] == fw + ("set",) and "-e" in a for a in esxi.sent)  # its enabled state never touched
    journal.done(row.id)
    journal.close()


def test_an_esxi_end_is_judged_with_the_uplinks_of_its_vmknic_switch():
    """The host-to-host band of the vmknic path: the line rate and PCIe of the uplinks of the test vmknic's switch,
    the smallest MTU of vmknic, switch and uplink (model facts). Uplinks of two speeds: no band, said why."""
    from nicadvisor.bench.remote import HostProbe
    from nicadvisor.model import Audit, Host, PhysicalNic, Switch, VmkernelNic
    from nicadvisor.services.bench_expect import path_end

    def host(speeds):
        return Host(name="esxi-a", kind="esxi", inputs=["ssh://root@esxi-a:22"],
                    pnics=[PhysicalNic(name=f"vmnic{i}", link_up=True, link_speed_mbps=s, mtu=9000,
                                       pcie_speed_gts=8.0, pcie_width=8) for i, s in enumerate(speeds)],
                    switches=[Switch(name="nsx-vds", mtu=9000, uplinks=[f"vmnic{i}" for i in range(len(speeds))])],
                    vmknics=[VmkernelNic(name="vmk10", mtu=1700, switch="nsx-vds", is_tep=True)])

    probe = HostProbe(name="esxi-a", source="ssh://root@esxi-a:22", tools={"iperf3": ""}, omni=False,
                      address="192.168.11.2", interface="vmk10", mtu=1700, kind="esxi")
    end = path_end(probe, Audit(hosts=[host([25000, 25000])]))
    assert end.audited and (end.facts.name, end.facts.link_gbps, end.facts.mtu) == ("esxi-a/vmk10", 25.0, 1700)
    assert end.facts.encapsulation is None and end.facts.pcie_width == 8  # vmknic traffic is not encapsulated
    mixed = path_end(probe, Audit(hosts=[host([25000, 10000])]))
    assert not mixed.audited and "are not one known speed" in mixed.why_not
    unknown = path_end(probe, Audit(hosts=[Host(name="esxi-a", kind="esxi", inputs=["ssh://root@esxi-a:22"],
                                                 vmknics=[VmkernelNic(name="vmk10", mtu=1700)])]))
    assert not unknown.audited and "the switch of vmk10 on esxi-a and its uplinks are not known" in unknown.why_not
