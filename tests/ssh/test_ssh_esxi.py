"""End-to-end SSH audits against a REAL OpenSSH sshd whose ForceCommand is the ESXi personality
(answers with the bodies of real captures, see esxi_personality.py)."""
from __future__ import annotations

import re
import socket
import threading

import pytest

from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.known_hosts import KnownHosts
from nicadvisor.collect.sources import gather
from nicadvisor.collect.ssh import collect_ssh, save_captures


def _host(collection, i=0):
    host, problems, _parsed = assemble_host(collection.hosts[i])
    return host, problems


def test_esxi_audit_end_to_end(no_faults, known_hosts):
    lab = no_faults
    messages: list[str] = []
    c = collect_ssh([lab.target()], progress=messages.append, known_hosts=known_hosts)
    assert c.problems == [] and len(c.hosts) == 1
    inputs = c.hosts[0]
    assert inputs.kind == "esxi" and inputs.name == f"127.0.0.1:{lab.esxi.port}"
    commands = [cap.command for cap in inputs.captures]
    assert commands[0] == "esxcli network nic list"  # discovery first
    assert {"esxcli network nic get -n vmnic0", "vsish -e get /net/pNics/vmnic3/properties",
            "vsish -e get /net/pNics/vmnic0/rxqueues/info", "esxcfg-module -g icen",
            "esxcli network vswitch standard list", "esxcfg-vmknic -l"} <= set(commands)
    assert all(cap.source == f"ssh://{lab.user.name}@127.0.0.1:{lab.esxi.port}" for cap in inputs.captures)
    # per-NIC commands for the 4 NICs of the list, per-module commands for its 2 drivers
    assert any(m.endswith("esxcli network nic get -n vmnic3") for m in messages)
    assert any(m.endswith("esxcfg-module -i ixgben") for m in messages)

    host, _problems = _host(c)
    assert host.kind == "esxi"
    assert [p.name for p in host.pnics] == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    v0, v1, v2, v3 = host.pnics
    # esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt
    assert (v0.pci_address, v0.driver, v0.link_speed_mbps, v0.mtu) == ("0000:18:00.0", "ixgben", 1000, 1500)
    assert v1.link_up is False and v1.link_speed_mbps is None  # link down: speed unknown, not 0
    assert (v2.driver, v2.link_speed_mbps) == ("icen", 100000)
    assert v2.description == "Intel(R) Ethernet Controller E810-C for QSFP"
    # esxi_esxcli_nic_get_ixgben_x550_10gbaset_nbaset.txt
    assert (v0.driver_version, v0.firmware_version) == ("1.12.3.0", "1.55 0x80000a42, 1.1767.0")
    # esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt: "# queues supported:5", "Dynamic RSS"
    assert (v0.rx_queues_max, v0.rss) == (5, True)  # vsish "# queues supported:5" is a maximum
    # esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt: VMNET_CAP_Geneve_OFFLOAD, VMNET_CAP_TSO
    assert (v3.geneve_offload, v3.tso) == (True, True)
    # esxi_esxcli_vswitch_standard_list_mtu.txt, esxi_esxcli_ip_interface_list_esxi9_urpf.txt
    assert host.switch_of("vmnic0").name == "vSwitch0" and host.switch_of("vmnic2").name == "defvSwitch"
    assert host.vmknics[0].name == "vmk0" and host.vmknics[0].mtu == 9000
    # esxi_esxcfg-module-g_icen_options.txt
    assert host.module("icen").options == {"vmdq": "1,2,3,4", "sriov": "0,0,1,1"}
    # commands the personality has no capture for: required ones are problems, optional ones skipped
    assert any(p.command == "esxcli hardware pci list" and "exit status 1" in p.message for p in inputs.problems)
    assert any("esxcfg-nics -e" in s for s in c.skipped)


def test_captures_saved_and_replayed_give_the_same_facts(no_faults, known_hosts, tmp_path):
    lab = no_faults
    c = collect_ssh([lab.target()], known_hosts=known_hosts)
    live, _ = _host(c)
    written = save_captures(c.hosts, tmp_path / "audit")
    assert len(written) == len(c.hosts[0].captures)
    first = written[0].read_text()
    assert first.startswith(f"# source: ssh://{lab.user.name}@127.0.0.1:{lab.esxi.port}\n"
                            f"# command: esxcli network nic list\n# host: 127.0.0.1:{lab.esxi.port}\n")
    hosts, problems = gather([tmp_path / "audit"])
    assert problems == [] and [h.name for h in hosts] == [live.name]
    replayed, _problems, _parsed = assemble_host(hosts[0])
    assert replayed.kind == live.kind == "esxi"
    assert [p.facts() for p in replayed.pnics] == [p.facts() for p in live.pnics]
    assert [v.facts() for v in replayed.vmknics] == [v.facts() for v in live.vmknics]
    assert [s.facts() for s in replayed.switches] == [s.facts() for s in live.switches]
    assert [m.facts() for m in replayed.modules] == [m.facts() for m in live.modules]


