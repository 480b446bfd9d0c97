"""Live vSphere audit against govmomi's vcsim, checked against what govc reports for the same simulator."""
from __future__ import annotations

import threading

import pytest

from nicadvisor.cancel import Cancelled
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere
from nicadvisor.parsers.api.vsphere_objects import facts_from_recording
from vcsimtools import GOVC, PASSWORD, USER

needs_govc = pytest.mark.skipif(GOVC is None, reason="govc not installed")


def target(sim, **kw) -> VsphereTarget:
    kw.setdefault("thumbprint", fetch_thumbprint("127.0.0.1", sim.port, 10))
    kw.setdefault("timeout_s", 10)
    return VsphereTarget(host="127.0.0.1", port=sim.port, user=USER, password=PASSWORD, **kw)


def _module_only(problems) -> bool:
    """vcsim has no HostKernelModuleSystem: that one vCenter-level problem is expected."""
    return all("driver modules could not be read" in p.message and "ManagedObjectNotFound" in p.message
               for p in problems)


@needs_govc
def test_collect_matches_govc(vcsim):
    col = collect_vsphere([target(vcsim)])
    assert _module_only(col.problems), col.problems
    assert [s.trust.mode for s in col.sessions] == ["pinned"]
    gov = vcsim.govc_collect("name", "summary.config.product.version", "summary.config.product.build",
                             "config.network.pnic", "config.network.vswitch", "config.network.vnic")
    by_name = {props["name"]: (moid, props) for moid, props in gov.items()}
    assert sorted(h.name for h in col.hosts) == sorted(by_name) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2", "DC0_H0"]
    for hi in col.hosts:
        moid, props = by_name[hi.name]
        host, problems, _ = assemble_host(hi)
        assert problems == [] and host.kind == "esxi"
        assert host.product_version == props["summary.config.product.version"]
        assert host.build == props["summary.config.product.build"]
        want = {p["device"]: p for p in props["config.network.pnic"]}
        assert [p.name for p in host.pnics] == sorted(want)
        for p in host.pnics:
            g = want[p.name]
            assert (p.driver, p.pci_address, p.mac, p.link_speed_mbps) == (
                g["driver"], g["pci"], g["mac"], g["linkSpeed"]["speedMb"])
            assert p.is_virtual_uplink is True  # vcsim offers nvmxnet3 uplinks
            assert p.vid == "15ad"
            assert p.evidence["link_speed_mbps"].line == f"pnic[{p.name}].linkSpeed.speedMb = {g['linkSpeed']['speedMb']}"
            assert p.evidence["link_speed_mbps"].source == f"vcenter://127.0.0.1:{vcsim.port}/{moid}"
        vswitches = {s.name: s for s in host.switches if s.kind == "standard"}
        assert {s["name"]: s["mtu"] for s in props["config.network.vswitch"]} == {n: s.mtu for n, s in vswitches.items()}
        for s in props["config.network.vswitch"]:
            assert vswitches[s["name"]].uplinks == [k.rsplit("-", 1)[-1] for k in s.get("pnic") or []]
        assert {v["device"]: v["spec"]["mtu"] for v in props["config.network.vnic"]} == {v.name: v.mtu for v in host.vmknics}
        # the vcsim VDS has every host as member (summary.hostMember) but no MTU: unknown, not 0
        dvs = [s for s in host.switches if s.kind == "distributed"]
        assert [s.name for s in dvs] == ["DVS0"] and dvs[0].mtu is None
    # the recorded API response replays into the same facts
    cap, result = col.hosts[0].parsed[0]
    assert cap.command.startswith("vSphere API: PropertyCollector.RetrievePropertiesEx HostSystem name ")
    assert cap.source.startswith(f"vcenter://127.0.0.1:{vcsim.port}/host-")
    assert "pinned" in cap.notes[0]
    assert facts_from_recording(cap.text).pnics == result.pnics


