"""Journal, namespace path with real tbf shaping, cancel and crash recovery (root tests create real
network namespaces named nicadv-*; traffic stays inside them)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchtools import my_children, needs_root, nicadv_namespaces
from nicadvisor.bench import Cancelled
from nicadvisor.bench.journal import LEGACY_JSONL_NAME, Journal, read_entries, restore_from_journal
from nicadvisor.bench.netns import NetnsError, create_pair, destroy_pair, tbf_burst_bytes
from nicadvisor.procinfo import process_start_ticks
from nicadvisor.services.bench import BenchRequest, run_quick_bench

needs_netperf = pytest.mark.skipif(shutil.which("netperf") is None, reason="netperf not installed")


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_journal_records_and_forgets(journal_dir):
    with Journal(journal_dir) as j:
        a = j.record("process", pid=_dead_pid(), start_ticks=None, argv=["netserver"])
        j.record("netns", name="nicadv-1-abcdefa")
        assert [e.kind for e in j.entries()] == ["process", "netns"]
        j.done(a)
        assert [e.kind for e in j.entries()] == ["netns"]
        assert j.entries()[0].owner_pid == os.getpid()
        # a torn last line (a crash while an earlier version wrote its JSON-lines journal) is skipped, not fatal
        with open(journal_dir / LEGACY_JSONL_NAME, "a", encoding="utf-8") as fh:
            fh.write('{"id": "torn", "ki')
        assert len(read_entries(journal_dir)) == 1
        # the namespace never existed: undoing it is a no-op that clears the entry
        out = j.undo_all()
    assert out.failed == []
    assert read_entries(journal_dir) == []


def test_restore_stops_a_recorded_process_of_a_dead_owner(journal_dir):
    victim = subprocess.Popen(["sleep", "30"])
    try:
        entry = {"id": "e1", "kind": "process", "run": "r1", "owner_pid": _dead_pid(), "owner_start": 1,
                 "pid": victim.pid, "start_ticks": process_start_ticks(victim.pid), "argv": ["sleep", "30"]}
        live_owner = {"id": "e2", "kind": "process", "run": "r2", "owner_pid": 1,
                      "owner_start": process_start_ticks(1), "pid": victim.pid, "start_ticks": None, "argv": ["x"]}
        # written as the JSON-lines journal of an earlier version, which the journal takes over
        (journal_dir / LEGACY_JSONL_NAME).write_text(json.dumps(entry) + "\n" + json.dumps(live_owner) + "\n")
        out = restore_from_journal(journal_dir, sweep_orphans=False)
        assert out.undone == [f"stopped process {victim.pid} (sleep)"]
        assert victim.wait(timeout=5) == -signal.SIGTERM
        # the entry of a live owner (pid 1) is another run's business: kept
        assert [e.id for e in read_entries(journal_dir)] == ["e2"]
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()


def test_restore_ignores_a_reused_pid(journal_dir):
    survivor = subprocess.Popen(["sleep", "30"])
    try:
        entry = {"id": "e1", "kind": "process", "run": "r1", "owner_pid": _dead_pid(), "owner_start": 1,
                 "pid": survivor.pid, "start_ticks": 1, "argv": ["netserver"]}  # start time differs
        (journal_dir / LEGACY_JSONL_NAME).write_text(json.dumps(entry) + "\n")
        out = restore_from_journal(journal_dir, sweep_orphans=False)
        assert survivor.poll() is None and out.undone == [f"process {survivor.pid} (netserver) was already gone"]
    finally:
        survivor.kill()
        survivor.wait()


def test_tbf_burst():
    assert tbf_burst_bytes(50, 1500) == 31250  # 5 ms at 50 Mbit/s
    assert tbf_burst_bytes(1, 9000) == 4 * 9014  # at least four full frames


@needs_root
@needs_netperf
@pytest.mark.root
def test_netns_tbf_shaping_limits_tcp_stream(journal_dir):
    report = run_quick_bench(BenchRequest(path="netns", tests=("TCP_STREAM", "TCP_RR"), duration_s=1,
                                          tool="netperf", rate_mbit=50), journal_dir=journal_dir)
    assert report.problems == []
    stream, rr = report.results
    assert stream.path == "netns" and "ip netns exec nicadv-" in stream.command
    assert "10.213.0.2" in stream.command
    mbit = stream.throughput_gbps * 1000
    assert 0 < mbit < 60, f"tbf 50 mbit should cap TCP_STREAM, measured {mbit:.1f} Mbit/s"  # the cap, not the speed
    assert stream.expected.value * 1000 == pytest.approx(50 * 1448 / 1514)
    assert rr.transactions_per_s > 0 and rr.expected is None  # no round-trip figure exists for this path
    assert "two network namespaces" in stream.endpoints and "shaped to 50 Mbit/s" in stream.endpoints
    assert nicadv_namespaces() == set()
    assert read_entries(journal_dir) == []


@needs_root
@pytest.mark.root
def test_netns_agent_and_mtu(journal_dir):
    report = run_quick_bench(BenchRequest(path="netns", tests=("TCP_STREAM",), duration_s=1, tool="agent",
                                          rate_mbit=20, mtu=9000), journal_dir=journal_dir)
    (stream,) = report.results
    assert stream.tool == "agent" and 0 < stream.throughput_gbps * 1000 < 25  # the 20 Mbit/s tbf caps it
    assert stream.expected.value * 1000 == pytest.approx(20 * 8948 / 9014)
    assert nicadv_namespaces() == set()


@needs_root
@pytest.mark.root
def test_create_pair_rolls_back_on_failure(journal_dir):
    with Journal(journal_dir) as j:
        with pytest.raises(ValueError):
            create_pair(j, mtu=10)
        pair = create_pair(j, mtu=1400)
        out = subprocess.run(["ip", "-n", pair.client_ns, "link", "show", "nv0"], capture_output=True, text=True)
        assert "mtu 1400" in out.stdout
        # a tbf rate tc cannot parse makes setup fail: everything made so far is deleted again
        assert destroy_pair(pair, j) == []
        with pytest.raises(NetnsError, match="netns setup failed"):
            create_pair(j, rate_mbit=10**12)
    assert nicadv_namespaces() == set()
    assert read_entries(journal_dir) == []


@needs_root
@needs_netperf
@pytest.mark.root
@pytest.mark.parametrize("path", ["netns", "loopback"])
def test_cancel_stops_promptly_and_restores(journal_dir, path):
    """Cancelled while the first of two 600 s tests runs: without the cancel the run would take 20 minutes, so its
    ending within the (generous) deadline, before the second test began, is the proof, on a loaded machine too."""
    cancel = threading.Event()
    seen: list[str] = []
    outcome: dict[str, object] = {}

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        if fraction > 0 and not cancel.is_set():  # a tick of the first test: its tool is running
            cancel.set()

    def worker() -> None:
        try:
            run_quick_bench(BenchRequest(path=path, tests=("TCP_STREAM", "TCP_RR"), duration_s=600, tool="netperf",
                                         rate_mbit=50 if path == "netns" else None),
                            progress, cancel, journal_dir=journal_dir)
        except Cancelled as exc:
            outcome["cancelled"] = exc

    t = threading.Thread(target=worker)
    t.start()
    t.join(timeout=240)
    assert not t.is_alive(), f"still running long after the cancel; progress: {seen[-3:]}"
    assert "cancelled" in outcome, f"not cancelled; progress: {seen[-3:]}"
    assert cancel.is_set() and not [m for m in seen if m.startswith("TCP_RR")], seen[-3:]
    assert nicadv_namespaces() == set()
    assert my_children("netserver", "netperf", "ip", "python3", sys.executable.rsplit("/", 1)[-1]) == set()
    assert read_entries(journal_dir) == []


@needs_root
@needs_netperf
@pytest.mark.root
def test_crash_recovery_removes_namespaces_and_processes(journal_dir):
    child = subprocess.Popen([sys.executable, str(Path(__file__).with_name("crash_child.py")), str(journal_dir)],
                             stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(child.stdout.readline())
        namespaces = set(info["namespaces"])
        netserver_pid = info["netserver_pid"]
        child.send_signal(signal.SIGKILL)  # a crash: no finally block runs
        child.wait(timeout=5)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert namespaces <= nicadv_namespaces(mine=False)
    assert process_start_ticks(netserver_pid) is not None  # left running inside the namespace
    assert {e.kind for e in read_entries(journal_dir)} == {"netns", "process"}

    out = restore_from_journal(journal_dir)

    assert out.failed == []
    assert any("deleted network namespace" in s for s in out.undone)
    assert nicadv_namespaces(mine=False) & namespaces == set()
    assert process_start_ticks(netserver_pid) is None
    assert read_entries(journal_dir) == []


@needs_root
@pytest.mark.root
def test_orphan_namespace_without_journal_entry_is_swept(journal_dir):
    name = f"nicadv-{_dead_pid()}-abcdefa"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        out = restore_from_journal(journal_dir)
        assert f"deleted orphan network namespace {name}" in out.undone
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)
    assert name not in nicadv_namespaces(mine=False)
