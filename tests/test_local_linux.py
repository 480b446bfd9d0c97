"""The local read-only Linux collector, run for real on this machine and in a network namespace."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from capturetools import merged
from machinelock import machine_lock
from nicadvisor.collect.local_linux import LocalCollection, allowed, collect_local
from nicadvisor.parsers.registry import parse_output


def parse_all(collection: LocalCollection):
    """Every capture through the registry, as for saved captures: (merged pnics, captures not understood)."""
    results, not_understood = [], []
    for cap in collection.captures:
        rs = parse_output(cap.command, cap.text)
        if not any(r.understood for r in rs):
            not_understood.append(cap.command)
        results.extend(rs)
    return merged(results)[0], not_understood


def _targets(collection: LocalCollection) -> set[str]:
    out = set()
    for cap in collection.captures:
        words = cap.command.split()
        if words[0] == "ethtool":
            out.add(words[-1])
        elif words[0] in ("cat", "readlink") and words[1].startswith("/sys/class/net/"):
            out.add(words[1].split("/")[4])
    return out


@pytest.mark.xdist_group("lldpd-default-socket")  # lldpctl reads /run/lldpd.socket: see test_local_lldp_netns.py
def test_collect_local_on_this_machine():
    messages: list[str] = []
    before = set(os.listdir("/sys/class/net"))
    with machine_lock("lldpd-default-socket", shared=True):  # no lldp lab's daemon answers lldpctl meanwhile
        c = collect_local(progress=messages.append)
    after = set(os.listdir("/sys/class/net"))
    # Other tests running beside this one (pytest -n) add and delete veths in this namespace while it is read: what
    # is said about an interface that came or went meanwhile is not this machine's steady state, so it is set aside.
    steady = before & after
    changing = (before | after | _targets(c)) - steady

    def about_changing(text: str) -> bool:
        return any(re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", text) for n in changing)

    assert c.captures, c.problems
    assert "lo" not in _targets(c)
    assert all(cap.source == "local" and cap.host for cap in c.captures)
    assert messages and messages[-1].endswith("capture(s) read")
    if shutil.which("ethtool"):
        assert not [p for p in c.problems if not about_changing(p)]
    pn, not_understood = parse_all(c)
    assert not [cmd for cmd in not_understood if not about_changing(cmd)]
    assert "lo" not in pn
    names = sorted(n for n in steady if n != "lo")
    matched = [n for n in names if n in pn and pn[n].get("mtu") == int(Path(f"/sys/class/net/{n}/mtu").read_text())]
    assert matched, (names, {n: pn.get(n, {}).get("mtu") for n in names})


def test_missing_tools_are_problems_not_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # neither ethtool nor ip can be found
    c = collect_local()
    assert any("'ethtool' not found" in p for p in c.problems)
    assert any("'ip' (iproute2) not found" in p for p in c.problems)
    assert not any(cap.command.startswith(("ethtool", "ip ")) for cap in c.captures)
    assert any(cap.command.startswith("cat /sys/class/net/") and cap.command.endswith("/mtu") for cap in c.captures)


def test_cancel_returns_what_was_read():
    cancel = threading.Event()
    cancel.set()
    c = collect_local(cancel=cancel)
    assert "cancelled before the audit finished" in c.problems
    assert not any(cap.command.startswith(("ethtool", "cat")) for cap in c.captures)


def test_allowlist():
    assert allowed(["ethtool", "-k", "eth0"]) and allowed(["ethtool", "eth0"])
    assert allowed(["cat", "/sys/class/net/eth0/mtu"]) and allowed(["ip", "-d", "-j", "link", "show"])
    assert not allowed(["ethtool", "-K", "eth0", "tso", "off"])
    assert not allowed(["ethtool", "-s", "eth0"])
    assert not allowed(["cat", "/etc/shadow"])
    assert not allowed(["cat", "/sys/class/net/../../../etc/shadow"])
    assert not allowed(["ip", "link", "set", "eth0", "down"])
    with pytest.raises(ValueError):
        collect_local(netns="bad name; rm -rf /")


@pytest.fixture
def veth_netns():
    """A network namespace holding a veth pair (va MTU 9000, vb), deleted afterwards."""
    ns = f"nicadv-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", ns], check=True, timeout=10)
    try:
        for argv in (["ip", "-n", ns, "link", "add", "va", "mtu", "9000", "type", "veth", "peer", "name", "vb"],
                     ["ip", "-n", ns, "link", "set", "va", "up"],
                     ["ip", "-n", ns, "link", "set", "vb", "up"]):
            subprocess.run(argv, check=True, timeout=10)
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, timeout=10)


@pytest.mark.root
@pytest.mark.xdist_group("lldpd-default-socket")  # lldpctl reads /run/lldpd.socket: see test_local_lldp_netns.py
@pytest.mark.skipif(os.geteuid() != 0, reason="creating a network namespace needs root")
def test_collect_local_in_netns_sees_veth(veth_netns):
    with machine_lock("lldpd-default-socket", shared=True):
        c = collect_local(netns=veth_netns)
    assert not c.problems
    assert _targets(c) == {"va", "vb"}  # only the namespace's interfaces, lo excluded
    assert all(cap.source == f"local:netns={veth_netns}" for cap in c.captures)
    assert all(f"run in network namespace {veth_netns}" in cap.notes for cap in c.captures)
    commands = {cap.command for cap in c.captures}
    assert {"cat /sys/class/net/va/mtu", "readlink /sys/class/net/va", "ethtool -i va", "ip -d -j link show"} <= commands
    pn, not_understood = parse_all(c)
    assert not not_understood
    assert pn["va"]["is_physical"] is False
    assert pn["va"]["mtu"] == 9000
    assert pn["vb"]["mtu"] == 1500
    assert pn["va"]["driver"] == "veth"
    assert "lo" not in pn and "eth0" not in pn
