"""A laptop's or workstation's capture names interfaces no NSX host switch can use: VirtualBox's host-only adapter
``vboxnet0`` and a wireless LAN port ``wlp3s0``. They are not pNICs, so the verdict never counts them among the MTU
changes before the rollout (the previous session's note: "laptop captures count vboxnet0/wlp3s0 among the MTU
configuration changes")."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nicadvisor.cli import main
from nicadvisor.parsers.linux.pseudo import pseudo_reason, software_device

CAPTURES = Path(__file__).resolve().parents[1] / "captures"


@pytest.mark.parametrize(("capture", "gone", "kept"), [
    ("linux_netstat-i_and_netstat-ie_old_ifconfig_layout_eth1_vboxnet0_crazygit.txt", "vboxnet0", "eth1"),
    ("linux_ip-s_link_bridge_members_master_virbr0_tun0_link_none_ppp0_insights-core.txt", "wlp3s0", None),
])
def test_host_only_and_wireless_ports_are_no_pnics_of_the_audit(tmp_path, capture, gone, kept):
    folder = tmp_path / "laptop"
    folder.mkdir()
    shutil.copy(CAPTURES / capture, folder)
    main(["audit", "--capture", str(folder), "--no-history", "--quiet", "--json", str(tmp_path / "a.json")])
    doc = json.loads((tmp_path / "a.json").read_text())
    physical = {p["name"]: p.get("is_physical") for h in doc["hosts"] for p in h["pnics"]}
    assert physical.get(gone, False) is False  # listed as read, never as a pNIC
    if kept:
        assert physical[kept] is not False
    changed = json.dumps(doc["verdict"].get("changes", []))
    assert gone not in changed


def test_the_reason_names_what_the_port_is():
    assert software_device("wlp3s0") and "wireless" in pseudo_reason("wlp3s0")
    assert software_device("wlan0") and software_device("wlx00c0ca3f1a2b")
    assert software_device("vboxnet0") and "host-only" in pseudo_reason("vboxnet0")
    # Ethernet names that merely start alike stay pNICs
    assert not software_device("eth0") and not software_device("enp2s0") and not software_device("wan0")
