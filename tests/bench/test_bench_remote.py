"""Benchmark between audited hosts over SSH (nicadvisor.bench.remote) on a lab of real parts: network
namespaces as hosts, each with its own real sshd, joined by a veth pair shaped with tc tbf
(remote_lab.py). netperf, iperf3 and the built-in agent run for real; nothing is mocked. Every test
checks that no benchmark process, temporary folder or journal row is left behind."""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchtools import needs_root, read_output
from nicadvisor import cli
from nicadvisor.bench import Cancelled
from nicadvisor.bench.remote import (
    AGENT_NAME, RemoteBench, RemoteCommandRefused, RemoteRequest, START_SCRIPT, agent_script, check_remote,
    listening_ports, parse_ipv4_addr,
)
from nicadvisor.bench.remote_process import parse_proc_stat
from nicadvisor.bench.mtu_path import esxi_argv, linux_argv
from nicadvisor.bench.netns import tbf_burst_bytes
from nicadvisor.bench.journal import DB_NAME, Journal, JournalVersionError, orphaned_entries, read_entries
from nicadvisor.collect.known_hosts import KnownHosts
from nicadvisor.procinfo import process_start_ticks

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ssh"))
import sshd_harness as H  # noqa: E402

from remote_lab import RemoteLab  # noqa: E402

TOOLS = ("netperf", "netserver", "iperf3", "python3")
FOLDER = "/tmp/nicadv-bench-0123456789abcdef"


# --- the allowlist ----------------------------------------------------------------------------------

def test_allowlist_accepts_the_benchmark_commands_and_quotes_them():
    assert check_remote(["command", "-v", "netserver"]) == "command -v netserver"
    assert check_remote(["rm", "-rf", "--", FOLDER]) == f"rm -rf -- {FOLDER}"
    line = check_remote(["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p1.pid",
                         "netserver", "-D", "-f", "-4", "-L", "10.0.0.2", "-p", "5201"])
    assert line.startswith("sh -c 'echo $$ >\"$1\" && shift && exec \"$@\"' nicadv-start ")
    check_remote(["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p2.pid",
                  "python3", f"{FOLDER}/{AGENT_NAME}", "client", "--test", "TCP_RR", "--host", "10.0.0.2",
                  "--port", "5201", "--duration", "0.5"])
    check_remote(["/usr/sbin/ip", "-4", "-o", "addr", "show", "dev", "eth0"])
    check_remote(["ip", "-4", "-o", "addr", "show"])
    check_remote(["ip", "-o", "link", "show", "dev", "d0"])
    check_remote(["/usr/sbin/tc", "qdisc", "show", "dev", "d0"])
    check_remote(["tc", "filter", "show", "dev", "d0", "ingress"])
    assert check_remote(linux_argv("10.0.0.1", "10.0.0.2", 8972)) == \
        "ping -M do -c 3 -i 0.2 -W 1 -s 8972 -I 10.0.0.1 10.0.0.2"
    assert check_remote(esxi_argv("vmk10", "vxlan", "192.168.11.1", 1672)) == \
        "vmkping ++netstack=vxlan -I vmk10 -d -s 1672 -c 3 192.168.11.1"
    assert check_remote(["esxcfg-vmknic", "-l"]) == "esxcfg-vmknic -l"


@pytest.mark.parametrize("argv", [
    ["rm", "-rf", "--", "/"],
    ["rm", "-rf", "--", "/tmp/nicadv-bench-0123456789abcdef/../../etc"],
    ["sh", "-c", "reboot"],
    ["kill", "-KILL", "1"],
    ["kill", "-KILL", "-1"],
    ["cat", "/etc/shadow"],
    ["command", "-v", "bash"],
    ["mkdir", "-m", "777", FOLDER],
    # a benchmark program with an option outside its list (iperf3 --logfile writes a file) or a wrong program
    ["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p1.pid", "iperf3", "-s", "--logfile", "/etc/x"],
    ["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p1.pid", "bash", "-c", "id"],
    ["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p1.pid", "python3", "/tmp/evil.py", "serve"],
    ["sh", "-c", START_SCRIPT, "nicadv-start", "/etc/passwd", "netserver", "-D"],
    ["sh", "-c", START_SCRIPT, "nicadv-start", f"{FOLDER}/p1.pid", "netperf", "-H", "x;reboot"],
    ["ip", "-4", "-o", "addr", "show", "dev", "-rf"],
    ["tc", "qdisc", "del", "dev", "d0", "root"],
    ["tc", "filter", "del", "dev", "d0", "ingress"],
    ["tc", "filter", "show", "dev", "-rf", "ingress"],
    ["ping", "-M", "do", "-c", "2", "-i", "0.2", "-W", "1", "-s", "1672", "-I", "10.0.0.1", "example.org"],
    ["ping", "-M", "do", "-c", "2", "-i", "0.2", "-W", "1", "-s", "1672", "-I", "10.0.0.1", "-f"],
    ["ping", "-f", "10.0.0.2"],
    ["vmkping", "++netstack=vxlan", "-I", "vmk10", "-d", "-s", "1672", "-c", "3", "192.168.11.1;reboot"],
    ["vmkping", "++netstack=$(id)", "-I", "vmk10", "-d", "-s", "1672", "-c", "3", "192.168.11.1"],
    ["vmkping", "++netstack=vxlan", "-I", "vmk10", "-s", "1672", "-c", "3", "192.168.11.1"],  # no -d
    ["vmkping", "++netstack=vxlan", "-I", "vmk10", "-d", "-s", "1672", "-c", "100000", "192.168.11.1"],
    ["esxcfg-vmknic", "-a", "-i", "10.0.0.9", "-n", "255.255.255.0", "pg"],
])
def test_allowlist_refuses_everything_else(argv):
    with pytest.raises(RemoteCommandRefused):
        check_remote(argv)


# --- pure readers, fed with this machine's real /proc and ip output -----------------------------------

