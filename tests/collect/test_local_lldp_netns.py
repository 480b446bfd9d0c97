"""The local Linux collector reads the switch port of each interface from a real lldpd (``lldpctl -f json``).

The lab: two network namespaces joined by a veth pair, ``ens1f0`` (the audited host's side, MTU 1500) and ``swp12``
(the "switch" side, MTU 9216). The switch is a real lldpd (Debian's lldpd package) announcing itself as ``leaf-01``
with port ID ``swp12`` (``lldp portidsubtype ifname``); the host runs a receive-only lldpd on its default socket, as a
Linux host with lldpd installed does. :func:`nicadvisor.collect.local_linux.collect_local` then audits the host
namespace: its ``lldpctl -f json`` capture gives ``ens1f0`` the neighbour ``leaf-01`` / ``swp12``. No frame leaves the
two namespaces."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from capturetools import merged
from machinelock import machine_lock
from nicadvisor.collect.local_linux import collect_local
from nicadvisor.parsers.registry import parse_output

#: The host's lldpd listens on the machine's default socket (/run/lldpd.socket, shared by every namespace): the lab
#: holds that socket's machine-wide lock (other test runs too), and the tests that read the socket (lldpctl run by
#: the collectors) share one pytest-xdist worker with this one and take the lock shared.
pytestmark = [pytest.mark.root, pytest.mark.xdist_group("lldpd-default-socket")]


def _ns(name: str, *argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", name, *argv], capture_output=True, text=True, timeout=20, **kw)


@pytest.fixture
def lldp_lab():
    assert os.geteuid() == 0, "the namespace lab needs root"
    assert shutil.which("lldpd"), "lldpd is not installed (packaging/test.sh installs Debian's lldpd)"
    with machine_lock("lldpd-default-socket"):  # this lab owns the default socket; other runs wait for it
        assert not Path("/run/lldpd.socket").exists(), \
            "an lldpd already runs on this machine's default socket: stop it"
        yield from _lldp_lab()


def _lldp_lab():
    tag = uuid.uuid4().hex[:6]
    host, sw = f"nicadv-lh-{tag}", f"nicadv-ls-{tag}"
    procs: list[subprocess.Popen] = []
    sock_dir = None
    try:
        for ns in (host, sw):
            subprocess.run(["ip", "netns", "add", ns], check=True, timeout=10)
        subprocess.run(["ip", "link", "add", "ens1f0", "netns", host, "type", "veth", "peer", "name", "swp12",
                        "netns", sw], check=True, timeout=10)
        subprocess.run(["ip", "-n", host, "link", "set", "ens1f0", "up"], check=True, timeout=10)
        subprocess.run(["ip", "-n", sw, "link", "set", "swp12", "mtu", "9216", "up"], check=True, timeout=10)
        # lldpcli (as _lldpd) reaches its socket only through searchable folders: a folder of its own in the temporary
        # folder, since pytest's (deeper under pytest-xdist) are private
        sock_dir = Path(tempfile.mkdtemp(prefix="nicadv-lldp-"))
        sock_dir.chmod(0o755)
        sock = str(sock_dir / "switch.sock")
        procs.append(subprocess.Popen(["ip", "netns", "exec", sw, "lldpd", "-d", "-u", sock, "-I", "swp12"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen(["ip", "netns", "exec", host, "lldpd", "-d", "-r", "-I", "ens1f0"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 120  # a deadline for the condition, not a duration
        while time.monotonic() < deadline and _ns(sw, "lldpcli", "-u", sock, "show", "configuration").returncode:
            time.sleep(0.2)
        for cmd in (["configure", "lldp", "portidsubtype", "ifname"], ["configure", "system", "hostname", "leaf-01"]):
            assert _ns(sw, "lldpcli", "-u", sock, *cmd).returncode == 0
        deadline = time.monotonic() + 180  # a changed configuration is announced at once; LLDP repeats every 30 s
        while time.monotonic() < deadline:
            out = _ns(host, "lldpctl", "-f", "json").stdout
            if '"swp12"' in out and "leaf-01" in out:
                break
            time.sleep(0.5)
        yield host
    finally:
        for p in procs:  # only the two daemons this fixture started
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(10)
        for ns in (host, sw):
            subprocess.run(["ip", "netns", "del", ns], check=False, timeout=10)
        if sock_dir is not None:
            shutil.rmtree(sock_dir, ignore_errors=True)


def test_local_collector_reads_the_switch_port_from_lldpd(lldp_lab):
    c = collect_local(netns=lldp_lab)
    (cap,) = [cap for cap in c.captures if cap.command == "lldpctl -f json"]
    assert json.loads(cap.text)["lldp"]["interface"]["ens1f0"]["port"]["id"] == {"type": "ifname", "value": "swp12"}
    pnics, *_ = merged(parse_output(cap.command, cap.text))
    assert {k: v for k, v in pnics["ens1f0"].items() if k in ("neighbor_name", "neighbor_port", "neighbor_protocol")} \
        == {"neighbor_name": "leaf-01", "neighbor_port": "swp12", "neighbor_protocol": "LLDP"}
    assert not any("lldpctl" in p for p in c.problems)
