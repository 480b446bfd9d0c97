"""The faults of issue "Audit live estates" §7, through one audit with a history store each: every failure is
reported for its target with a clear message, the other hosts are audited, and the audit is saved (status
``done``, loaded back equal).

1. an unprivileged NSX account (403 on transport nodes), a wrong SSH password, an unreachable vCenter, next to
   a good capture folder;
2. vcsim killed mid-audit (next to a healthy vcsim), sshd killed mid-command, binary garbage output, an SSH
   command timeout and an NSX Manager too slow to answer, next to the same good capture folder.
"""
from __future__ import annotations

import socket

import pytest
from faultlab import NSX30_ROUTES, NSX_PASSWORD, NSX_USER, ForbiddingNsx
from nsx_responder import NsxResponder
from vcsimtools import PASSWORD as VC_PASSWORD
from vcsimtools import USER as VC_USER

from nicadvisor.collect.known_hosts import KnownHosts
from nicadvisor.collect.nsx import NsxTarget
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget
from nicadvisor.services.audit import DEMO_LAB, AuditRequest, run_audit
from nicadvisor.store import AuditStore

pytestmark = pytest.mark.root

#: A good host: the real `esxcli network nic list` of intel/mfd-network-adapter (demo lab folder).
GOOD = DEMO_LAB / "esxi-mfd-x550-e810"
GOOD_NICS = [("vmnic0", "ixgben", 1000, "0000:18:00.0"), ("vmnic1", "ixgben", None, "0000:18:00.1"),
             ("vmnic2", "icen", 100000, "0000:5e:00.0"), ("vmnic3", "icen", 100000, "0000:5e:00.1")]
SSH_PASSWORD_WRONG = "Wrong-pw-9c2e71"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _problems(audit, source: str) -> list[str]:
    return [p.message for p in audit.inputs_not_understood if p.source.startswith(source)]


def _good_host_audited(audit) -> None:
    host = next(h for h in audit.hosts if h.name == GOOD.name)
    assert [(p.name, p.driver, p.link_speed_mbps, p.pci_address) for p in host.pnics] == GOOD_NICS
    assert any(f.host == GOOD.name for f in audit.findings)
    assert not _problems(audit, str(GOOD))


def _saved(store: AuditStore, audit) -> None:
    assert store.summary(audit.history_id).status == "done"
    loaded = store.load(audit.history_id)
    assert loaded == audit  # hosts, findings, inputs, every problem, in order


def test_unprivileged_nsx_wrong_ssh_password_unreachable_vcenter(ssh_lab, esxi_lab, nsx_cert, tmp_path):
    vc_port = _closed_port()
    vcenter = VsphereTarget(host="127.0.0.1", port=vc_port, user=VC_USER, password=VC_PASSWORD, timeout_s=5)
    ssh = ssh_lab.target(ssh_lab.esxi, key_filename=None, password=SSH_PASSWORD_WRONG)
    store = AuditStore(tmp_path / "h.sqlite3")
    with ForbiddingNsx(NSX30_ROUTES, nsx_cert.ctx, ("/api/v1/transport-nodes",), user=NSX_USER,
                       password=NSX_PASSWORD) as srv:
        nsx = NsxTarget(srv.url, NSX_USER, NSX_PASSWORD, thumbprint=nsx_cert.thumbprint, timeout_s=5)
        request = AuditRequest(capture_paths=(str(GOOD),), vsphere=(vcenter,), ssh=(ssh,), nsx=(nsx,),
                               known_hosts=KnownHosts(tmp_path / "known_hosts"))
        audit = run_audit(request, store=store)
    try:
        assert audit.inputs == [str(GOOD), f"vcenter://127.0.0.1:{vc_port}", ssh.source, f"nsx://127.0.0.1:{srv.port}"]
        (vc_msg,) = _problems(audit, f"vcenter://127.0.0.1:{vc_port}")
        assert vc_msg == (f"vCenter 127.0.0.1:{vc_port}: checking the TLS certificate failed: "
                          "connection refused (is the vCenter up and the port right?)")
        (ssh_msg,) = _problems(audit, ssh.source)
        assert ssh_msg == f"authentication of {ssh_lab.user.name}@{ssh.name} failed: the password was refused"
        (nsx_msg,) = _problems(audit, f"nsx://127.0.0.1:{srv.port}")
        assert nsx_msg.startswith(f"127.0.0.1:{srv.port}: no permission to read GET /api/v1/transport-nodes as "
                                  f"user '{NSX_USER}' (HTTP 403, error_code 401")
        assert "built-in Auditor role" in nsx_msg and srv.logins == 1
        assert len(audit.inputs_not_understood) == 3
        for secret in (VC_PASSWORD, SSH_PASSWORD_WRONG, NSX_PASSWORD):
            assert not any(secret in p.message for p in audit.inputs_not_understood)
        assert [h.name for h in audit.hosts] == [GOOD.name]
        _good_host_audited(audit)
        _saved(store, audit)
    finally:
        store.close()