def test_two_vcenters_in_one_call(vcsim, vcsim_factory):
    other = vcsim_factory("-cluster", "2", "-host", "2", "-standalone-host", "0", "-vm", "0")
    seen: list[tuple[float, str]] = []
    col = collect_vsphere([target(vcsim), target(other)], progress=lambda f, m: seen.append((f, m)))
    assert _module_only(col.problems)
    assert [s.target for s in col.sessions] == [f"127.0.0.1:{vcsim.port}", f"127.0.0.1:{other.port}"]
    assert [s.hosts for s in col.sessions] == [4, 4]
    names = [h.name for h in col.hosts]
    assert len(names) == len(set(names)) == 8
    # both simulators name hosts DC0_C0_H0…: such names are qualified with their vCenter
    assert f"DC0_C0_H0@127.0.0.1:{other.port}" in names and "DC0_C1_H1" in names
    assert seen and seen[-1][0] == pytest.approx(1.0) and all(0 <= f <= 1 for f, _ in seen)


def test_vcenter_killed_mid_audit(vcsim, vcsim_factory):
    doomed = vcsim_factory("-cluster", "1", "-host", "4", "-standalone-host", "0", "-vm", "0")
    label = f"127.0.0.1:{doomed.port}"

    def progress(_fraction: float, message: str) -> None:
        if message.startswith(label) and message.endswith("(1/4)"):
            doomed.kill()

    col = collect_vsphere([target(doomed), target(vcsim)], progress=progress)
    dead = [p for p in col.problems if p.source == f"vcenter://{label}" and "failed" in p.message]
    assert len(dead) == 1 and label in dead[0].message
    assert "driver modules of host DC0_C0_H1 (2 of 4) failed: " in dead[0].message
    assert "connection refused" in dead[0].message or "closed the connection" in dead[0].message
    assert col.sessions[0].error == dead[0].message and col.sessions[1].error is None
    healthy = [h for h in col.hosts if h.parsed[0][0].source.startswith(f"vcenter://127.0.0.1:{vcsim.port}/")]
    assert len(healthy) == 4 and all(assemble_host(h)[0].pnics for h in healthy)


def test_wrong_password_is_a_clear_problem(vcsim):
    t = VsphereTarget(host="127.0.0.1", port=vcsim.port, user=USER, password="not-the-password",
                      thumbprint=fetch_thumbprint("127.0.0.1", vcsim.port), timeout_s=10)
    col = collect_vsphere([t])
    assert col.hosts == []
    (p,) = col.problems
    assert p.source == f"vcenter://127.0.0.1:{vcsim.port}"
    assert f"login refused for user '{USER}': wrong user name or password" in p.message
    assert "not-the-password" not in p.message and "not-the-password" not in repr(t)


def test_scope_filters(vcsim):
    col = collect_vsphere([target(vcsim, cluster="DC0_C0", modules=False)])
    assert sorted(h.name for h in col.hosts) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2"] and col.problems == []
    col = collect_vsphere([target(vcsim, datacenter="DC0", host_names=("dc0_h0", "ghost"), modules=False)])
    assert [h.name for h in col.hosts] == ["DC0_H0"]
    assert [p.message for p in col.problems] == [f"vCenter 127.0.0.1:{vcsim.port}: host 'ghost' not found in the scope"]
    col = collect_vsphere([target(vcsim, datacenter="DC9")])
    assert col.hosts == [] and "datacenter 'DC9' not found (there are: ['DC0'])" in col.problems[0].message


@needs_govc
def test_disconnected_and_maintenance_hosts_are_reported(vcsim_factory):
    sim = vcsim_factory("-cluster", "1", "-host", "3", "-standalone-host", "0", "-vm", "0")
    sim.govc("host.maintenance.enter", "/DC0/host/DC0_C0/DC0_C0_H1")
    sim.govc("host.disconnect", "/DC0/host/DC0_C0/DC0_C0_H2")
    col = collect_vsphere([target(sim)])
    problems = {h.name: [p.message for p in h.problems] for h in col.hosts}
    assert problems["DC0_C0_H0"] == []
    assert problems["DC0_C0_H1"] == [f"host DC0_C0_H1 is in maintenance mode in vCenter 127.0.0.1:{sim.port}"]
    assert problems["DC0_C0_H2"][0].startswith("host DC0_C0_H2 is disconnected in vCenter")
    # modules are not queried on the disconnected host
    assert any("on 2 host(s)" in p.message for p in col.problems)