def test_password_through_keyboard_interactive_and_no_secret_written(no_faults, tmp_path):
    lab = no_faults
    store = KnownHosts(tmp_path / "cfg" / "known_hosts")
    t = lab.target(key_filename=None, password=lab.user.password)
    c = collect_ssh([t], known_hosts=store)
    assert c.problems == [] and c.hosts[0].captures
    save_captures(c.hosts, tmp_path / "audit")
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert store.path in files and len(files) > 5
    for p in files:
        assert lab.user.password not in p.read_text(errors="replace"), p
    texts = [repr(t), repr(c)] + [p.message for p in c.all_problems] + c.skipped
    assert all(lab.user.password not in x for x in texts)


def test_wrong_password_and_wrong_key(no_faults, known_hosts):
    lab = no_faults
    bad_pw = lab.target(key_filename=None, password="not-the-password")
    bad_key = lab.target(key_filename=str(lab.wrong_key))
    bad_key_good_pw = lab.target(key_filename=str(lab.wrong_key), password=lab.user.password)
    c = collect_ssh([bad_pw, bad_key, bad_key_good_pw], known_hosts=known_hosts)
    assert len(c.problems) == 2 and len(c.hosts) == 1  # the password rescues the third
    pw, key = c.problems
    assert "authentication of" in pw.message and "the password was refused" in pw.message
    assert "the key was refused" in key.message
    assert "not-the-password" not in pw.message


def test_missing_key_file(no_faults, known_hosts, tmp_path):
    c = collect_ssh([no_faults.target(key_filename=str(tmp_path / "nope"))], known_hosts=known_hosts)
    assert "cannot read the key file" in c.problems[0].message


def test_first_contact_refused_without_trust_then_trusted_by_fingerprint(no_faults, known_hosts):
    lab = no_faults
    c = collect_ssh([lab.target(trusted_fingerprint=None)], known_hosts=known_hosts)
    assert not c.hosts
    msg = c.problems[0].message
    assert "not known yet" in msg and lab.esxi.fingerprint in msg and "--trust-host-key" in msg
    assert not known_hosts.path.exists()
    c = collect_ssh([lab.target()], known_hosts=known_hosts)  # trusted by fingerprint, stored
    assert c.problems == [] and c.hosts
    assert [k.fingerprint for k in known_hosts.keys_for("127.0.0.1", lab.esxi.port)] == [lab.esxi.fingerprint]
    c = collect_ssh([lab.target(trusted_fingerprint=None)], known_hosts=known_hosts)  # now known
    assert c.problems == [] and c.hosts


def test_ask_callback_decides_first_contact(no_faults, known_hosts):
    lab = no_faults
    asked = []
    c = collect_ssh([lab.target(trusted_fingerprint=None)], known_hosts=known_hosts,
                    ask=lambda *a: asked.append(a) or False)
    assert not c.hosts and "not trusted" in c.problems[0].message
    assert asked == [("127.0.0.1", lab.esxi.port, "ssh-ed25519", lab.esxi.fingerprint)]
    c = collect_ssh([lab.target(trusted_fingerprint=None)], known_hosts=known_hosts, ask=lambda *a: True)
    assert c.hosts and known_hosts.keys_for("127.0.0.1", lab.esxi.port)


def test_changed_host_key_is_refused(lab, known_hosts):
    sshd = lab.new_sshd().start()
    try:
        assert collect_ssh([lab.target(sshd)], known_hosts=known_hosts).hosts
        old = sshd.fingerprint
        sshd.new_host_key()
        sshd.restart()
        new = sshd.fingerprint
        assert new != old
        for kw in ({}, {"trusted_fingerprint": new}):
            c = collect_ssh([lab.target(sshd, **kw)], known_hosts=known_hosts, ask=lambda *a: True)
            assert not c.hosts
            msg = c.problems[0].message
            assert "CHANGED" in msg and old in msg and new in msg
        assert [k.fingerprint for k in known_hosts.keys_for("127.0.0.1", sshd.port)] == [old]
    finally:
        sshd.stop()


def test_unreachable_port_fails_fast(lab, known_hosts):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        # an hour's connect timeout: ending at all, with "connection refused", shows it did not wait for it
        c = collect_ssh([lab.target(port=port, connect_timeout_s=3600)], known_hosts=known_hosts)
    assert "connection refused" in c.problems[0].message and f"127.0.0.1:{port}" in c.problems[0].message