def test_vcsim_killed_sshd_killed_garbage_and_timeouts(ssh_lab, esxi_lab, nsx_cert, vcsim_factory, tmp_path):
    healthy = vcsim_factory("-cluster", "1", "-host", "2", "-standalone-host", "0", "-vm", "0")
    doomed = vcsim_factory("-cluster", "1", "-host", "3", "-standalone-host", "0", "-vm", "0")
    vcs = [VsphereTarget(host="127.0.0.1", port=sim.port, user=VC_USER, password=VC_PASSWORD, timeout_s=10,
                         thumbprint=fetch_thumbprint("127.0.0.1", sim.port, 10)) for sim in (doomed, healthy)]
    doomed_label = f"127.0.0.1:{doomed.port}"

    def progress(_fraction: float, message: str) -> None:
        if message.startswith(doomed_label) and message.endswith("(1/3)"):
            doomed.kill()

    esxi_lab.behaviour(esxi_lab.esxi, die=["esxcli network ip interface list"])
    esxi_lab.behaviour(esxi_lab.esxi2, garbage=["esxcli network vswitch standard list"],
                       sleep={"esxcfg-vmknic -l": 3600})  # only the command timeout ends it
    dies = esxi_lab.target(esxi_lab.esxi)
    # a timeout every other command of that host meets on a loaded machine too (1.5 s did not: a busy machine turned
    # more of its commands into time-outs)
    garbled = esxi_lab.target(esxi_lab.esxi2, command_timeout_s=10.0)
    store = AuditStore(tmp_path / "h.sqlite3")
    with NsxResponder(NSX30_ROUTES, nsx_cert.ctx, user=NSX_USER, password=NSX_PASSWORD, delay_s=3600) as srv:
        nsx = NsxTarget(srv.url, NSX_USER, NSX_PASSWORD, thumbprint=nsx_cert.thumbprint, timeout_s=0.5)
        request = AuditRequest(capture_paths=(str(GOOD),), vsphere=tuple(vcs), ssh=(dies, garbled), nsx=(nsx,),
                               known_hosts=KnownHosts(tmp_path / "known_hosts"))
        audit = run_audit(request, progress=progress, store=store)
    try:
        # vcsim killed: one problem naming it and the stage; the hosts read before are kept; the other vCenter is whole
        (dead,) = _problems(audit, f"vcenter://{doomed_label}")
        assert dead.startswith(f"vCenter {doomed_label}: reading the driver modules of host ")
        assert "connection refused" in dead or "closed the connection" in dead
        assert "3 host(s) read before that are kept" in dead
        healthy_hosts = [h for h in audit.hosts if any(s.startswith(f"vcenter://127.0.0.1:{healthy.port}/")
                                                       for s in h.inputs)]
        assert sorted(h.name for h in healthy_hosts) == [f"DC0_C0_H0@127.0.0.1:{healthy.port}",
                                                         f"DC0_C0_H1@127.0.0.1:{healthy.port}"]
        assert all(h.pnics for h in healthy_hosts)
        # sshd killed mid-command: named, with what was read before kept
        (lost,) = [m for m in _problems(audit, dies.source) if "closed" in m]
        assert lost.startswith(f"the SSH connection to {dies.name} closed while running "
                               "'esxcli network ip interface list'")
        dies_host = next(h for h in audit.hosts if h.name == dies.name)
        assert [p.name for p in dies_host.pnics] == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
        # garbage and timeout on the other ESXi: two problems, the rest of that host read
        garbled_msgs = _problems(audit, garbled.source)
        assert "'esxcli network vswitch standard list' returned binary data, not command output; ignored" in garbled_msgs
        assert "'esxcfg-vmknic -l' did not finish within 10 s; its output is missing" in garbled_msgs
        garbled_host = next(h for h in audit.hosts if h.name == garbled.name)
        assert [(p.name, p.driver) for p in garbled_host.pnics][:2] == [("vmnic0", "ixgben"), ("vmnic1", "ixgben")]
        # NSX too slow: one problem naming the manager and the request
        netloc = f"127.0.0.1:{srv.port}"
        assert _problems(audit, f"nsx://{netloc}") == [
            f"NSX version not read: {netloc}: no answer to GET /api/v1/node/version within 0.5 s (timeout)",
            f"{netloc}: no answer to GET /api/v1/transport-nodes within 0.5 s (timeout)"]
        _good_host_audited(audit)
        _saved(store, audit)
    finally:
        store.close()