def test_cancel_between_hosts(vcsim):
    cancel = threading.Event()

    def progress(_f: float, message: str) -> None:
        if message.endswith("(1/4)"):
            cancel.set()

    with pytest.raises(Cancelled):
        collect_vsphere([target(vcsim)], progress=progress, cancel=cancel)


def test_unreachable_vcenter(vcsim):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    col = collect_vsphere([VsphereTarget(host="127.0.0.1", port=port, user=USER, password=PASSWORD, timeout_s=5),
                           target(vcsim, modules=False)])
    assert "connection refused" in col.problems[0].message and f"127.0.0.1:{port}" in col.problems[0].message
    assert len(col.hosts) == 4


def test_every_call_has_a_timeout(vcsim_factory):
    slow = vcsim_factory("-cluster", "1", "-host", "1", "-standalone-host", "0", "-vm", "0",
                         "-method-delay", "RetrievePropertiesEx:4000")
    col = collect_vsphere([target(slow, timeout_s=1)])
    (p,) = col.problems
    assert "no answer within 1 s" in p.message and "reading distributed switches (page 1)" in p.message
    assert col.sessions[0].elapsed_s < 4


def test_standalone_esxi_endpoint(vcsim_factory):
    """A target can be an ESXi host itself (vcsim -esx): same facts, no VDS."""
    esx = vcsim_factory("-esx")
    col = collect_vsphere([target(esx)])
    assert _module_only(col.problems) and col.sessions[0].about.startswith("VMware ESXi")
    (hi,) = col.hosts
    host = assemble_host(hi)[0]
    assert [(p.name, p.link_speed_mbps) for p in host.pnics] == [("vmnic0", 10000), ("vmnic1", 10000)]
    assert [(s.name, s.kind, s.mtu) for s in host.switches] == [("vSwitch0", "standard", 1500)]


def test_target_from_url():
    t = VsphereTarget.from_url("https://vc.example.com/sdk", "administrator@vsphere.local", "pw", thumbprint=None)
    assert (t.host, t.port, t.source) == ("vc.example.com", 443, "vcenter://vc.example.com:443")
    assert VsphereTarget.from_url("vc.example.com:8443", "u", "p").port == 8443
    with pytest.raises(ValueError, match="only https"):
        VsphereTarget.from_url("http://vc.example.com", "u", "p")


def test_no_visible_host_is_a_clear_problem(vcsim_factory):
    """What a user without the Read-only role sees (vcsim does not enforce privileges, so an inventory
    without hosts stands in): a problem naming the user and the role, not an empty, silent audit."""
    empty = vcsim_factory("-cluster", "0", "-host", "0", "-standalone-host", "0", "-vm", "0")
    col = collect_vsphere([target(empty, modules=False)])
    assert col.hosts == []
    (p,) = col.problems
    assert f"no host is visible to user '{USER}'" in p.message and "Read-only role" in p.message


@needs_govc
def test_the_release_comes_from_the_vsphere_api_product_and_build(vcsim):
    """Issue 16 §3: the vSphere API's ``summary.config.product`` version and build give each host's release (through
    the build table), which the judgement states once per host and every view shows."""
    from nicadvisor.report.json_export import host_to_dict
    from nicadvisor.vcg.builds import guide_release, release_text
    from nicadvisor.judgement import judge

    col = collect_vsphere([target(vcsim)])
    gov = vcsim.govc_collect("name", "summary.config.product.version", "summary.config.product.build")
    by_name = {props["name"]: props for props in gov.values()}
    hosts = [assemble_host(hi)[0] for hi in col.hosts]
    findings = judge(hosts, guide=None)
    for host in hosts:
        props = by_name[host.name]
        want = guide_release(props["summary.config.product.version"], props["summary.config.product.build"])
        assert want is not None  # vcsim's build is one the build table holds
        (stated,) = [f for f in findings if f.host == host.name and f.rule_id.startswith("esxi-release")]
        assert stated.rule_id == "esxi-release" and stated.title == f"ESXi release: {want}"
        assert "summary.config.product" in stated.evidence[0].line
        assert host_to_dict(host, findings)["release"] == {"label": want, "text": release_text(host)}
        assert release_text(host).startswith(f"{want} ({props['summary.config.product.version']}, build ")