def test_the_full_profile_between_hosts_plans_each_catalogue_test_with_a_tool_that_can_run_it():
    from nicadvisor.bench.catalogue import full_profile
    from nicadvisor.bench.remote import HostProbe, RemoteHost, build_plan
    from nicadvisor.collect.ssh import SshTarget

    def probe(name, addr, tools):
        return HostProbe(name=name, source=f"ssh://u@{name}:22", tools=dict.fromkeys(tools, ""), omni=True,
                         address=addr, interface="d0")

    hosts = tuple(RemoteHost(SshTarget(host=h, user="u", kind="linux", key_filename="/nonexistent"), "d0")
                  for h in ("a", "b"))
    specs = tuple(full_profile(duration_s=2, repetitions=2))
    request = RemoteRequest(hosts=hosts, specs=specs, duration_s=2)
    request.validate()
    both = [probe("a", "192.0.2.1", ("netperf", "netserver", "iperf3")),
            probe("b", "192.0.2.2", ("netperf", "netserver", "iperf3"))]
    plan = build_plan(request, both, {"a": "/tmp/nicadv-bench-" + "0" * 16, "b": "/tmp/nicadv-bench-" + "1" * 16})
    by_name = {t.spec.name: t for t in plan.tests}
    assert list(by_name) == [s.name for s in specs]  # every test of the profile, in its order
    assert all(t.repetitions == 2 and t.duration_s == 2 for t in plan.tests)
    four = next(t for name, t in by_name.items() if name.startswith("TCP_STREAM") and t.spec.streams > 1)
    assert four.tool == "iperf3" and "-P" in four.client_argv  # netperf runs one stream per process
    assert "8192,8192" in by_name["TCP_RR 8192 B"].client_argv
    bidir = by_name["bidirectional"]
    assert bidir.tool == "netperf" and "-b" in bidir.client_argv
    assert any("2 times" in c for c in plan.changes()["a"])
    netperf_only = [probe("a", "192.0.2.1", ("netperf", "netserver")), probe("b", "192.0.2.2", ("netperf", "netserver"))]
    plan = build_plan(request, netperf_only, {"a": "/tmp/nicadv-bench-" + "0" * 16, "b": "/tmp/nicadv-bench-" + "1" * 16})
    assert not any(t.spec.streams > 1 for t in plan.tests)
    assert any("netperf runs one stream per process" in p for p in plan.problems)


def test_listening_ports_reads_real_proc_net_tcp():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert port in listening_ports(Path("/proc/net/tcp").read_text())
    with socket.socket() as c:  # a socket that does not listen is not counted
        c.bind(("127.0.0.1", 0))
        assert c.getsockname()[1] not in listening_ports(Path("/proc/net/tcp").read_text())


def test_parse_ipv4_addr_and_proc_stat():
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", "lo"], capture_output=True, text=True).stdout
    assert parse_ipv4_addr(out) == "127.0.0.1"
    assert parse_ipv4_addr("") is None
    state, start = parse_proc_stat(Path(f"/proc/{os.getpid()}/stat").read_text())
    assert state in "RS" and start == process_start_ticks(os.getpid())


def test_link_state_is_read_from_ip_link():
    """Real ``ip -o link show`` lines of the lab: both ends up; one end set down; its peer then without carrier."""
    from nicadvisor.bench.remote import parse_link_state

    assert parse_link_state(read_output("ip_link_d0_up.txt")) == (True, "")
    up, why = parse_link_state(read_output("ip_link_d0_set_down.txt"))
    assert up is False and why == "is set down (<BROADCAST,MULTICAST>, state DOWN)"
    up, why = parse_link_state(read_output("ip_link_d0_no_carrier.txt"))
    assert up is False and why.startswith("has no carrier: the cable, the peer or the switch port is down")
    assert parse_link_state("") == (None, "")


def test_ingress_redirects_are_read_and_only_a_match_all_filter_counts():
    """Real ``tc filter show dev d0 ingress`` of the lab: one filter redirects only TCP port 5201 to ifb0, another
    every packet; a mirror (a copy) is not a redirect."""
    from nicadvisor.bench.remote import IngressRedirect, parse_ingress_redirects

    assert "qdisc ingress ffff:" in read_output("tc_qdisc_d0_ingress_lab.txt")
    assert parse_ingress_redirects(read_output("tc_filter_ingress_lab.txt")) == [
        IngressRedirect("ifb0", matches_all=False), IngressRedirect("ifb0", matches_all=True)]
    mirror = read_output("tc_filter_ingress_lab.txt").replace("Egress Redirect", "Egress Mirror")
    assert parse_ingress_redirects(mirror) == []
    assert parse_ingress_redirects("x" * 200_000) == []


