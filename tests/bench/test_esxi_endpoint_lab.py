"""Issue 17 §2 on the ESXi lab (tests/bench/esxi_lab.py: an ESXi host answering with recorded outputs and running a
real iperf3 as its vSAN iperf3, a Linux host): the quick profile between them runs end to end with the plan, the
journal and the exact restore of the firewall ruleset and the copy — after success, with the ESXi host as server
and as client, when execInstalledOnly refuses the copy, after SIGTERM, and at the next start after a kill -9
(proven by reading the state back). Needs root."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchtools import needs_root  # noqa: E402
from esxi_lab import ESXI_TEPS, LINUX_ADDR, running_esxi_lab  # noqa: E402
from nicadvisor import cli  # noqa: E402
from nicadvisor.bench.esxi_firewall import parse_ruleset_list  # noqa: E402
from nicadvisor.bench.journal import read_entries  # noqa: E402
from nicadvisor.bench.remote import HostSession  # noqa: E402
from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402

pytestmark = [needs_root, pytest.mark.root]
SET_ON = "esxcli network firewall ruleset set -r remoteSerialPort -e true"
SET_OFF = "esxcli network firewall ruleset set -r remoteSerialPort -e false"


@pytest.fixture()
def lab():
    with running_esxi_lab() as lab:
        yield lab


def _journal_dir() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "nic-advisor"


def _read_back(lab) -> bool | None:
    """remoteSerialPort's enabled state as the ESXi host says it (its recorded listing of that state)."""
    import threading

    conn = HostSession(lab.hosts()[0])
    conn.connect(KnownHosts(str(lab.base / "kh-read")), lambda *a: True, threading.Event())
    try:
        got = conn.run(("esxcli", "network", "firewall", "ruleset", "list", "-r", "remoteSerialPort"))
    finally:
        conn.close()
    return parse_ruleset_list(got.out)["remoteSerialPort"].enabled


def _iperf3s(lab) -> list[list[str]]:
    """The lab's iperf3 processes: the Linux host's and the ESXi host's (its copy: iperf3.nicadv-…)."""
    return [argv for argv in lab.processes().values() if Path(argv[0]).name.startswith("iperf3")]


def _assert_put_back(lab) -> None:
    assert lab.state()["rulesets"] == {"remoteSerialPort": False} and _read_back(lab) is False
    assert lab.copies() == [] and _iperf3s(lab) == []
    assert not [e for e in read_entries(_journal_dir()) if e.kind.startswith("esxi-")]
    assert not [c for c in lab.commands() if c.startswith("esxcli network firewall set")]  # never the whole firewall


def test_the_quick_profile_with_the_esxi_host_as_server_runs_and_puts_everything_back(lab, capsys, tmp_path):
    report = tmp_path / "quick.json"
    code = cli.main(lab.cli_args(esxi_first=False) + ["--profile", "quick", "--duration", "2", "--yes",
                                                      "--no-history", "--json", str(report)])
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err
    # the plan said every change, before any was made
    assert "firewall: enable ruleset remoteSerialPort (inbound TCP 1024-65535), open to every address while the " \
           "test runs" in out and "the firewall itself stays on" in out
    copy = next(w for w in out.split() if w.startswith("/usr/lib/vmware/vsan/bin/iperf3.nicadv-"))
    assert f"copy /usr/lib/vmware/vsan/bin/iperf3 to {copy}" in out and "execInstalledOnly" in out
    assert f"start `{copy} -s -1 -B {ESXI_TEPS['vmk10']} -p 5201` through a pseudo-terminal" in out
    # what ESXi cannot run is said, not faked
    assert "TCP_RR is not measurable with it (ESXi has no netperf)" in out
    assert "No ruleset of the ESXi firewall opens a range of inbound UDP ports" in out
    (result,) = json.loads(report.read_text())["results"]
    assert result["test"] == "TCP_STREAM" and result["tool"] == "iperf3" and result["throughput_gbps"] > 0
    assert result["server"] == lab.esxi_target().name and f"({ESXI_TEPS['vmk10']})" in result["endpoints"]
    # in this order: the ruleset enabled, the copy made and started, then all of it put back and read back
    sent = lab.commands()
    start = next(i for i, c in enumerate(sent) if c.startswith(f"{copy} -s"))
    assert sent.index(SET_ON) < sent.index(f"cp /usr/lib/vmware/vsan/bin/iperf3 {copy}") < start
    assert start < sent.index("ps -c -J") < sent.index(f"rm -f {copy}") < sent.index(SET_OFF)
    assert sent[-1] == "esxcli network firewall ruleset list -r remoteSerialPort"  # read back after the restore
    _assert_put_back(lab)


