"""Every Linux change, verify and roll-back command of the rule catalogue, run by the real ``ethtool`` and ``ip`` in
a network namespace on a veth (issue 24 §3 "Commands proven by the real tools").

The commands are those the rules give on real Linux captures (the demo lab's Linux hosts and the Linux captures of
tests/rules/test_rules_on_real_captures.py) and those of the driver catalogue's Linux entries, with the pNIC's name
replaced by the veth's. A parse error (``invalid value``, ``bad command line``, ``garbage``) fails; the veth's own
refusals (``Operation not supported``, a netlink error for a setting it lacks) are allowed. A roll-back restores
exactly what was read wherever the veth has the setting (the MTU; the veth has no combined channels and no
coalescing, which it refuses).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from capturetools import capture_path
from nicadvisor.model import Host, PhysicalNic
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.vcg.driver_catalogue import load_catalogue
from test_local_linux import veth_netns  # noqa: F401  (the project's namespace fixture: va MTU 9000 ↔ vb)

pytestmark = [pytest.mark.root,
              pytest.mark.skipif(os.geteuid() != 0, reason="creating a network namespace needs root"),
              pytest.mark.skipif(not (shutil.which("ethtool") and shutil.which("ip")), reason="needs ethtool and ip")]

LINUX_CAPTURES = ("linux_ethtool-c_ice_e810_static_itr_flattened.txt", "linux_ip-l_x550t_ixgbe_enp5s0f0_mtu1500.txt",
                  "linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_systemd6854.txt", "linux_ethtool-k_igb_enp2s0.txt",
                  "linux_ip-a-s_eno3np2_connectx5_mtu4200_spiderpool_doc.txt")
#: What the real tools print when they cannot parse a command line (ethtool 6.1, iproute2).
PARSE_ERROR = re.compile(r"invalid value|bad command line|garbage|Command line is not complete|unknown (?:argument|"
                         r"command|option)|does not take|requires an argument|Usage:|Error: argument", re.I)
#: The veth's refusals of a setting it does not have: not a fault of the command.
REFUSED = re.compile(r"Operation not supported|netlink error|Could not change any device features|not supported",
                     re.I)
PLACEHOLDERS = {"interface": "va", "queues": "1", "count": "1", "mtu": "1500"}


def _fill(line: str, name: str) -> str | None:
    """``line`` with the pNIC ``name`` → ``va`` and each placeholder filled; None when a placeholder has no stand-in
    here (a peer's address)."""
    line = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "va", line)
    for placeholder in re.findall(r"<[^<>]*>", line):
        value = next((v for k, v in PLACEHOLDERS.items() if k in placeholder.lower()), None)
        if value is None:
            return None
        line = line.replace(placeholder, value)
    return line


def _commands() -> list[tuple[str, str]]:
    """(where it comes from, the command line) for every ethtool/ip line the rules and the catalogue give on Linux."""
    out: list[tuple[str, str]] = []
    audits = [run_audit(AuditRequest(demo=True))]
    for capture in LINUX_CAPTURES:
        folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"nicadv-linuxcmd-{os.getpid()}" / capture / "h"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(capture_path(capture), folder / capture)
        audits.append(run_audit(AuditRequest(capture_paths=(str(folder),))))
        shutil.rmtree(folder.parent, ignore_errors=True)
    # the coalescing roll-back of both adaptive states (the captures read only one)
    for adaptive in (True, False):
        nic = PhysicalNic(name="em1", driver="ice", is_physical=True, coalesce_adaptive_rx=adaptive,
                          coalesce_rx_usecs=50)
        audits.append(type("A", (), {"hosts": [Host(name="h", kind="linux", pnics=[nic])],
                                     "findings": evaluate(load_rules(user=False),
                                                          [Host(name="h", kind="linux", pnics=[nic])])})())
    for audit in audits:
        linux = {h.name for h in audit.hosts if h.kind == "linux"}
        for f in audit.findings:
            if f.host not in linux:
                continue
            name = f.target.partition("/")[2]
            for field in ("change", "verify", "rollback"):
                for line in (getattr(f, field) or "").splitlines():
                    if line.strip().startswith(("ethtool ", "ip ")):
                        filled = _fill(line.strip(), name)
                        if filled:
                            out.append((f"{f.rule_id} {field} on {f.target}", filled))
    catalogue = load_catalogue()
    for os_name, driver in catalogue.drivers("linux"):
        for entry in catalogue._entries[(os_name, driver)].facts:  # noqa: SLF001 - every fact's own templates
            for key in ("set_command", "rollback_command"):
                template = entry.get(key)
                if template:
                    line = template.format(nic="va", driver=driver, value="1", previous="1")
                    out.append((f"catalogue {driver} {entry['capability']} {key}", line))
    return sorted(set(out))


def _run(ns: str, line: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", line], capture_output=True, text=True, timeout=30)


def test_every_linux_command_parses_in_the_real_tools(veth_netns):  # noqa: F811
    commands = _commands()
    assert any("ethtool -C va adaptive-rx on rx-usecs 50" == c for _, c in commands)   # the coalescing roll-back
    assert any(c.startswith("ip link set dev va mtu") for _, c in commands)
    assert not [c for _, c in commands if "rmmod" in c or "adaptive-rx no" in c or "adaptive-rx yes" in c]
    bad = []
    for where, line in commands:
        r = _run(veth_netns, line)
        text = r.stdout + r.stderr
        if PARSE_ERROR.search(text) or (r.returncode != 0 and not REFUSED.search(text)):
            bad.append(f"{where}: {line!r} → rc {r.returncode}: {text.strip()[:200]}")
        # a command that takes the link down brings it back up
        up = _run(veth_netns, "ip -o link show va").stdout
        if ",UP" not in up and "<UP" not in up:
            bad.append(f"{where}: {line!r} left va down")
            _run(veth_netns, "ip link set va up")
        _run(veth_netns, "ip link set dev va mtu 9000")
    assert not bad, "\n".join(bad)


def test_the_mtu_rollback_restores_exactly_what_was_read(veth_netns):  # noqa: F811
    """linux-pnic-mtu-below-1600 on the real capture of an ixgbe port at MTU 1500: the change and the roll-back,
    run on the veth set to that MTU first, leave it at the MTU read."""
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"nicadv-linuxmtu-{os.getpid()}" / "h"
    folder.mkdir(parents=True, exist_ok=True)
    name = "linux_ip-l_x550t_ixgbe_enp5s0f0_mtu1500.txt"
    shutil.copy(capture_path(name), folder / name)
    try:
        audit = run_audit(AuditRequest(capture_paths=(str(folder),)))
    finally:
        shutil.rmtree(folder.parent, ignore_errors=True)
    f = next(f for f in audit.findings if f.rule_id == "linux-pnic-mtu-below-1600")
    assert _run(veth_netns, "ip link set dev va mtu 1500").returncode == 0
    for line in (f.change.splitlines()[0], f.rollback.splitlines()[0]):
        r = _run(veth_netns, _fill(line, "enp5s0f0"))
        assert r.returncode == 0, (line, r.stderr)
    mtu = re.search(r"\bmtu (\d+)", _run(veth_netns, "ip -o link show va").stdout).group(1)
    assert mtu == "1500"
