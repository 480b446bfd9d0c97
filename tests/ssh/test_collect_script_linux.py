"""The Linux collector script (nicadvisor.collect.script) run for real inside a network namespace (a veth pair, the
SSH lab's Linux host), as root and as a non-root user, under busybox sh and dash: its output is audited and compared
with what the local collector (as root) and the SSH collector (as the same user) read from the same namespace."""
from __future__ import annotations

import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from capturetools import undecided_but_answered
from fake_esxi import BUSYBOX
from machinelock import machine_lock
from nicadvisor.collect.local_linux import collect_local
from nicadvisor.collect.script import collector_script
from nicadvisor.collect.sources import gather
from nicadvisor.collect.ssh import collect_ssh
from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.parsers.capture_file import not_run_of
from nicadvisor.services.audit import AuditRequest, run_audit

pytestmark = pytest.mark.root

SHELLS = {"busybox": [BUSYBOX, "sh"], "dash": ["/bin/dash"]}


def run_in_netns(tmp: Path, netns: str, name: str, shell: str = "dash", user: str | None = None) -> Path:
    """Run the Linux script with ``--stdout`` inside ``netns`` (as ``user`` when given, else root) with a PATH a
    non-root login has (no sbin: the script adds it); returns the collection file."""
    where = Path(tempfile.mkdtemp(prefix="nicadv-script-"))  # readable by the user (pytest's tmp is root's only)
    where.chmod(0o755)
    script = where / "nic-advisor-collect-linux.sh"
    script.write_text(collector_script("linux"))
    script.chmod(0o755)
    as_user: list[str] = []
    if user is not None:
        pw = pwd.getpwnam(user)
        as_user = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups"]
    argv = ["ip", "netns", "exec", netns, *as_user, "env", "-i", "PATH=/usr/bin:/bin", "HOME=/",
            *SHELLS[shell], str(script), "--stdout", "-n", name]
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    assert res.returncode == 0, res.stderr
    out = tmp / f"{name}.txt"
    out.write_text(res.stdout)
    (tmp / f"{name}.stderr").write_text(res.stderr)
    return out


def _plain(command: str) -> str:
    """A command line without the path of its program (``/usr/sbin/ip -d -j link show`` → ``ip -d -j link show``)."""
    head, _, rest = command.partition(" ")
    return f"{head.rpartition('/')[2]} {rest}".strip()


def _read(path: Path):
    (inputs,), problems = gather([path])
    assert problems == []
    host, host_problems, _ = assemble_host(inputs)
    return inputs, host, host_problems


@pytest.mark.xdist_group("lldpd-default-socket")  # "no LLDP daemon listens": see collect/test_local_lldp_netns.py
@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_as_root_the_script_reads_what_the_local_collector_reads(shell, tmp_path, linux_netns):
    sshd, inside, mac = linux_netns
    netns = sshd.netns
    with machine_lock("lldpd-default-socket", shared=True):  # "no LLDP daemon listens" (below) holds meanwhile
        inputs, host, problems = _read(run_in_netns(tmp_path, netns, "lnx-root", shell))
        local = collect_local(netns=netns)
    assert problems == [] and host.kind == "linux"
    local_host, _, _ = assemble_host(HostInputs(name="x", captures=local.captures))
    assert [p.facts() for p in host.pnics] == [p.facts() for p in local_host.pnics]
    assert (host.pnic(inside).mtu, host.pnic(inside).mac, host.pnic(inside).driver) == (9000, mac, "veth")
    # every command that answered is one the local collector reads, and it reads nothing the script did not run
    answered = {_plain(c.command) for c in inputs.captures if not_run_of(c) is None} - {"ls /sys/class/net"}
    assert answered == {_plain(c.command) for c in local.captures}
    # as root nothing is refused; what a veth cannot answer is listed, with the driver's words, and so are the LLDP
    # neighbour reads: no LLDP daemon listens in the lab (lldpd's socket, systemd-networkd's bus: not there)
    assert {(n.command, n.reason) for n in host.not_run} == {
        (f"ethtool {opt} {inside}", "unsupported") for opt in ("-x", "-c", "-g")} | {
        ("lldpctl -f json", "absent"), ("networkctl --no-pager --full lldp", "absent")}
    assert "not root" not in (tmp_path / "lnx-root.stderr").read_text()
    assert undecided_but_answered(host, inputs.captures) == []


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_as_a_user_the_script_runs_what_the_ssh_collector_runs(shell, tmp_path, lab, linux_netns, known_hosts):
    sshd, inside, _mac = linux_netns
    path = run_in_netns(tmp_path, sshd.netns, "lnx-user", shell, user=lab.user.name)
    assert ("not root: these commands answer only partly without root (the others need no privilege): ethtool IF"
            in (tmp_path / "lnx-user.stderr").read_text())
    inputs, host, problems = _read(path)
    assert problems == []
    c = collect_ssh([lab.target(sshd, kind="linux")], known_hosts=known_hosts)
    ssh_host, _, _ = assemble_host(c.hosts[0])
    # the same commands (the discovery is recorded by the script only), the same facts, the same commands not run
    assert [_plain(x.command) for x in inputs.captures][1:] == [_plain(x.command) for x in c.hosts[0].captures]
    assert [p.facts() for p in host.pnics] == [p.facts() for p in ssh_host.pnics]
    assert [(_plain(n.command), n.reason, n.partial) for n in host.not_run] == [
        (_plain(n.command), n.reason, n.partial) for n in ssh_host.not_run]
    # plain ethtool answers partly without root: read, and listed as ran partly for lack of privilege
    (partly,) = [n for n in host.not_run if n.partial]
    assert (partly.command, partly.reason) == (f"ethtool {inside}", "privilege")
    assert "Operation not permitted" in partly.detail and host.pnic(inside).link_up is True
    # audited: the veth is a pseudo device (no capability cells), the verdict says so and names the listing
    audit = run_audit(AuditRequest(capture_paths=(str(path),)))
    assert audit.inputs_not_understood == []
    (hv,) = audit.verdict.hosts
    assert hv.status == "not_rated" and "no physical NIC" in hv.reason and hv.finish == ("ip -d -j link show",)
    assert undecided_but_answered(audit.hosts[0], inputs.captures) == []