def test_agent_script_runs_alone_with_the_system_python(tmp_path):
    """The copied agent is one file that the host's python3 runs without NIC Advisor installed (-I: no
    site-packages, no current directory on sys.path)."""
    script = tmp_path / AGENT_NAME
    script.write_text(agent_script())
    port = H.free_port()
    py = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    server = subprocess.Popen([py, "-I", str(script), "serve", "--bind", "127.0.0.1", "--port", str(port)],
                              stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120  # a deadline for the condition, not a duration
        while port not in listening_ports(Path("/proc/net/tcp").read_text()):
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        got = subprocess.run([py, "-I", str(script), "client", "--test", "TCP_RR", "--host", "127.0.0.1",
                              "--port", str(port), "--duration", "0.3"], capture_output=True, text=True, timeout=30)
    finally:
        server.terminate()
        server.wait(timeout=5)
        server.stderr.close()
    data = json.loads(got.stdout)
    assert got.returncode == 0 and data["test"] == "TCP_RR" and data["transactions"] > 0


# --- the undo journal, rows of a remote host --------------------------------------------------------

def test_journal_records_updates_and_forgets(tmp_path):
    with Journal(tmp_path) as j:
        a = j.record("folder", host="ssh://u@h:22", path=FOLDER)
        b = j.record("process", host="ssh://u@h:22", argv=["netserver"], pidfile=f"{FOLDER}/p1.pid", pid=None)
        j.update(b, pid=4321, start=99)
        assert [(e.kind, e.data.get("pid")) for e in j.entries()] == [("folder", None), ("process", 4321)]
        assert orphaned_entries(tmp_path) == []  # the run is active: not another run's to undo
        j.done(a)
        assert [e.id for e in read_entries(tmp_path, "ssh://u@h:22")] == [b]
        assert read_entries(tmp_path, "ssh://other@h:22") == []
    assert [e.id for e in orphaned_entries(tmp_path)] == [b]  # closed with a row left: orphaned


def test_journal_rows_of_a_killed_owner_are_orphaned_and_a_newer_schema_is_refused(tmp_path):
    code = ("import sys, os; from nicadvisor.bench.journal import Journal; "
            "j = Journal(sys.argv[1]); j.record('folder', host='ssh://u@h:22', path='x'); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=30)
    (row,) = read_entries(tmp_path)
    assert row.owner_pid != os.getpid() and orphaned_entries(tmp_path) == [row]
    with sqlite3.connect(tmp_path / DB_NAME) as conn:
        conn.execute("PRAGMA user_version=99")
    conn.close()
    with pytest.raises(JournalVersionError, match="newer"):
        Journal(tmp_path)


def test_rows_an_earlier_version_left_in_its_remote_journal_are_taken_over(tmp_path):
    """The remote journal of earlier versions (bench-remote-journal.sqlite3, schema 1) is taken over by the one
    journal at its first open: a row a killed run left there is still orphaned, hence undone at the next run with
    that host, and the old file is gone."""
    from nicadvisor.bench.journal import LEGACY_REMOTE_NAME

    with sqlite3.connect(tmp_path / LEGACY_REMOTE_NAME) as old:
        old.execute("CREATE TABLE change (id TEXT PRIMARY KEY, run TEXT NOT NULL, owner_pid INTEGER NOT NULL, "
                    "owner_start INTEGER, created TEXT NOT NULL, host TEXT NOT NULL, kind TEXT NOT NULL, "
                    "data TEXT NOT NULL)")
        old.execute("INSERT INTO change VALUES ('r1', 'run1', 2147483646, 1, '2026-01-01T00:00:00+00:00', "
                    "'ssh://u@h:22', 'folder', ?)", (json.dumps({"path": FOLDER}),))
        old.execute("PRAGMA user_version=1")
    old.close()
    (row,) = orphaned_entries(tmp_path, "ssh://u@h:22")
    assert (row.id, row.kind, row.data) == ("r1", "folder", {"path": FOLDER})
    assert not (tmp_path / LEGACY_REMOTE_NAME).exists() and (tmp_path / DB_NAME).exists()


# --- the lab ---------------------------------------------------------------------------------------

def _lab_or_skip(**kw) -> RemoteLab:
    why = H.available()
    if why:
        pytest.skip(f"remote benchmark lab: {why}")
    return RemoteLab(**kw)


@pytest.fixture(scope="module")
def lab():
    lab = _lab_or_skip(rate_mbit=50)
    try:
        yield lab
    finally:
        lab.close()


@pytest.fixture
def known_hosts(tmp_path) -> KnownHosts:
    return KnownHosts(tmp_path / "known_hosts")


def _assert_clean(lab: RemoteLab, journal_dir: Path) -> None:
    assert lab.processes(*TOOLS) == {}, "a benchmark process was left running"
    assert lab.folders() == set(), "a temporary folder was left behind"
    assert read_entries(journal_dir) == []


def _bench(lab, journal_dir, known_hosts, duration_s: float = 1, **kw) -> RemoteBench:
    return RemoteBench(RemoteRequest(hosts=lab.hosts(), duration_s=duration_s, **kw), known_hosts=known_hosts,
                       journal_dir=journal_dir)


@needs_root
@pytest.mark.root
@pytest.mark.parametrize("tool,tests", [("netperf", ("TCP_STREAM", "TCP_RR")), ("iperf3", ("TCP_STREAM",)),
                                        ("agent", ("TCP_STREAM", "TCP_RR"))])
def test_benchmark_between_two_hosts_over_ssh(lab, journal_dir, known_hosts, tool, tests):
    with _bench(lab, journal_dir, known_hosts, tool=tool, tests=tests) as rb:
        plan = rb.prepare()
        changes = plan.changes()
        a, b = (t.name for t in (h.target for h in lab.hosts()))
        # the plan says exactly what changes where before anything does
        assert [t.tool for t in plan.tests] == [tool] * len(tests)
        assert any("create folder /tmp/nicadv-bench-" in c for c in changes[b])
        assert (any(AGENT_NAME in c for c in changes[b])) == (tool == "agent")
        assert lab.folders() == set() and read_entries(journal_dir) == []
        report = rb.run(plan)
    assert report.problems == []
    assert [r.test for r in report.results] == list(tests)
    for r in report.results:
        assert r.tool == tool and r.path == "remote"
        assert lab.data_addr(1) in r.command and f"on {a}" in r.command
        assert f"{a} ({lab.data_addr(0)}) → {b} ({lab.data_addr(1)})" in r.endpoints
        if tool == "netperf":  # every omni figure is read, as a local run reads it (review: CPU and loss were lost)
            assert r.local_cpu_pct is not None and r.remote_cpu_pct is not None
        if r.test == "TCP_STREAM":
            # the traffic crossed the tbf-shaped data link (50 Mbit/s caps it), not the unshaped SSH link; how fast
            # it went is the machine's load, not asserted
            assert 0 < r.throughput_gbps * 1000 < 60
        else:
            assert r.transactions_per_s > 0 and r.latency_us > 0
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_cancel_stops_the_remote_processes_and_undoes_everything(lab, journal_dir, known_hosts):
    cancel = threading.Event()
    seen_running: dict[str, object] = {}

    def progress(fraction: float, message: str) -> None:
        if fraction > 0.05 and not cancel.is_set():
            seen_running.update(lab.processes("netserver", "netperf"))
            cancel.set()

    with RemoteBench(RemoteRequest(hosts=lab.hosts(), tests=("TCP_STREAM", "TCP_RR"), duration_s=20, tool="netperf"),
                     known_hosts=known_hosts, journal_dir=journal_dir, cancel=cancel) as rb:
        plan = rb.prepare()
        with pytest.raises(Cancelled):
            rb.run(plan, progress)
    assert sorted(Path(argv[0]).name for argv in seen_running.values()) == ["netperf", "netserver"]
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_kill_9_leftovers_are_undone_at_the_next_start(lab, journal_dir, known_hosts, tmp_path):
    targets = []
    for i, h in enumerate(lab.hosts()):
        t = h.target
        targets.append(dict(host=t.host, port=t.port, user=t.user, kind=t.kind, key_filename=t.key_filename,
                            trusted_fingerprint=t.trusted_fingerprint, connect_timeout_s=5.0, command_timeout_s=15.0))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"targets": targets, "interface": "d0", "known_hosts": str(tmp_path / "child_kh"),
                                "journal_dir": str(journal_dir), "tool": "netperf", "tests": ["TCP_STREAM"],
                                "duration_s": 60}))
    child = subprocess.Popen([sys.executable, str(HERE / "remote_lab.py"), "crash", str(spec)],
                             stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert "running" in json.loads(line)
        child.send_signal(signal.SIGKILL)  # no finally block runs
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    left = lab.processes("netserver", "netperf")
    assert sorted(Path(argv[0]).name for argv in left.values()) == ["netperf", "netserver"]
    assert len(lab.folders()) == 2
    assert {e.kind for e in read_entries(journal_dir)} == {"folder", "process"}

    with _bench(lab, journal_dir, known_hosts, tool="netperf", tests=("TCP_STREAM",)) as rb:
        plan = rb.prepare()  # shows the leftovers as the first changes; undoes nothing yet
        assert all(any(c.startswith("undo first") for c in lines) for lines in plan.changes().values())
        assert lab.processes("netserver") != {}
        out = rb.restore_leftovers()
    assert out.failed == []
    assert sum("stopped process" in s for s in out.undone) == 2
    assert sum("removed folder" in s for s in out.undone) == 2
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_port_in_use_is_a_clear_message_per_test(lab, journal_dir, known_hosts):
    squatter = lab.netns_exec(1, sys.executable, "-c",
                              "import socket, time; s = socket.socket(); "
                              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                              f"s.bind(('{lab.data_addr(1)}', 5201)); s.listen(1); print('up', flush=True); "
                              "time.sleep(60)", stdout=subprocess.PIPE, text=True)
    try:
        assert squatter.stdout.readline().strip() == "up"
        with _bench(lab, journal_dir, known_hosts, tool="iperf3", tests=("TCP_STREAM", "UDP_STREAM")) as rb:
            report = rb.run(rb.prepare())
    finally:
        squatter.kill()
        squatter.wait()
        squatter.stdout.close()
    assert report.results == []
    busy = [p for p in report.problems if "TCP port 5201 is already in use" in p and "the test was not started" in p]
    assert [p.split(" with ")[0] for p in busy] == ["TCP_STREAM", "UDP_STREAM"]  # one message each, both tried
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_peer_dying_mid_test_is_reported_and_the_next_test_runs(lab, journal_dir, known_hosts):
    killed: list[int] = []

    def progress(fraction: float, message: str) -> None:
        if message.startswith("TCP_STREAM") and fraction > 0.1 and not killed:
            for pid in lab.processes("netserver"):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    with _bench(lab, journal_dir, known_hosts, tool="netperf", tests=("TCP_STREAM", "TCP_RR"), duration_s=4) as rb:
        report = rb.run(rb.prepare(), progress)
    assert len(killed) == 1
    assert [r.test for r in report.results] == ["TCP_RR"]
    (problem,) = report.problems
    assert problem.startswith("TCP_STREAM with netperf") and "netperf printed no result line" in problem
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_netserver_absent_falls_back_per_test(journal_dir, known_hosts):
    lab = _lab_or_skip(rate_mbit=50, no_programs={1: ("netserver",)})
    try:
        with _bench(lab, journal_dir, known_hosts, tool="netperf", tests=("TCP_STREAM", "TCP_RR")) as rb:
            plan = rb.prepare()
            b = lab.hosts()[1].target.name
            assert [(t.test, t.tool) for t in plan.tests] == [("TCP_STREAM", "iperf3"), ("TCP_RR", "agent")]
            assert sum(f"netserver is not installed on {b}" in p for p in plan.problems) == 2
            report = rb.run(plan)
        assert [(r.test, r.tool) for r in report.results] == [("TCP_STREAM", "iperf3"), ("TCP_RR", "agent")]
        _assert_clean(lab, journal_dir)
    finally:
        lab.close()


# --- the command line -------------------------------------------------------------------------------

def _cli_args(lab: RemoteLab) -> list[str]:
    args = ["bench", "--between"]
    hosts = lab.hosts()
    args += [f"{h.target.user}@{h.target.host}:{h.target.port}" for h in hosts]
    args += ["--ssh-key", hosts[0].target.key_filename, "--duration", "1", "--tool", "iperf3", "--tests", "TCP_STREAM"]
    for h in hosts:
        args += ["--trust-host-key", f"{h.target.host}:{h.target.port}={h.target.trusted_fingerprint}",
                 "--interface", f"{h.target.host}=d0"]
    return args


@needs_root
@pytest.mark.root
def test_cli_without_yes_and_without_a_terminal_changes_nothing(lab, capsys):
    code = cli.main(_cli_args(lab))
    out, err = capsys.readouterr()
    assert code == 2
    assert "Benchmark plan:" in out and "iperf3 -s -1 -B 10.216.0.2 -p 5201" in out
    assert "nothing was changed" in err and "--yes" in err
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


@needs_root
@pytest.mark.root
def test_cli_between_with_yes_runs_and_cleans_up(lab, capsys, tmp_path):
    report = tmp_path / "bench.json"
    code = cli.main(_cli_args(lab) + ["--yes", "--json", str(report)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "TCP_STREAM          iperf3   remote" in out and "Mbit/s" in out  # 50 Mbit/s tbf: never "0.05 Gbit/s"
    (result,) = json.loads(report.read_text())["results"]
    assert result["path"] == "remote" and 0 < result["throughput_gbps"] * 1000 < 60  # capped by the 50 Mbit/s tbf
    assert result["verdict"] in ("pass", "warn") and result["comparison"]  # the same words as every view
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


@needs_root
@pytest.mark.root
def test_cli_quick_profile_between_hosts_runs_the_catalogue_and_judges_each_test(lab, capsys, tmp_path):
    """One click between two hosts: the quick profile of the test catalogue (each test named by it), the stream
    tests judged against the tbf rate, the TCP_RR against the path's echo round trip, nothing left behind."""
    from nicadvisor.bench.catalogue import QUICK_BUDGET_S, estimated_seconds, quick_profile

    assert estimated_seconds(quick_profile()) < QUICK_BUDGET_S <= 60  # the default one-click run, per host pair
    args = [a for a in _cli_args(lab) if a not in ("--tool", "iperf3", "--tests", "TCP_STREAM")]
    report = tmp_path / "bench.json"
    code = cli.main(args + ["--profile", "quick", "--duration", "2", "--yes", "--no-history", "--json", str(report)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    results = json.loads(report.read_text())["results"]
    assert [r["spec"] for r in results] == ["TCP_STREAM 1 stream", "TCP_RR 1 B", "TCP_CRR 1 B", "UDP_STREAM 1400 B"]
    assert all(r["tool"] == "netperf" and r["path"] == "remote" for r in results)
    by_test = {r["test"]: r for r in results}
    assert by_test["TCP_STREAM"]["verdict"] == "pass" and "tc tbf 50 Mbit/s" in by_test["TCP_STREAM"]["expected"]["basis"]
    assert "ICMP echo round trip" in by_test["TCP_RR"]["expected"]["basis"]
    assert by_test["TCP_CRR"]["expected"] is None and by_test["TCP_CRR"]["no_expectation"]
    assert by_test["UDP_STREAM"]["payload_bytes"] == 1400 and by_test["UDP_STREAM"]["loss_pct"] is not None
    assert "TCP_RR 1 B" in out
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


def test_cli_rejects_an_interface_for_a_host_not_benchmarked(capsys):
    code = cli.main(["bench", "--between", "u@10.0.0.1", "u@10.0.0.2", "--ssh-key", "/nonexistent",
                     "--interface", "10.9.9.9=eth0"])
    assert code == 2
    assert "--interface names a host that is not in --between: 10.9.9.9" in capsys.readouterr().err


# --- expectations from the audited facts and what the probe read ------------------------------------

@needs_root
@pytest.mark.root
def test_probe_finds_the_interface_its_mtu_and_the_tbf_rate(lab, journal_dir, known_hosts):
    """Read-only: the interface holding the SSH address is found (m0, unshaped); the named data interface d0
    shows the lab's tbf rate."""
    for interface, want_if, want_tbf in ((None, "m0", None), ("d0", "d0", float(lab.rate_mbit))):
        request = RemoteRequest(hosts=lab.hosts(interface), duration_s=1)
        with RemoteBench(request, known_hosts=known_hosts, journal_dir=journal_dir) as rb:
            rb.prepare()
            probes = list(rb.probes.values())
        assert [(p.interface, p.mtu, p.tbf_rate_mbit) for p in probes] == [(want_if, 1500, want_tbf)] * 2
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_measured_and_expected_agree_on_the_tbf_shaped_link(lab, journal_dir, known_hosts):
    from nicadvisor.services.bench_expect import attach_expectations, path_end

    with _bench(lab, journal_dir, known_hosts, duration_s=3, tool="netperf", tests=("TCP_STREAM",)) as rb:
        report = rb.run(rb.prepare())
        ends = {name: path_end(p, None) for name, p in rb.probes.items()}
    (r,) = attach_expectations(report.results, ends)
    assert r.expected is not None and r.expected.unit == "Gbit/s"
    assert f"tc tbf {lab.rate_mbit} Mbit/s read on" in r.expected.basis
    # the band's ceiling is the tbf rate × TCP goodput at MTU 1500; the tool decides PASS (how close the result came
    # is the machine's load: benchmarks/rr_band.py measures it, no test asserts it)
    assert r.expected.high * 1000 == pytest.approx(lab.rate_mbit * 1448 / 1514)
    assert r.verdict() == "pass", r.comparison()
    _assert_clean(lab, journal_dir)


@needs_root
@pytest.mark.root
def test_rr_expectation_tracks_a_delay_added_on_the_path(journal_dir, known_hosts):
    """Two hosts joined through the user-space delay relay (no netem here): the path's ICMP echo round trip, measured
    by the benchmark just before the TCP_RR test, sets the band; with 2 ms and then 5 ms held in each direction the
    band moves with the added delay and the result passes it. Asserted is what the tool decides (the verdict, the
    band's basis and that its edges follow the echo, which cannot be faster than the delay); how close measured and
    expected come is measured in benchmarks/rr_band.py, not asserted (review: 4,173 µs against 4,650 ± 465 failed
    on a busy 2-core machine)."""
    from nicadvisor.bench.path_rtt import COUNT, WAKEUP_ALLOWANCE_US
    from nicadvisor.services.bench_expect import attach_expectations, path_end

    seen = {}
    for delay_us in (2000, 5000):
        lab = _lab_or_skip(rate_mbit=None, delay_us=delay_us)
        try:
            with _bench(lab, journal_dir, known_hosts, duration_s=2, tool="netperf", tests=("TCP_RR",)) as rb:
                report = rb.run(rb.prepare())
                ends = {name: path_end(p, None) for name, p in rb.probes.items()}
                rtts = dict(rb.path_rtts)
            assert report.problems == []
            (r,) = attach_expectations(report.results, ends, rtts)
            (rtt,) = rtts.values()
            assert rtt.received == rtt.sent == COUNT and rtt.min_us >= 2 * delay_us  # the echo crossed the relay
            assert r.expected is not None and r.expected.unit == "\u00b5s", r.no_expectation
            assert "ICMP echo round trip" in r.expected.basis and f"ping -c {COUNT} -A" in rtt.command
            assert r.expected.measure == "p50_latency_us" and r.comparison().startswith("median transaction")
            assert r.verdict() == "pass", r.comparison()
            # the band's edges follow the echo: its floor is what the path can do, which no delay can shorten
            floor = rtt.min_us if rtt.back_to_back else rtt.min_us - WAKEUP_ALLOWANCE_US  # (path_rtt.rr_band_edges)
            assert r.expected.floor == pytest.approx(floor) and r.expected.low >= 2 * delay_us - WAKEUP_ALLOWANCE_US
            echo = rtt.typical_us if rtt.back_to_back else rtt.min_us
            assert r.expected.value == pytest.approx(echo + WAKEUP_ALLOWANCE_US)  # no calibration given
            assert r.expected.high / r.expected.low <= 3 + 1e-9
            seen[delay_us] = r.expected
            _assert_clean(lab, journal_dir)
        finally:
            lab.close()
    # the band moved with the added delay: its floor at 5 ms is above everything the 2 ms path allows
    assert seen[5000].floor >= 2 * 5000 - WAKEUP_ALLOWANCE_US > seen[2000].high  # (spaced echoes: the wake-up off)


def _cli_json(lab: RemoteLab, tmp_path: Path, capsys, *extra: str) -> tuple[int, dict, str, str]:
    """``nic-advisor bench --between`` the lab's hosts as a user runs it (``--yes --no-history --json``): exit code,
    the JSON document (empty when none was written), stdout, stderr."""
    report = tmp_path / f"bench-{len(list(tmp_path.glob('bench-*.json')))}.json"
    args = [a for a in _cli_args(lab) if a not in ("--tool", "iperf3", "--tests", "TCP_STREAM")]
    code = cli.main(args + ["--yes", "--no-history", "--json", str(report), *extra])
    out, err = capsys.readouterr()
    return code, (json.loads(report.read_text()) if report.exists() else {}), out, err


@needs_root
@pytest.mark.root
def test_a_healthy_shaped_paths_tcp_rr_band_is_built_from_its_echo_and_this_machines_loopback(lab, capsys,
                                                                                                 tmp_path):
    """Issue 28 §1, as the user runs it (the CLI, three times): each TCP_RR band on the lab's healthy tbf-shaped veth
    is at most 3x wide, its floor the adaptive echo's minimum, which the median transaction never beats (no request
    and reply cross the path faster than an echo: asserted, it is physics, not load), and its basis names the stack
    cost calibrated on this machine's loopback. How often the median lands in the band, with and without load, is
    measured in benchmarks/rr_band.py, not asserted here (it depends on how busy the machine is)."""
    for _ in range(3):
        code, doc, out, err = _cli_json(lab, tmp_path, capsys, "--tool", "netperf", "--tests", "TCP_RR")
        (r,) = doc["results"]
        e = r["expected"]
        assert e is not None, r["no_expectation"]
        assert e["high"] / e["low"] <= 3 + 1e-9 and 0 < e["floor"] <= e["low"]
        assert r["p50_latency_us"] >= e["floor"], (r["p50_latency_us"], e)
        assert "measurement error" not in r["comparison"]
        assert "ICMP echo round trip" in e["basis"] and "calibrated on this machine's loopback" in e["basis"]
        assert e["measure"] == "p50_latency_us"
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


@needs_root
@pytest.mark.root
def test_a_tbf_on_the_receivers_ingress_bounds_the_band_and_is_named(capsys, tmp_path):
    """Issue 17 §4: a tbf on what the receiver receives (its ingress redirected to ifb0) capped the stream at 20 Mbit/s
    and the result got no verdict; the receiver's tc was never read. Both ends' shaping is read (read-only) and the
    slower bounds the band: first the receiver's alone (unshaped sender), then a slower tbf on the sender."""
    lab = _lab_or_skip(rate_mbit=None)
    try:
        lab.shape_ingress(1, 20)
        a, b = (h.target.name for h in lab.hosts())
        code, doc, out, err = _cli_json(lab, tmp_path, capsys, "--tool", "netperf", "--tests", "TCP_STREAM",
                                        "--duration", "2")
        (r,) = doc["results"]
        where = f"on ifb0, where {b} redirects what d0 receives"
        # judged against the receiver's tbf (the verdict itself depends on how busy the machine is: not asserted);
        # what is asserted is physics: no stream outruns the shaper that bounds its band
        assert r["verdict"] in ("pass", "warn", "fail") and r["expected"] is not None, r["no_expectation"]
        assert r["throughput_gbps"] <= r["expected"]["high"] * 1.10, (r["comparison"], r["expected"])
        assert f"tc tbf rate 20 Mbit/s {where}" in r["expected"]["basis"]
        assert r["expected"]["high"] * 1000 == pytest.approx(20 * 1448 / 1514)
        assert f"tc tbf 20 Mbit/s {where}" in r["path_conditions"] and f"tc tbf 20 Mbit/s {where}" in out
        subprocess.run(["tc", "-n", lab.namespaces[0], "qdisc", "add", "dev", "d0", "root", "tbf", "rate", "10mbit",
                        "burst", str(tbf_burst_bytes(10, 1500)), "latency", "50ms"], check=True, timeout=20)
        code, doc, out, err = _cli_json(lab, tmp_path, capsys, "--tool", "netperf", "--tests", "TCP_STREAM",
                                        "--duration", "2")
        (r,) = doc["results"]
        assert r["throughput_gbps"] <= r["expected"]["high"] * 1.10, (r["comparison"], r["expected"])
        assert r["expected"]["high"] * 1000 == pytest.approx(10 * 1448 / 1514)
        assert f"tc tbf 10 Mbit/s read on {a}/d0" in r["expected"]["basis"] and "ifb0" not in r["expected"]["basis"]
        assert lab.folders() == set() and lab.processes(*TOOLS) == {}
    finally:
        lab.close()


@needs_root
@pytest.mark.root
def test_a_link_that_is_down_is_named_not_reported_in_netperfs_words(lab, capsys, tmp_path, journal_dir,
                                                                      known_hosts):
    """Issue 17 §4: with the data link down the user read netperf's "could not establish the control connection";
    the probe reads each test interface's link state first and says which interface on which host is down: in the
    plan (nothing starts), when it goes down between the plan and the test, and in the MTU check."""
    a, b = (h.target.name for h in lab.hosts())
    lab.set_data_link(1, False)
    try:
        code, doc, out, err = _cli_json(lab, tmp_path, capsys, "--tool", "netperf", "--tests", "TCP_STREAM")
        assert code == 2 and not doc, out + err
        assert f"the link of d0 on {b} is set down (<BROADCAST,MULTICAST>, state DOWN)" in err
        assert f"the link of d0 on {a} has no carrier" in err and f"no test from {a} to {b}" in err
        assert "control connection" not in out + err and "establish" not in out + err
        check = [x for x in _cli_args(lab) if x not in ("--tool", "iperf3", "--tests", "TCP_STREAM")]
        code = cli.main(check + ["--mtu-check"])
        out, err = capsys.readouterr()
        assert code == 2 and f"the link of d0 on {b} is set down" in out and "no reply" not in out, out + err
        lab.set_data_link(1, True)
        with _bench(lab, journal_dir, known_hosts, tool="netperf", tests=("TCP_STREAM",)) as rb:
            plan = rb.prepare()
            assert len(plan.tests) == 1
            lab.set_data_link(1, False)  # down after the plan was confirmed
            report = rb.run(plan)
        assert report.results == []
        (problem,) = report.problems
        assert f"not started: the link of d0 on {a} has no carrier" in problem and f"d0 on {b} is set down" in problem
        _assert_clean(lab, journal_dir)
    finally:
        lab.set_data_link(1, True)


@needs_root
@pytest.mark.root
def test_cli_bench_uses_the_stored_audit_of_the_hosts_and_adds_its_results(lab, capsys):
    hosts = lab.hosts()
    specs = [f"{h.target.user}@{h.target.host}:{h.target.port}" for h in hosts]
    trust = [a for h in hosts for a in ("--trust-host-key",
                                        f"{h.target.host}:{h.target.port}={h.target.trusted_fingerprint}")]
    code = cli.main(["audit", *[a for spec in specs for a in ("--ssh", spec)], "--kind", "linux", "--ssh-key", hosts[0].target.key_filename, *trust,
                     "--quiet"])
    out, err = capsys.readouterr()
    audit_id = int(err.split("saved as audit #", 1)[1].split()[0])
    code = cli.main(_cli_args(lab) + ["--yes"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"results added to audit #{audit_id}" in err
    # d0 is a veth (not a pNIC the audit rates), so the line rate is the tbf the probe read; the verdict is shown
    assert "expected " in out and ("PASS" in out or "WARN" in out)
    code = cli.main(["history", str(audit_id), "--json", str(lab.base / "h.json")])
    (b,) = json.loads((lab.base / "h.json").read_text())["benchmarks"]
    assert b["client"] and b["server"] and b["verdict"] in ("pass", "warn")
    assert f"tc tbf {lab.rate_mbit} Mbit/s read on" in b["expected"]["basis"]
    assert any("is not a pNIC of audit #" in n for n in b["expected"]["notes"])
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


@needs_root
@pytest.mark.root
def test_mtu_check_fails_at_the_size_a_lowered_mtu_blocks_and_is_recorded_in_the_audit(lab, capsys):
    """ping -M do between the lab hosts over d0 (MTU 1500): 1600-byte frames fail on the sender ("message too long"),
    the audit of both hosts gets the tep-path-mtu-failed error on d0 at each end naming both ends; with d0 at 9000
    on both sides 9000 passes (and 1600 with it, not sent) and the error is gone. Read-only: no plan, nothing
    started on a host but ping."""
    hosts = lab.hosts()
    specs = [f"{h.target.user}@{h.target.host}:{h.target.port}" for h in hosts]
    trust = [a for h in hosts for a in ("--trust-host-key",
                                        f"{h.target.host}:{h.target.port}={h.target.trusted_fingerprint}")]
    cli.main(["audit", *[a for spec in specs for a in ("--ssh", spec)], "--kind", "linux", "--ssh-key",
              hosts[0].target.key_filename, *trust, "--quiet"])
    audit_id = int(capsys.readouterr().err.split("saved as audit #", 1)[1].split()[0])
    check = [a for a in _cli_args(lab) if a not in ("--tool", "iperf3", "--tests", "TCP_STREAM")]
    code = cli.main(check + ["--mtu-check", "--audit", str(audit_id)])
    out, err = capsys.readouterr()
    assert code == 1, err
    a, b = (h.target.name for h in hosts)
    assert f"FAIL  {a} d0 ({lab.data_addr(0)}) → {b} d0 ({lab.data_addr(1)}): 1600 B: 1600-byte frames cannot leave " \
           f"d0 (MTU 1500) on {a}: its interface has a smaller MTU (the sender names MTU 1500)" in out
    assert f"recorded in audit #{audit_id} of " in err  # (NOT RATED still: the lab's veths are no physical NIC)
    cli.main(["history", str(audit_id), "--json", str(lab.base / "h1.json")])
    doc = json.loads((lab.base / "h1.json").read_text())
    found = [f for f in doc["findings"] if f["rule_id"] == "tep-path-mtu-failed"]
    assert {(f["host"], f["object"], f["severity"]) for f in found} == {(a, "d0", "error"), (b, "d0", "error")}
    assert all(lab.data_addr(0) in f["message"] and lab.data_addr(1) in f["message"] for f in found)
    assert {len(h["path_tests"]) for h in doc["hosts"]} == {1}  # each host keeps the row it sent
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}

    for ns in lab.namespaces:
        subprocess.run(["ip", "-n", ns, "link", "set", "d0", "mtu", "9000"], check=True, timeout=20)
    try:
        code = cli.main(check + ["--mtu-check", "--audit", str(audit_id)])
        out, err = capsys.readouterr()
        assert code == 0, out + err
        assert out.count("PASS  ") == 4  # 9000 and 1600 bytes, both ways
        assert out.count("(not sent)") == 2  # 1600 crossed a fortiori, once 9000 did
        cli.main(["history", str(audit_id), "--json", str(lab.base / "h2.json")])
        doc = json.loads((lab.base / "h2.json").read_text())
        assert not [f for f in doc["findings"] if f["rule_id"].startswith("tep-path")]
        assert {h["mtu_path_ok"] for h in doc["hosts"]} == {True}
    finally:
        for ns in lab.namespaces:
            subprocess.run(["ip", "-n", ns, "link", "set", "d0", "mtu", "1500"], check=False, timeout=20)


def test_cli_refuses_an_audit_that_holds_none_of_the_hosts_before_anything_runs(capsys, tmp_path):
    """Review: --audit N of another estate used to receive these hosts' results, shown as PASS."""
    cli.main(["audit", "--demo", "--quiet"])
    audit_id = int(capsys.readouterr().err.split("saved as audit #", 1)[1].split()[0])
    code = cli.main(["bench", "--between", "u@10.0.0.1", "u@10.0.0.2", "--ssh-key", "/nonexistent", "--yes",
                     "--audit", str(audit_id)])
    err = capsys.readouterr().err
    assert code == 2 and f"--audit {audit_id}: audit #{audit_id}" in err and "holds none of these hosts" in err
    assert "nothing was run" in err and "connecting" not in err
    code = cli.main(["bench", "--between", "u@10.0.0.1", "u@10.0.0.2", "--ssh-key", "/nonexistent", "--yes",
                     "--audit", "999999"])
    assert code == 2 and "--audit 999999" in capsys.readouterr().err
    (tmp_path / "folder.json").mkdir()
    code = cli.main(["bench", "--tool", "agent", "--duration", "0.5", "--json", str(tmp_path / "folder.json")])
    assert code == 2 and "a folder, not a file" in capsys.readouterr().err  # refused before the run, no traceback
    with pytest.raises(SystemExit):
        cli.main(["bench", "--between", "u@10.0.0.1", "u@10.0.0.2", "--audit", "1", "--no-history"])


@needs_root
@pytest.mark.root
def test_mtu_check_between_unreachable_addresses_proves_nothing_about_the_mtu(lab, capsys):
    """Review: without --interface the hosts ping their management addresses, which do not reach each other: the
    1600-byte ping gets no reply, so does the 56-byte one that follows: unreachable, which proves nothing about the
    MTU (exit 2, no MTU error on a host that is fine)."""
    hosts = lab.hosts(None)
    args = ["bench", "--between", *[f"{h.target.user}@{h.target.host}:{h.target.port}" for h in hosts],
            "--ssh-key", hosts[0].target.key_filename, "--mtu-check", "--no-history"]
    for h in hosts:
        args += ["--trust-host-key", f"{h.target.host}:{h.target.port}={h.target.trusted_fingerprint}"]
    code = cli.main(args + ["--yes"])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert out.count("FAIL  ") == 4 and out.count("no reply even to 84-byte pings") == 2, out
    assert "cannot leave" not in out and "drops large frames" not in out
    assert "--yes: nothing to confirm, --mtu-check alone is read-only" in err  # not silently dropped


@needs_root
@pytest.mark.root
def test_mtu_check_with_tests_runs_both_the_check_first(lab, capsys, tmp_path):
    """Issue 17 §4: --mtu-check with --tests and --yes ran only the check and the JSON held only mtu_paths. Now one
    call runs both: the read-only check first (1600-byte frames fail on the 1500-byte data link, both ways), then
    the confirmed test; both are printed and in the JSON, and the failed size sets exit code 1."""
    report = tmp_path / "both.json"
    code = cli.main(_cli_args(lab) + ["--mtu-check", "--yes", "--no-history", "--json", str(report)])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "Benchmark plan:" in out and "--yes: nothing to confirm" not in err
    assert out.index("FAIL  ") < out.index("TCP_STREAM          iperf3   remote")  # the check ran first
    doc = json.loads(report.read_text())
    assert sorted((r["client"], r["frame_bytes"], r["ok"]) for r in doc["mtu_paths"]) == sorted(
        (h.target.name, 1600, False) for h in lab.hosts())
    (result,) = doc["results"]
    assert result["test"] == "TCP_STREAM" and 5 < result["throughput_gbps"] * 1000 < 60
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}


@needs_root
@pytest.mark.root
def test_a_result_far_below_its_band_fails_and_sets_the_exit_code(lab, capsys):
    """A tbf of 100 Gbit/s on the sender sets a band the veth cannot reach: FAIL, exit 1 (review)."""
    ns = lab.namespaces[0]
    subprocess.run(["tc", "-n", ns, "qdisc", "replace", "dev", "d0", "root", "tbf", "rate", "100gbit", "burst", "1mb",
                    "latency", "50ms"], check=True, timeout=20)
    try:
        code = cli.main(_cli_args(lab) + ["--yes", "--no-history"])
        out, err = capsys.readouterr()
    finally:
        subprocess.run(["tc", "-n", ns, "qdisc", "replace", "dev", "d0", "root", "tbf", "rate",
                        f"{lab.rate_mbit}mbit", "burst", str(tbf_burst_bytes(lab.rate_mbit, 1500)), "latency", "50ms"],
                       check=True, timeout=20)
    assert "FAIL" in out and code == 1, out + err
