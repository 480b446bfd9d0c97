"""Live audits write the history host by host, and ``--save-captures`` covers every live source (issue
"Audit live estates" §5: "Each audit is written to SQLite host by host as results arrive ... a crash or kill
loses nothing already collected").

Real servers on 127.0.0.1: vcsim with 4 hosts (``DC0_C0_H0`` … ``DC0_C0_H3``, vmxnet3 uplinks ``vmnic0`` at
``0000:0b:00.0`` and ``vmnic1`` at ``0000:13:00.0``, 10000 Mbit/s, driver ``nvmxnet3`` as vcsim reports them),
and an "SSH host" that accepts TCP and never says anything (a host that hangs).
"""
from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from e2e_lab import ToolMissing, cert_thumbprint, start_vcsim

from nicadvisor.cancel import Cancelled
from nicadvisor.cli import main
from nicadvisor.cli_live import LiveArgsError, check_save_folder
from nicadvisor.collect.known_hosts import KnownHosts
from nicadvisor.collect.ssh import SshTarget
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.store import AuditStore

HOSTS = ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2", "DC0_C0_H3"]
VC_USER, VC_PASSWORD = "auditor", "s3cret-Pw"  # tests/live/vcsimtools.py defaults


@pytest.fixture(scope="module")
def vc4(tmp_path_factory):
    """vcsim: 1 cluster of 4 hosts, no standalone host, no VM."""
    try:
        sim = start_vcsim(tmp_path_factory.mktemp("hist-vcsim"), "-cluster", "1", "-host", "4",
                          "-standalone-host", "0", "-vm", "0")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    try:
        yield sim
    finally:
        sim.stop()


@pytest.fixture
def silent_ssh():
    """A TCP listener that accepts and never sends the SSH banner; yields its port."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    try:
        yield srv.getsockname()[1]
    finally:
        srv.close()


def _vc_target(sim) -> VsphereTarget:
    return VsphereTarget(host="127.0.0.1", port=sim.port, user=VC_USER, password=VC_PASSWORD,
                         thumbprint=cert_thumbprint("127.0.0.1", sim.port), timeout_s=20)


#: The hanging SSH host's timeouts: far longer than any test waits, so that only a cancel or a kill ends the audit
#: however loaded the machine is (pytest-timeout stops a test whose cancel never comes).
HANG_S = 3600


def _hanging_ssh(port: int) -> SshTarget:
    return SshTarget(host="127.0.0.1", port=port, user="root", kind="esxi", password="never-used",
                     connect_timeout_s=HANG_S, command_timeout_s=HANG_S)


def _pnic_facts(host) -> dict[str, dict]:
    return {p.name: {k: v for k, v in dataclasses.asdict(p).items() if k != "evidence"} for p in host.pnics}


def _wait_for_hosts(path: Path, n: int, timeout: float = 240, child: subprocess.Popen | None = None) -> None:
    """Wait until the history at ``path`` holds ``n`` hosts (a generous deadline: a condition, not a duration);
    fail at once if ``child`` (the auditing process) ended first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the audit ended (exit {child.returncode}) before the history held {n} hosts")
        if path.exists():
            with AuditStore(path) as store:
                lines = store.list_audits()
                if lines and lines[0].hosts >= n:
                    return
        time.sleep(0.1)
    raise AssertionError(f"the history never held {n} hosts")


def test_on_host_gets_each_host_before_the_collection_ends(vc4):
    seen: list[tuple[str, int]] = []
    col = collect_vsphere([_vc_target(vc4)], on_host=lambda hi: seen.append((hi.name, threading.get_ident())))
    assert sorted(n for n, _ in seen) == HOSTS == sorted(h.name for h in col.hosts)
    assert {t for _, t in seen} != {threading.get_ident()}  # from the vCenter's worker thread


def test_live_audit_stored_host_by_host_and_replayed_from_saved_captures(vc4, tmp_path):
    caps = tmp_path / "caps"
    added: list[str] = []
    with AuditStore(tmp_path / "h.sqlite3") as store:
        real_add = store.add_host
        store.add_host = lambda aid, host, problems=(): (added.append(host.name), real_add(aid, host, problems))
        live = run_audit(AuditRequest(vsphere=(_vc_target(vc4),), save_captures=str(caps)), store=store)
        line = store.summary(live.history_id)
        back = store.load(live.history_id)
    assert sorted(added) == HOSTS and (line.status, line.hosts, line.pnics) == ("done", 4, 8)
    assert sorted(h.name for h in back.hosts) == HOSTS
    assert sorted(p.name for p in caps.iterdir()) == HOSTS
    first = (caps / "DC0_C0_H0" / "001_vSphere_API_PropertyCollector.RetrievePropertiesEx_HostSyste.txt").read_text()
    assert first.startswith("# source: vcenter://127.0.0.1:") and "# host: DC0_C0_H0" in first

    replay = run_audit(AuditRequest(capture_paths=(str(caps),)))
    assert not [p for p in replay.inputs_not_understood if "not understood" in p.message]
    live_hosts = {h.name: _pnic_facts(h) for h in live.hosts}
    replay_hosts = {h.name: _pnic_facts(h) for h in replay.hosts}
    assert replay_hosts == live_hosts
    h0 = replay_hosts["DC0_C0_H0"]
    assert (h0["vmnic0"]["pci_address"], h0["vmnic0"]["driver"], h0["vmnic0"]["link_speed_mbps"]) == \
        ("0000:0b:00.0", "nvmxnet3", 10000)
    assert h0["vmnic1"]["pci_address"] == "0000:13:00.0"