def test_the_esxi_host_as_client_runs_its_own_iperf3_and_opens_the_way_out(lab, capsys, tmp_path):
    report = tmp_path / "out.json"
    code = cli.main(lab.cli_args() + ["--tests", "TCP_STREAM", "--duration", "2", "--yes", "--no-history", "--json",
                                      str(report)])
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err
    assert "enable ruleset remoteSerialPort (outbound TCP 0-65535)" in out and "copy /usr/lib" not in out
    (result,) = json.loads(report.read_text())["results"]
    assert result["client"] == lab.esxi_target().name and result["throughput_gbps"] > 0
    client = next(c for c in lab.commands() if c.startswith("/usr/lib/vmware/vsan/bin/iperf3 -c"))
    assert f"-c {LINUX_ADDR} -p 5201" in client and f"-B {ESXI_TEPS['vmk10']}" in client
    _assert_put_back(lab)


def test_exec_installed_only_refuses_the_copy_and_the_run_says_what_still_works(lab, capsys, tmp_path):
    lab.set_state(exec_installed_only=True)
    code = cli.main(lab.cli_args(esxi_first=False) + ["--tests", "TCP_STREAM", "--duration", "2", "--yes",
                                                      "--no-history"])
    out, err = capsys.readouterr()
    assert code == 2, out + err  # no result
    e = lab.esxi_target().name
    assert "ESXi refused to run the copy of its iperf3 (-sh: /vmfs/volumes/65797aed-ef2b98e0-53d1-002324c71b97/bin/" \
           "rsync: Operation not permitted)" in err  # the recorded refusal, verbatim
    assert "execInstalledOnly" in err and "NIC Advisor does not change security settings" in err
    assert f"{e} as the client with its own iperf3 against a Linux server" in err and "--mtu-check" in err
    assert not [c for c in lab.commands() if "settings" in c]  # the security setting is never touched
    _assert_put_back(lab)


def test_sigterm_during_the_test_puts_everything_back(lab, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "nicadvisor.cli", *lab.cli_args(esxi_first=False), "--tests",
                             "TCP_STREAM", "--duration", "30", "--yes", "--no-history"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 240  # a deadline for the condition, not a duration
    while time.monotonic() < deadline and len(_iperf3s(lab)) < 2:  # the ESXi server runs, then the client
        time.sleep(0.1)
    assert any(Path(a[0]).name.startswith("iperf3.nicadv-") for a in _iperf3s(lab)), proc.communicate(timeout=60)
    assert lab.state()["rulesets"] == {"remoteSerialPort": True} and lab.copies()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 128 + signal.SIGTERM, err  # 143, as a shell reports a process ended by SIGTERM
    assert "cancelled; the running test was stopped and its changes undone" in err and "Traceback" not in err
    _assert_put_back(lab)


def test_after_kill_9_the_next_start_puts_the_firewall_and_the_copy_back(lab, tmp_path, capsys):
    targets = [dict(host=t.host, port=t.port, user=t.user, kind=t.kind, key_filename=t.key_filename,
                    trusted_fingerprint=t.trusted_fingerprint, connect_timeout_s=5.0, command_timeout_s=15.0)
               for t in (lab.linux_target(), lab.esxi_target())]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"targets": targets, "interfaces": ["d0", None], "known_hosts": str(tmp_path / "kh"),
                                "journal_dir": str(_journal_dir()), "tool": "iperf3", "tests": ["TCP_STREAM"],
                                "duration_s": 60}))
    child = subprocess.Popen([sys.executable, str(HERE / "remote_lab.py"), "crash", str(spec)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert "running" in json.loads(child.stdout.readline())
        child.send_signal(signal.SIGKILL)  # no finally block runs: the ruleset stays enabled, the copy stays
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    deadline = time.monotonic() + 120  # a deadline for the condition, not a duration
    while time.monotonic() < deadline and _iperf3s(lab):  # its SSH sessions ended: the ESXi server's pty hung up
        time.sleep(0.1)
    assert _iperf3s(lab) == []
    assert lab.state()["rulesets"] == {"remoteSerialPort": True} and _read_back(lab) is True
    assert len(lab.copies()) == 1
    assert {e.kind for e in read_entries(_journal_dir())} >= {"esxi-ruleset", "esxi-file"}

    # the next start: its plan shows what it undoes first, and the run puts it back before its own changes
    code = cli.main(lab.cli_args(esxi_first=False) + ["--tests", "TCP_STREAM", "--duration", "1", "--yes",
                                                      "--no-history"])
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err
    assert "undo first (left by an earlier run): firewall ruleset remoteSerialPort (was disabled)" in out
    assert "cleaned up after an earlier run: put back firewall ruleset remoteSerialPort" in err
    assert "read back: as it was" in err and "cleaned up after an earlier run: removed /usr/lib/vmware/vsan/bin/" \
        "iperf3.nicadv-" in err
    _assert_put_back(lab)


def test_nothing_changes_on_the_esxi_host_without_the_confirmed_plan(lab, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal, no --yes
    code = cli.main(lab.cli_args(esxi_first=False) + ["--tests", "TCP_STREAM", "--duration", "1", "--no-history"])
    out, err = capsys.readouterr()
    assert code == 2 and "enable ruleset remoteSerialPort" in out and "nothing was changed" in err
    changing = [c for c in lab.commands() if c.startswith(("cp ", "rm ", "kill ", "/usr/lib/vmware"))
                or " set " in c or " add " in c]
    assert changing == []  # the probe only read
    _assert_put_back(lab)
