"""Issue 27 §8: the TEP mesh between hosts reached through loopback. ``lo``'s MTU 65536 gave a ping payload of 65508,
which ping and the catalogue refuse (65507 at most): the GUI said "Benchmark failed: not a path-test ping of the
catalogue…" and the CLI exited 3. The payload is bounded to 65507 and the row says why; the pings are real iputils
pings on this machine's loopback."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nicadvisor.bench.mtu_path import MAX_PAYLOAD, Endpoint, payload_sizes, probe_pair
from nicadvisor.collect.ssh_commands import check_path_ping

pytestmark = pytest.mark.skipif(shutil.which("ping") is None, reason="iputils ping is installed by the setup")


def _lo_mtu() -> int:
    return int(Path("/sys/class/net/lo/mtu").read_text())


def test_a_loopback_sender_is_tested_at_the_largest_ping_and_says_why():
    mtu = _lo_mtu()
    assert mtu > MAX_PAYLOAD + 28  # 65536 on Linux
    assert payload_sizes(mtu, "127.0.0.2") == (MAX_PAYLOAD, 1572)
    a = Endpoint(host="this-host", kind="linux", interface="lo", address="127.0.0.1", mtu=mtu)
    b = Endpoint(host="this-host-2", kind="linux", interface="lo", address="127.0.0.2", mtu=mtu)
    check_path_ping(a.argv(b.address, MAX_PAYLOAD))  # the catalogue takes it (it refused 65508)

    def run(argv):
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
        return done.returncode, done.stdout + done.stderr

    rows = probe_pair(a, b, run)
    big = rows[0]
    assert (big.payload_bytes, big.frame_bytes) == (MAX_PAYLOAD, 65535)
    assert big.ok, big.detail
    assert f"MTU {mtu} is more than any ping can fill" in big.detail and "65507 bytes of payload" in big.detail
    assert all(r.ok for r in rows) and "more than any ping" not in rows[1].detail
