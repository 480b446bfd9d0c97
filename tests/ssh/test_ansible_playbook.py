"""packaging/ansible/collect.yml run by ansible-playbook against two lab hosts: an ESXi-personality host (a real sshd
on loopback whose shell is busybox sh with only the ESXi Shell's applets and fake ESXi tools printing the SSH lab's
real recorded outputs: tests/ssh/fake_esxi.py; no Python on its PATH) and a real Linux host (a plain sshd in a
network namespace). SSH host keys are verified from a known_hosts file written here from the lab's keys; then one
``nic-advisor audit --capture DIR/*`` reads both hosts."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sshd_harness as H
from capturetools import CAPTURES, REPO, undecided_but_answered
from fake_esxi import esxi_path
from nicadvisor.cli import main
from nicadvisor.collect.sources import gather
from nicadvisor.parsers.assemble import assemble_host

pytestmark = pytest.mark.root

PLAYBOOK = REPO / "packaging" / "ansible" / "collect.yml"
ANSIBLE = shutil.which("ansible-playbook")


@pytest.fixture
def esxi_shell(lab):
    """An sshd on loopback whose every command runs in the fake ESXi Shell (``busybox sh -c``, PATH: the fake ESXi
    tools and busybox applets only), each command logged. Yields (sshd, log file)."""
    base = Path(H.make_base("nicadv-ansible-"))
    try:
        path = esxi_path(base / "env", CAPTURES)
        log = base / "commands.log"
        log.touch()
        log.chmod(0o666)
        shell = base / "esxi-shell"
        shell.write_text("#!/bin/sh\n"
                         f"printf '%s\\n--\\n' \"$SSH_ORIGINAL_COMMAND\" >> {shlex.quote(str(log))}\n"
                         f"exec env -i PATH={shlex.quote(path)} HOME=/tmp /usr/bin/busybox sh -c "
                         "\"$SSH_ORIGINAL_COMMAND\"\n")
        shell.chmod(0o755)
        for p in (base / "env", *(base / "env").rglob("*")):
            if p.is_dir():
                p.chmod(0o755)
        sshd = lab.new_sshd(force_command=str(shell)).start()
        try:
            yield sshd, log
        finally:
            sshd.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _known_hosts(path: Path, entries: list[tuple[str, int, Path]]) -> Path:
    """A known_hosts file naming each (address, port) with the public key in ``pub``."""
    lines = []
    for host, port, pub in entries:
        key_type, key = Path(str(pub) + ".pub").read_text().split()[:2]
        lines.append(f"[{host}]:{port} {key_type} {key}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _run_playbook(tmp: Path, lab, esxi, linux, known_hosts: Path) -> subprocess.CompletedProcess:
    inventory = tmp / "inventory.yml"
    common = f"-o UserKnownHostsFile={known_hosts} -o GlobalKnownHostsFile=/dev/null -o IdentitiesOnly=yes"
    inventory.write_text(f"""all:
  vars:
    ansible_user: {lab.user.name}
    ansible_ssh_private_key_file: {lab.client_key}
    ansible_ssh_common_args: "{common}"
  children:
    esxi:
      vars: {{nic_advisor_kind: esxi}}
      hosts:
        esxi-lab: {{ansible_host: {esxi.listen}, ansible_port: {esxi.port}}}
    linux:
      vars: {{nic_advisor_kind: linux}}
      hosts:
        linux-lab: {{ansible_host: {linux.listen}, ansible_port: {linux.port}}}
""")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_HOME=str(tmp / "ansible-home"), ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-tmp"),
               ANSIBLE_SSH_CONTROL_PATH_DIR=str(tmp / "cp"), ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0",
               ANSIBLE_HOST_KEY_CHECKING="False")  # the play itself must turn it on again
    argv = [ANSIBLE, "-i", str(inventory), str(PLAYBOOK), "-e", f"capture_dir={tmp / 'captures'}",
            "-e", f"nic_advisor='{sys.executable} -m nicadvisor.cli'"]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False, cwd=tmp)


@pytest.mark.skipif(ANSIBLE is None, reason="ansible-playbook is not installed (packaging/setup-debian.sh --test)")
def test_playbook_collects_two_lab_hosts_then_one_audit_reads_them(tmp_path, lab, esxi_shell, linux_netns, capsys):
    esxi, log = esxi_shell
    linux, inside, mac = linux_netns
    kh = _known_hosts(tmp_path / "known_hosts", [(esxi.listen, esxi.port, esxi.host_key),
                                                 (linux.listen, linux.port, linux.host_key)])
    res = _run_playbook(tmp_path, lab, esxi, linux, kh)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "esxi-lab                   : ok=" in res.stdout and "failed=0" in res.stdout
    folders = sorted(p.name for p in (tmp_path / "captures").iterdir())
    assert folders == ["esxi-lab", "linux-lab"]
    # the ESXi host ran only the script, through busybox sh: no Python, no module, nothing copied there
    sent = [c for c in log.read_text().split("\n--\n") if c.strip()]
    assert len(sent) == 1 and sent[0].startswith("sh -c ") and "python" not in sent[0].lower()

    # one audit of DIR/* reads both hosts whole
    capture_args = [str(p) for p in sorted((tmp_path / "captures").iterdir())]
    code = main(["audit", "--capture", *capture_args, "--no-history", "--quiet", "--json", str(tmp_path / "a.json")])
    out = capsys.readouterr()
    assert code in (1, 2) and "esxi-lab (esxi" in out.out and "linux-lab (linux)" in out.out
    groups, problems = gather([Path(p) for p in capture_args])
    assert problems == [] and sorted(g.name for g in groups) == ["esxi-lab", "linux-lab"]
    hosts = {g.name: (assemble_host(g)[0], g) for g in groups}
    esx, esx_inputs = hosts["esxi-lab"]
    assert [p.name for p in esx.pnics] == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    assert esx.pnic("vmnic3").geneve_offload is not None and esx.pnic("vmnic0").rss is not None
    assert {n.command for n in esx.not_run} >= {"vmware -vl", "esxcfg-nics -e"}
    lnx, lnx_inputs = hosts["linux-lab"]
    assert (lnx.pnic(inside).mtu, lnx.pnic(inside).mac) == (9000, mac)
    assert [(n.command, n.reason, n.partial) for n in lnx.not_run if n.partial] == [
        (f"ethtool {inside}", "privilege", True)]  # the lab's user is not root
    for host, inputs in hosts.values():
        assert undecided_but_answered(host, inputs.captures) == []


@pytest.mark.skipif(ANSIBLE is None, reason="ansible-playbook is not installed (packaging/setup-debian.sh --test)")
def test_playbook_refuses_a_host_whose_key_is_not_the_known_one(tmp_path, lab, esxi_shell, linux_netns):
    esxi, log = esxi_shell
    linux, _inside, _mac = linux_netns
    # the ESXi lab's entry holds another key (a reinstalled host, or a man in the middle)
    other = H.keygen(tmp_path / "other_host_key", "not-the-lab-host")
    kh = _known_hosts(tmp_path / "known_hosts", [(esxi.listen, esxi.port, other),
                                                 (linux.listen, linux.port, linux.host_key)])
    res = _run_playbook(tmp_path, lab, esxi, linux, kh)
    assert res.returncode != 0
    assert "Host key verification failed" in res.stdout + res.stderr
    assert log.read_text() == ""  # nothing ran on the host
    assert sorted(p.name for p in (tmp_path / "captures").iterdir()) == ["linux-lab"]  # the other host is audited
