"""Routing of the audit's progress messages to per-target / per-host rows (messages in the formats the
collectors emit: nicadvisor.collect.vsphere, .ssh, .nsx and nicadvisor.services.audit)."""
from __future__ import annotations

from types import SimpleNamespace

from nicadvisor.gui.widgets.host_progress import HostProgressTree, TargetRow, route_message
from nicadvisor.model import InputProblem
from nicadvisor.model.verdict import HostVerdict


def test_route_message():
    names = ["vc1.lab:443", "esxi-a", "esxi-a:2222"]
    assert route_message("Inspecting esx-01 (12 outputs)", names) == ("esx-01", "inspecting 12 outputs")
    assert route_message("Inspecting esx-01 (1 output)", names) == ("esx-01", "inspecting 1 output")
    assert route_message("vc1.lab:443: logging in as auditor", names) == ("vc1.lab:443", "logging in as auditor")
    assert route_message("esxi-a:2222: esxcli network nic list", names) == ("esxi-a:2222", "esxcli network nic list")
    assert route_message("esxi-a: connecting to ssh://root@esxi-a:22", names) == (
        "esxi-a", "connecting to ssh://root@esxi-a:22")
    assert route_message("Checking rules and the compatibility database", names) == (
        None, "Checking rules and the compatibility database")


def _pnic(physical=True):
    return SimpleNamespace(is_physical=physical)


def test_tree_rows_and_final_status(qtbot):
    tree = HostProgressTree()
    qtbot.addWidget(tree)
    tree.start([TargetRow("vc1.lab:443", "vcenter", "vcenter://vc1.lab:443", "vCenter vc1.lab:443"),
                TargetRow("esxi-a", "ssh", "ssh://root@esxi-a:22", "ESXi esxi-a (SSH)"),
                TargetRow("esxi-b", "ssh", "ssh://root@esxi-b:22", "ESXi esxi-b (SSH)"),
                TargetRow("nsx.lab", "nsx", "nsx://nsx.lab", "NSX Manager nsx.lab")])
    assert [r[:3] for r in tree.rows()][0] == ("vCenter vc1.lab:443", "waiting", "")
    for message in ("vc1.lab:443: checking the TLS certificate", "vc1.lab:443: h1 (1/2)", "vc1.lab:443: h2 (2/2)",
                    "esxi-a: esxcli network nic list", "connecting to nsx.lab", "transport nodes",
                    "read 1 host(s) from NSX Manager nsx.lab", "Inspecting h1 (1 outputs)",
                    "Inspecting esxi-a (9 outputs)"):
        tree.on_progress(message)
    rows = tree.rows()
    assert rows[0] == ("vCenter vc1.lab:443", "read 2 of 2 hosts", "◷ running", 0)
    assert rows[1] == ("h1", "inspecting 1 output", "◷ inspecting", 1)
    assert rows[2] == ("h2", "read from vc1.lab:443", "◷ read", 1)
    assert rows[3] == ("ESXi esxi-a (SSH)", "inspecting 9 outputs", "◷ inspecting", 0)
    assert rows[5] == ("NSX Manager nsx.lab", "read 1 host(s) from NSX Manager nsx.lab", "◷ read, inspecting", 0)

    verdict = SimpleNamespace(hosts=[HostVerdict("h1", "ready", "no error finding on 2 physical pNICs"),
                                     HostVerdict("h2", "not_ready", "1 error finding (vmnic0)"),
                                     HostVerdict("esxi-a", "not_rated", "the MTU of vmnic0 was not read")])
    audit = SimpleNamespace(
        hosts=[SimpleNamespace(name="h1", pnics=[_pnic(), _pnic()]), SimpleNamespace(name="h2", pnics=[_pnic()]),
               SimpleNamespace(name="esxi-a", pnics=[_pnic(), _pnic(False)])],
        inputs_not_understood=[InputProblem("vcenter://vc1.lab:443", "driver modules could not be read"),
                               InputProblem("ssh://root@esxi-b:22", "cannot connect to esxi-b:22: connection refused")],
        verdict=verdict)
    statuses = tree.finish(audit)
    # an SSH target is its host: its row says that host's verdict (it said "✔ 1 pNIC" in green for a host that was not
    # READY), and counts physical pNICs as the summary does (the pseudo device is named, not counted)
    assert statuses == {"vc1.lab:443": "▲ 2 hosts read · 1 problem",
                        "esxi-a": "? NOT RATED: the MTU of vmnic0 was not read · 1 pNIC read (+ 1 pseudo device)",
                        "esxi-b": "✖ cannot connect to esxi-b:22: connection refused", "nsx.lab": "✔ read"}
    assert tree.row_item("esxi-a").foreground(2).color().name() != "#1b5e20"  # not the green of READY
    # a host row says the host's own verdict (a green tick only for READY), then how many pNICs were read
    assert [r[2] for r in tree.rows() if r[0] in ("h1", "h2")] == [
        "✔ READY: no error finding on 2 physical pNICs · 2 pNICs read",
        "✖ NOT READY: 1 error finding (vmnic0) · 1 pNIC read"]
