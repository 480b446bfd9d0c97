"""The ESXi collector script (nicadvisor.collect.script) run for real under Debian's busybox sh and dash, with only
the busybox applets the ESXi Shell has and fake ESXi tools that print the real recorded outputs of the SSH lab's
host (tests/ssh/fake_esxi.py); its output is audited and compared with what the SSH collector reads from the same
recorded outputs."""
from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from capturetools import CAPTURES, undecided_but_answered
from fake_esxi import BUSYBOX, esxi_path
from esxi_personality import TABLE
from nicadvisor.collect import ssh_commands
from nicadvisor.collect.script import collector_script
from nicadvisor.collect.sources import gather
from nicadvisor.collect.ssh import collect_ssh
from nicadvisor.model.capabilities import capability_matrix
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.parsers.capture_file import EXIT_NOT_FOUND, exit_note
from nicadvisor.services.audit import AuditRequest, run_audit

SHELLS = {"busybox": [BUSYBOX, "sh"], "dash": ["/bin/dash"]}


def run_script(tmp: Path, *args: str, shell: str = "busybox", path: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """Write the ESXi script and run it with ``shell`` in a clean environment whose PATH is the fake ESXi shell."""
    script = tmp / "nic-advisor-collect-esxi.sh"
    script.write_text(collector_script("esxi"))
    env = {"PATH": path or esxi_path(tmp / "env", CAPTURES), "HOME": str(tmp)}
    return subprocess.run([*SHELLS[shell], str(script), *args], cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_script_output_audits_like_the_ssh_collector(shell, tmp_path, no_faults, known_hosts):
    res = run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab", shell=shell)
    assert res.returncode == 0, res.stderr
    (folder,) = (tmp_path / "out").iterdir()
    assert folder.name.startswith("nic-advisor-esxi-lab-") and f"outputs written to {folder}" in res.stderr
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # its scratch files are removed

    hosts, problems = gather([folder])
    assert problems == [] and [h.name for h in hosts] == ["esxi-lab"]
    script_host, script_problems, _ = assemble_host(hosts[0])

    # the SSH collector against the same recorded outputs (the lab's ESXi personality)
    c = collect_ssh([no_faults.target()], known_hosts=known_hosts)
    ssh_host, _, _ = assemble_host(c.hosts[0])
    # the same commands, in the same order, with the same outputs
    assert [cap.command for cap in hosts[0].captures] == [cap.command for cap in c.hosts[0].captures]
    assert [cap.text for cap in hosts[0].captures] == [cap.text for cap in c.hosts[0].captures]
    # every command is one the SSH allowlist accepts, and the same facts are read
    for cap in hosts[0].captures:
        assert ssh_commands.check("esxi", shlex.split(cap.command)) == cap.command
    for attr in ("pnics", "vmknics", "switches", "modules"):
        assert [o.facts() for o in getattr(script_host, attr)] == [o.facts() for o in getattr(ssh_host, attr)]
    # the same commands not run, for the same reasons (but the vmkernel.log grep: busybox's real grep here says the
    # log is absent, the SSH lab's personality answers no unrecorded command)
    assert [n.command for n in script_host.not_run] == [n.command for n in ssh_host.not_run]
    assert [(n.command, n.reason) for n in script_host.not_run if not n.command.startswith("grep ")] == [
        (n.command, n.reason) for n in ssh_host.not_run if not n.command.startswith("grep ")]

    # what the recorded outputs decide is decided; every command without a recorded output is listed as not run,
    # with the exit status and the error the fake printed
    assert {p.name for p in script_host.pnics} == {"vmnic0", "vmnic1", "vmnic2", "vmnic3"}
    # each pNIC's PCI function is read under /hardware/pci by its address in decimal (issue 24 §1), by both
    headers = [cap.command for cap in hosts[0].captures if cap.command.endswith("/pciConfigHeader")]
    want = set()
    for p in script_host.pnics:
        seg, bus, rest = p.pci_address.split(":")
        slot, func = rest.split(".")
        want.add(f"vsish -e get /hardware/pci/seg/{int(seg, 16)}/bus/{int(bus, 16)}/slot/{int(slot, 16)}/func/"
                 f"{int(func)}/pciConfigHeader")
    assert set(headers) == want and len(headers) == 4
    answered = set(TABLE) | {"esxcli network nic list"}
    not_run = {n.command: n for n in script_host.not_run}
    for cap in hosts[0].captures:
        assert (cap.command in not_run) == (cap.command not in answered), cap.command
    nic_e = not_run["esxcfg-nics -e"]
    assert (nic_e.reason, nic_e.detail) == (
        "failed", "exit status 1: fake esxcfg-nics: no output of 'esxcfg-nics -e' was recorded for this lab host")
    (log,) = [n for n in script_host.not_run if n.command.startswith("grep -F ")]
    assert log.reason == "absent" and "No such file or directory" in log.detail
    assert undecided_but_answered(script_host, hosts[0].captures) == []
    # the cells are those the SSH collector's audit of the same outputs decides
    assert [[(k, c.status) for k, c in r.cells.items()] for r in capability_matrix(script_host, [])] == [
        [(k, c.status) for k, c in r.cells.items()] for r in capability_matrix(ssh_host, [])]
    assert script_host.pnic("vmnic3").geneve_offload is not None and script_host.pnic("vmnic0").rss is not None
    # the recorded outputs are read, not only listed: nothing in them is misunderstood
    assert [p for p in script_problems if "not understood" in p.message] == []


def test_collection_on_stdout_reads_back_whole(tmp_path):
    res = run_script(tmp_path, "--stdout", "-n", "esxi-lab", shell="busybox")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("# nic-advisor collection: boundary=nicadvisor-")
    path = tmp_path / "esxi-lab.txt"
    path.write_text(res.stdout)
    (tmp_path / "again").mkdir()
    assert run_script(tmp_path / "again", "-o", str(tmp_path / "out"), "-n", "esxi-lab").returncode == 0
    (folder,) = (tmp_path / "out").iterdir()
    from_stream, problems = gather([path])
    from_folder, _ = gather([folder])
    assert problems == []
    assert [(c.command, c.text, c.notes, c.host) for c in from_stream[0].captures] == [
        (c.command, c.text, c.notes, c.host) for c in from_folder[0].captures]
    # nothing is left behind on the host (the scratch folder of --stdout is removed)
    assert not list(tmp_path.glob("nic-advisor-esxi-lab-*"))
    audit = run_audit(AuditRequest(capture_paths=(str(path),)))
    (hv,) = audit.verdict.hosts
    assert audit.inputs_not_understood == [] or all("conflict" in p.message for p in audit.inputs_not_understood)
    assert hv.host == "esxi-lab" and {n.command for n in audit.hosts[0].not_run} >= {"vmware -vl", "esxcfg-nics -e"}
    # the release was not recorded for this lab host: Finish this audit names the command the script ran for it
    assert "vmware -vl" in hv.finish


def test_a_hung_command_is_stopped_and_the_script_goes_on(tmp_path):
    hung = "vsish -e get /net/pNics/vmnic0/rxqueues/info"
    path = esxi_path(tmp_path / "env", CAPTURES, sleep={hung: 600})
    res = run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab", "-t", "2", path=path)
    assert res.returncode == 0, res.stderr
    hosts, _ = gather([next((tmp_path / "out").iterdir())])
    caps = {c.command: c for c in hosts[0].captures}
    assert caps[hung].notes == ("timed out after 2 s",) and caps[hung].text == ""
    # the commands after it ran
    assert "esxcfg-module -g icen" in caps and caps["esxcfg-module -g icen"].notes == ()
    host, _, _ = assemble_host(hosts[0])
    assert [(n.command, n.reason) for n in host.not_run if n.reason == "timeout"] == [(hung, "timeout")]
    # the hung command was stopped: its process is gone
    (pidfile,) = (tmp_path / "env" / "fakes").glob("hung-*.pid")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_a_missing_tool_is_absent_in_words_that_do_not_name_the_script(shell, tmp_path):
    """A host without ``vsish`` (the fake removed; busybox's sh and dash word a missing command with the script's
    path and line): its commands are recorded with exit status 127 and "vsish: not found", which the SSH collector
    reads from its login shell's words the same way (absent), the same from whichever folder the script is run."""
    details = []
    for where in ("one", "two/deeper"):
        base = tmp_path / where
        base.mkdir(parents=True)
        path = esxi_path(base / "env", CAPTURES)
        (base / "env" / "fakes" / "vsish").unlink()
        assert run_script(base, "-o", str(base / "out"), "-n", "esxi-lab", shell=shell, path=path).returncode == 0
        (inputs,), _ = gather([next((base / "out").iterdir())])
        host, _, _ = assemble_host(inputs)
        vsish = [n for n in host.not_run if n.command.startswith("vsish ")]
        # two per pNIC (/net/pNics/…), and one per pNIC's PCI function (/hardware/pci/…/pciConfigHeader)
        assert len(vsish) == 8 + 4 and {n.reason for n in vsish} == {"absent"}
        details.append([(n.command, n.detail) for n in host.not_run])
    assert details[0] == details[1]
    assert {d for c, d in details[0] if c.startswith("vsish ")} == {exit_note(EXIT_NOT_FOUND, "vsish: not found")}
    assert not any("nic-advisor-collect-esxi.sh" in d for _, d in details[0])


def test_names_that_fail_the_allowlist_patterns_are_never_run(tmp_path):
    """A NIC list whose names carry shell syntax (the real list, its names changed): the script says it skipped
    them and runs nothing built from them; the valid names are still audited."""
    listing = CAPTURES / TABLE["esxcli network nic list"]
    text = listing.read_text()
    marker = tmp_path / "pwned"
    hostile = text.replace("vmnic1  ", f"vmnic1;touch$IFS{marker};  ", 1).replace(
        "ixgben", "ixgben$(touch${IFS}" + str(marker) + ")", 1)
    (tmp_path / "caps").mkdir()
    (tmp_path / "caps" / listing.name).write_text(hostile)
    table = {k: v for k, v in TABLE.items()}
    for name in table.values():
        if name != listing.name:
            (tmp_path / "caps" / name).write_bytes((CAPTURES / name).read_bytes())
    path = esxi_path(tmp_path / "env", tmp_path / "caps", table=table)
    res = run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab", path=path)
    assert res.returncode == 0 and not marker.exists()
    assert "skipped a pNIC name that is not safe to pass on: vmnic1;touch" in res.stderr
    assert "skipped a driver name that is not safe to pass on: ixgben$(touch" in res.stderr
    hosts, _ = gather([next((tmp_path / "out").iterdir())])
    commands = [c.command for c in hosts[0].captures]
    assert not any("touch" in c for c in commands[1:])
    assert "esxcli network nic get -n vmnic0" in commands and "esxcfg-module -g icen" in commands


def test_the_script_needs_no_python_bash_or_tool_outside_busybox(tmp_path):
    """Run with a PATH of the fakes and busybox applets only, as the ESXi Shell offers: no error says a tool is
    missing (a script needing bash, GNU options or Python would fail here)."""
    res = run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab")
    assert res.returncode == 0
    assert "not found" not in res.stderr and "applet not found" not in res.stderr
    assert res.stderr.count("nic-advisor collect:") == 1  # only the closing line
    text = collector_script("esxi")
    assert text.startswith("#!/bin/sh\n") and "bash" not in text.split("\n", 1)[1].lower()
    assert "python" not in text.lower()
    assert not any(seq in text for seq in ("{{", "{%", "{#"))  # Ansible templates a raw command: nothing to expand


def test_usage_errors(tmp_path):
    res = run_script(tmp_path, "-t", "soon")
    assert res.returncode == 2 and "usage:" in res.stderr
    res = run_script(tmp_path, "-o")
    assert res.returncode == 2
    assert not list(tmp_path.glob("nic-advisor-*-2*"))  # nothing collected, nothing written


def test_the_decided_cells_check_finds_a_cell_left_unknown(tmp_path):
    """The check above can fail: a host assembled without the answer that decides vmnic3's Geneve offload (its
    vsish properties), checked against every answer, names that cell."""
    assert run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab").returncode == 0
    (inputs,), _ = gather([next((tmp_path / "out").iterdir())])
    properties = "vsish -e get /net/pNics/vmnic3/properties"
    without = type(inputs)(name=inputs.name, captures=[c for c in inputs.captures if c.command != properties])
    host, _, _ = assemble_host(without)
    assert undecided_but_answered(host, inputs.captures) == [("vmnic3", "geneve_offload", properties)]


def test_a_tarball_of_the_folder_reads_back_whole(tmp_path):
    """The folder the script writes, packed on the host with busybox tar (one file to copy off), is read by
    --capture like the folder; a tarball of other files is still a broken vm-support bundle, named as such."""
    assert run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab").returncode == 0
    (folder,) = (tmp_path / "out").iterdir()
    tgz = tmp_path / "esxi-lab.tgz"
    subprocess.run([BUSYBOX, "tar", "czf", str(tgz), "-C", str(tmp_path / "out"), folder.name], check=True, timeout=60)
    from_tgz, problems = gather([tgz])
    from_folder, _ = gather([folder])
    assert problems == [] and [h.name for h in from_tgz] == ["esxi-lab"]
    assert [(c.command, c.text, c.notes) for c in from_tgz[0].captures] == [
        (c.command, c.text, c.notes) for c in from_folder[0].captures]
    assert from_tgz[0].captures[0].source == f"{tgz}:{folder.name}/001_esxcli_network_nic_list.txt"
    other = tmp_path / "other.tgz"
    (tmp_path / "notes.txt").write_text("not a capture\n")
    subprocess.run([BUSYBOX, "tar", "czf", str(other), "-C", str(tmp_path), "notes.txt"], check=True, timeout=60)
    hosts, problems = gather([other])
    assert hosts == [] and [p.message for p in problems] == [
        f"{other}: no commands/ folder, so not an ESXi vm-support bundle"]