def test_cancel_keeps_the_hosts_already_stored(vc4, silent_ssh, tmp_path):
    db = tmp_path / "h.sqlite3"
    cancel = threading.Event()
    request = AuditRequest(vsphere=(_vc_target(vc4),), ssh=(_hanging_ssh(silent_ssh),),
                           known_hosts=KnownHosts(tmp_path / "kh"))
    store = AuditStore(db)
    watcher = threading.Thread(target=lambda: (_wait_for_hosts(db, 4), cancel.set()), daemon=True)
    watcher.start()
    with pytest.raises(Cancelled):  # the SSH host hangs for HANG_S: only the cancel can end the audit now
        run_audit(request, cancel=cancel, store=store)
    watcher.join(60)
    line = store.list_audits()[0]
    assert (line.status, line.hosts, line.pnics) == ("cancelled", 4, 8)
    assert sorted(h.name for h in store.load(line.id).hosts) == HOSTS
    store.close()


def test_kill_9_during_a_live_audit_loses_no_stored_host(vc4, silent_ssh, tmp_path):
    db = tmp_path / "h.sqlite3"
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(f"""
        from nicadvisor.collect.known_hosts import KnownHosts
        from nicadvisor.collect.ssh import SshTarget
        from nicadvisor.collect.vsphere import VsphereTarget
        from nicadvisor.services.audit import AuditRequest, run_audit
        from nicadvisor.store import AuditStore

        vc = VsphereTarget(host="127.0.0.1", port={vc4.port}, user={VC_USER!r}, password={VC_PASSWORD!r},
                           thumbprint={cert_thumbprint("127.0.0.1", vc4.port)!r}, timeout_s=20)
        ssh = SshTarget(host="127.0.0.1", port={silent_ssh}, user="root", kind="esxi", password="never-used",
                        connect_timeout_s={HANG_S}, command_timeout_s={HANG_S})
        run_audit(AuditRequest(vsphere=(vc,), ssh=(ssh,), known_hosts=KnownHosts({str(tmp_path / "kh")!r})),
                  store=AuditStore({str(db)!r}))
        print("finished")
    """))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, PYTHONWARNINGS="ignore"))
    try:
        _wait_for_hosts(db, 4, child=child)
        assert child.poll() is None  # still waiting for the SSH host (it hangs for HANG_S)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        out, _err = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL and b"finished" not in out
    with AuditStore(db) as store:
        line = store.list_audits()[0]
        assert (line.status, line.hosts, line.pnics) == ("interrupted", 4, 8)
        hosts = store.load(line.id).hosts
    assert sorted(h.name for h in hosts) == HOSTS
    h0 = next(h for h in hosts if h.name == "DC0_C0_H0")
    assert h0.pnic("vmnic0").driver == "nvmxnet3" and h0.pnic("vmnic0").link_speed_mbps == 10000


def test_bad_save_captures_folder_is_refused_before_collecting(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(LiveArgsError, match="a-file"):
        check_save_folder(str(blocker))
    with pytest.raises(LiveArgsError, match="a-file/sub"):
        check_save_folder(str(blocker / "sub"))
    check_save_folder(str(tmp_path / "new" / "deep"))
    assert (tmp_path / "new" / "deep").is_dir()
    code = main(["audit", "--no-history", "--ssh", "root@127.0.0.1:1", "--save-captures", str(blocker)])
    assert code != 0 and "--save-captures" in capsys.readouterr().err


def test_failed_save_is_a_problem_and_the_audit_goes_on(vc4, tmp_path):
    caps = tmp_path / "caps"
    caps.mkdir()
    (caps / "DC0_C0_H1").write_text("a file where the host's folder goes")
    audit = run_audit(AuditRequest(vsphere=(_vc_target(vc4),), save_captures=str(caps)))
    assert sorted(h.name for h in audit.hosts) == HOSTS
    bad = [p for p in audit.inputs_not_understood if p.message.startswith("--save-captures")]
    assert len(bad) == 1 and "DC0_C0_H1" in bad[0].message and bad[0].source == str(caps)
    assert (caps / "DC0_C0_H0").is_dir() and (caps / "DC0_C0_H2").is_dir()