def test_silent_server_hits_the_banner_timeout(lab, known_hosts):
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        c = collect_ssh([lab.target(port=srv.getsockname()[1], connect_timeout_s=1.0)], known_hosts=known_hosts)
    assert "banner" in c.problems[0].message  # ended by the banner timeout (the server never speaks)


def test_command_timeout_is_a_problem_and_the_audit_goes_on(lab, known_hosts):
    # the hung command sleeps an hour: only the command timeout ends it. The timeout (10 s) is one every other
    # command meets on a loaded machine too; the message says the timeout, not the clock, ended it.
    lab.set_behaviour(sleep={"esxcli network vswitch standard list": 3600})
    try:
        c = collect_ssh([lab.target(command_timeout_s=10.0)], known_hosts=known_hosts)
    finally:
        lab.set_behaviour()
    inputs = c.hosts[0]
    assert any(p.command == "esxcli network vswitch standard list" and "did not finish within 10 s" in p.message
               for p in inputs.problems)
    assert "esxcli network nic get -n vmnic0" in [cap.command for cap in inputs.captures]  # later commands ran


def test_sshd_killed_mid_command(lab, known_hosts):
    lab.set_behaviour(die=["esxcli network ip interface list"])
    try:
        c = collect_ssh([lab.target()], known_hosts=known_hosts)
    finally:
        lab.set_behaviour()
    inputs = c.hosts[0]
    lost = [p for p in inputs.problems if "closed while running" in p.message]
    assert len(lost) == 1 and lost[0].command == "esxcli network ip interface list"
    commands = [cap.command for cap in inputs.captures]
    assert "esxcli network nic list" in commands and "esxcli network ip interface list" not in commands
    host = assemble_host(inputs)[0]
    assert host.pnic("vmnic2").link_speed_mbps == 100000  # what was read before the loss is kept


def test_binary_output_is_refused(lab, known_hosts):
    lab.set_behaviour(garbage=["esxcli network nic list"])
    try:
        c = collect_ssh([lab.target()], known_hosts=known_hosts)
    finally:
        lab.set_behaviour()
    inputs = c.hosts[0]
    assert any("binary data" in p.message and p.command == "esxcli network nic list" for p in inputs.problems)
    assert "esxcli network nic list" not in [cap.command for cap in inputs.captures]
    assert not any(cap.command.startswith("esxcli network nic get") for cap in inputs.captures)


def test_parallel_hosts_and_cancel(lab, known_hosts):
    hung = "esxcli network vswitch standard list"
    lab.set_behaviour(sleep={hung: 3600})  # only the cancel can end the two running hosts' collections
    cancel = threading.Event()
    at_hung: set[str] = set()
    lock = threading.Lock()

    def progress(message: str) -> None:  # cancel once both running hosts wait on the hung command
        host, _, command = message.partition(": ")  # "HOST: command I of N: COMMAND" once the plan is known
        if re.sub(r"^command \d+ of \d+: ", "", command) == hung:
            with lock:
                at_hung.add(host)
                if len(at_hung) == 2:
                    cancel.set()

    box: dict = {}
    try:
        hosts = [lab.target(), lab.target(host="localhost"), lab.target(host="localhost", port=lab.esxi.port)]
        worker = threading.Thread(target=lambda: box.update(c=collect_ssh(
            hosts, progress=progress, cancel=cancel, known_hosts=known_hosts, max_workers=2)), daemon=True)
        worker.start()
        worker.join(240)  # a deadline, not a duration: without the cancel it would take an hour
        assert not worker.is_alive(), f"the collection went on after the cancel; hosts at {hung!r}: {at_hung}"
    finally:
        lab.set_behaviour()
    c = box["c"]
    # the two running hosts keep what they read, marked cancelled; the queued one never started
    assert [h.name for h in c.hosts] == [f"127.0.0.1:{lab.esxi.port}", f"localhost:{lab.esxi.port}"]
    for h in c.hosts:
        assert h.captures[0].command == "esxcli network nic list"
        assert any("cancelled before the audit" in p.message for p in h.problems)
    assert len(c.problems) == 1 and "cancelled before connecting" in c.problems[0].message


def test_parallel_hosts_come_back_in_order(no_faults, known_hosts):
    lab = no_faults
    targets = [lab.target(host=h) for h in ("127.0.0.1", "localhost", "127.0.0.1", "localhost")]
    c = collect_ssh(targets, known_hosts=known_hosts, max_workers=4)
    assert [h.name for h in c.hosts] == [f"{h}:{lab.esxi.port}" for h in ("127.0.0.1", "localhost") * 2]
    assert all(len(h.captures) == len(c.hosts[0].captures) for h in c.hosts)


def test_zero_workers_refused():
    with pytest.raises(ValueError):
        collect_ssh([], max_workers=0)
