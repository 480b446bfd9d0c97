"""Issue 29 §7: iproute2 prints an interface name's control bytes raw inside its JSON, so one such name made the
whole ``ip -d -j link show`` "not understood" and the host showed 0 pNICs. The output is real: a network namespace
of this test's own (``unshare --net``) with a veth pair, one end's name holding ESC, an OSC sequence and BEL, the
other plain, listed by the real ``ip``; both interfaces are read."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from nicadvisor.parsers.registry import parse_output

HOSTILE = "v\x1b]0;x\x07y"
COMMAND = "ip -d -j link show"


@pytest.fixture(scope="module")
def real_output() -> str:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.fail("the lab needs unshare and iproute2's ip")
    got = subprocess.run(["unshare", "--net", "sh", "-c",
                          'ip link add name "$1" type veth peer name vethok && ip link set vethok mtu 9000 && '
                          'ip -d -j link show', "sh", HOSTILE],
                         capture_output=True, text=True, timeout=60, check=True)
    assert "\x1b" in got.stdout  # iproute2 really prints the byte raw
    return got.stdout


def test_a_control_byte_in_one_name_keeps_every_interface(real_output):
    (result,) = parse_output(COMMAND, real_output)
    assert not result.notes, result.notes
    assert set(result.pnics) == {HOSTILE, "vethok"}  # the loopback skipped
    assert result.pnics["vethok"]["mtu"].value == 9000
    assert result.pnics[HOSTILE]["is_physical"].value is False  # a veth: linkinfo names its kind
