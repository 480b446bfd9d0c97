"""The vCenter tab's host tree (cluster scoping): Browse hosts against govmomi's vcsim, tri-state check boxes,
the checked hosts as the vCenter's audit scope, and an audit of only those hosts.

Also the pure scope mapping (:mod:`nicadvisor.gui.scope`) on a hand-made tree.

Screenshot: wizard-connect-vcenter-hosts.
"""
from __future__ import annotations

import sys
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QPoint, Qt

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "live") not in sys.path:
    sys.path.insert(0, str(HERE.parent / "live"))

import vcsimtools  # noqa: E402
from testkeyring import MemoryKeyring  # noqa: E402

from nicadvisor.collect.tls_pinning import fetch_thumbprint  # noqa: E402
from nicadvisor.collect.vsphere import InventoryNode  # noqa: E402
from nicadvisor.gui.scope import Scope, hosts_in_scope, scope_of_selection, scope_text  # noqa: E402
from nicadvisor.gui.wizard import PageId  # noqa: E402

LEFT = Qt.MouseButton.LeftButton
UNCHECKED = Qt.CheckState.Unchecked
CHECKED = Qt.CheckState.Checked


@pytest.fixture(scope="module")
def vcsim(tmp_path_factory):
    """2 datacenters × (2 clusters of 2 hosts + 1 standalone host) = 10 hosts; DC0_C0_H1 in maintenance mode
    and DC1_H0 disconnected (set with govc)."""
    try:
        sim = vcsimtools.start_vcsim(tmp_path_factory.mktemp("vcsim-tree"), "-dc", "2", "-cluster", "2", "-host", "2",
                                     "-standalone-host", "1", "-vm", "0")
    except vcsimtools.ToolMissing as exc:
        pytest.skip(str(exc))
    try:
        sim.govc("host.maintenance.enter", "/DC0/host/DC0_C0/DC0_C0_H1")
        sim.govc("host.disconnect", "/DC1/host/DC1_H0/DC1_H0")
    except vcsimtools.ToolMissing as exc:
        sim.stop()
        pytest.skip(str(exc))
    yield sim
    sim.stop()


@pytest.fixture
def memory_keyring():
    """A usable (in-memory) keyring, so that the Connect page shows no keyring warning."""
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield
    keyring.set_keyring(previous)


def test_browse_uncheck_cluster_then_audit_only_checked_hosts(make_wizard, qtbot, vcsim, screenshot, memory_keyring):
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.vcenter_editor
    panel = editor.hosts
    assert "Add a vCenter" in panel.tree.topLevelItem(0).text(0) and not panel.browse_button.isEnabled()

    url = f"https://127.0.0.1:{vcsim.port}"
    editor.url.setText(url)
    editor.user.setText(vcsimtools.USER)
    editor.password.setText(vcsimtools.PASSWORD)
    editor.thumbprint.setText(fetch_thumbprint("127.0.0.1", vcsim.port, 10))
    spec = editor.add_from_form()
    assert spec is not None and editor.hosts_spec() is spec and panel.browse_button.isEnabled()
    scope_col = editor.COLUMNS.index("Scope")
    assert editor.table.item(0, scope_col).text() == "all hosts"  # not browsed yet
    assert panel.tree.topLevelItem(0).text(0).startswith(f"Click Browse hosts (or Test connection) to list the hosts "
                                                        f"of 127.0.0.1:{vcsim.port}")

    # A successful Test connection reads the tree on a worker.
    with qtbot.waitSignal(connect.sig_hosts_listed, timeout=30_000) as blocker:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    result = blocker.args[1]
    assert result.ok and result.message == "10 hosts in 2 datacenters"
    assert spec.status.startswith(f"✔ connected as {vcsimtools.USER}")
    assert editor.table.item(0, scope_col).text() == "all hosts (10)"
    assert panel.status.text().startswith("✔ 10 hosts in 2 datacenters.")
    assert panel.rows() == [
        ("DC0", "5 of 5 hosts", 0, "checked"),
        ("DC0_C0", "2 of 2 hosts", 1, "checked"),
        ("DC0_C0_H0", "connected", 2, "checked"),
        ("DC0_C0_H1", "maintenance mode", 2, "checked"),
        ("DC0_C1", "2 of 2 hosts", 1, "checked"),
        ("DC0_C1_H0", "connected", 2, "checked"),
        ("DC0_C1_H1", "connected", 2, "checked"),
        ("DC0_H0", "connected", 1, "checked"),  # a standalone host sits right under its datacenter
        ("DC1", "5 of 5 hosts", 0, "checked"),
        ("DC1_C0", "2 of 2 hosts", 1, "checked"),
        ("DC1_C0_H0", "connected", 2, "checked"),
        ("DC1_C0_H1", "connected", 2, "checked"),
        ("DC1_C1", "2 of 2 hosts", 1, "checked"),
        ("DC1_C1_H0", "connected", 2, "checked"),
        ("DC1_C1_H1", "connected", 2, "checked"),
        ("DC1_H0", "disconnected", 1, "checked"),
    ]
    assert panel.item_named("DC1_H0").foreground(1).color().name() == "#b00020"
    assert panel.item_named("DC0_C0_H1").foreground(1).color().name() == "#8a5a00"

    # Unchecking a datacenter: the scope is the other datacenter.
    with qtbot.waitSignal(editor.sig_scope_changed, timeout=5000):
        panel.item_named("DC1").setCheckState(0, UNCHECKED)
    assert (spec.datacenter, spec.cluster, spec.host_names) == ("DC0", "", ())
    assert editor.table.item(0, scope_col).text() == "DC0: 5 of 10 hosts"
    assert [r[3] for r in panel.rows() if r[0].startswith("DC1")] == ["unchecked"] * 8

    # Unchecking one cluster of it: the scope is the three remaining hosts, by name.
    with qtbot.waitSignal(editor.sig_scope_changed, timeout=5000):
        panel.item_named("DC0_C1").setCheckState(0, UNCHECKED)
    assert (spec.datacenter, spec.cluster, spec.host_names) == ("", "", ("DC0_C0_H0", "DC0_C0_H1", "DC0_H0"))
    assert editor.table.item(0, scope_col).text() == "3 of 10 hosts"
    assert panel.rows()[0] == ("DC0", "3 of 5 hosts", 0, "partial")
    assert panel.title.text() == f"<b>Hosts of 127.0.0.1:{vcsim.port} — audit scope: 3 of 10 hosts</b>"
    editor.table.selectRow(0)  # the form follows the tree (no datacenter / cluster typed)
    assert (editor.datacenter.text(), editor.cluster.text()) == ("", "")
    for name in ("DC1_C0", "DC1_C1"):  # folded, so that the disconnected DC1_H0 shows in the picture
        panel.item_named(name).setExpanded(False)
    screenshot(wizard, "connect-vcenter-hosts")

    # Nothing checked is refused: the scope stays.
    with qtbot.waitSignal(panel.sig_selection_changed, timeout=5000) as blocker:
        panel.item_named("DC0").setCheckState(0, UNCHECKED)
    assert blocker.args == [None]
    assert panel.status.text().startswith("▲ No host is checked")
    assert spec.host_names == ("DC0_C0_H0", "DC0_C0_H1", "DC0_H0")
    with qtbot.waitSignal(panel.sig_selection_changed, timeout=5000):
        panel.item_named("DC0_C0").setCheckState(0, CHECKED)
        panel.item_named("DC0_H0").setCheckState(0, CHECKED)
    assert spec.host_names == ("DC0_C0_H0", "DC0_C0_H1", "DC0_H0") and panel.status.text().startswith("✔ 10 hosts")

    # Editing the target keeps the tree and its scope; typing another cluster replaces the host names.
    editor.update_selected()
    spec = wizard.state.vcenters[0]
    assert spec.host_names == ("DC0_C0_H0", "DC0_C0_H1", "DC0_H0") and spec.inventory is not None
    assert panel.rows()[0] == ("DC0", "3 of 5 hosts", 0, "partial")

    # The audit reads only the checked hosts.
    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=60_000) as blocker:
        wizard.next()
    audit = blocker.args[0]
    assert sorted(h.name for h in audit.hosts) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_H0"]
    label = f"127.0.0.1:{vcsim.port}"
    maint = next(h for dc in spec.inventory for h in dc.hosts() if h.name == "DC0_C0_H1")
    assert maint.in_maintenance is True
    assert (f"vcenter://{label}/{maint.ref.split(':')[1]}: host DC0_C0_H1 is in maintenance mode in vCenter {label}"
            in discover.problem_texts())
    rows = discover.hosts_progress.rows()
    assert rows[0][0] == f"vCenter {label}" and rows[0][2].startswith("▲ 3 hosts read")

    # Typing a cluster in the form replaces the tree's host names by that cluster.
    editor.table.selectRow(0)
    editor.cluster.setText("DC0_C1")
    editor.update_selected()
    spec = wizard.state.vcenters[0]
    assert (spec.datacenter, spec.cluster, spec.host_names) == ("", "DC0_C1", ())
    assert editor.table.item(0, scope_col).text() == "DC0_C1: 2 of 10 hosts"
    assert [r[0] for r in panel.rows() if r[3] == "checked"] == ["DC0_C1", "DC0_C1_H0", "DC0_C1_H1"]


def test_browse_refused_login_is_shown(make_wizard, qtbot, vcsim):
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.vcenter_editor
    editor.url.setText(f"https://127.0.0.1:{vcsim.port}")
    editor.user.setText(vcsimtools.USER)
    editor.password.setText("not-the-password")
    editor.thumbprint.setText(fetch_thumbprint("127.0.0.1", vcsim.port, 10))
    spec = editor.add_from_form()
    with qtbot.waitSignal(connect.sig_hosts_listed, timeout=30_000) as blocker:
        qtbot.mouseClick(editor.hosts.browse_button, LEFT)
    result = blocker.args[1]
    assert not result.ok and spec.inventory is None
    assert result.message == (f"127.0.0.1:{vcsim.port}: logging in failed: login refused for user "
                              f"{vcsimtools.USER!r}: wrong user name or password")
    assert editor.hosts.status.text() == f"✖ the hosts could not be listed: {result.message}"
    assert "not-the-password" not in editor.hosts.status.text()
    assert editor.hosts.browse_button.isEnabled()


def test_esxcli_over_api_checkbox_reaches_the_collector(make_wizard, qtbot, vcsim):
    """"also run esxcli through the vSphere API" → VcenterSpec.esxcli → VsphereTarget(esxcli=True): vcsim
    implements no esxcli namespace, so the audit reports it per vCenter (the message checked against vcsim in
    tests/live/test_vsphere_esxcli.py)."""
    from nicadvisor.gui import probes
    from nicadvisor.gui.widgets.target_editor import ESXCLI_TEXT

    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.vcenter_editor
    assert editor.esxcli.text() == ESXCLI_TEXT == "also run esxcli through the vSphere API (locked-down hosts)"
    assert not editor.esxcli.isChecked()
    editor.url.setText(f"https://127.0.0.1:{vcsim.port}")
    editor.user.setText(vcsimtools.USER)
    editor.password.setText(vcsimtools.PASSWORD)
    editor.thumbprint.setText(fetch_thumbprint("127.0.0.1", vcsim.port, 10))
    editor.cluster.setText("DC0_C0")
    qtbot.mouseClick(editor.esxcli, LEFT, pos=QPoint(6, editor.esxcli.height() // 2))  # on the box itself
    spec = editor.add_from_form()
    assert spec is not None and spec.esxcli is True
    assert not editor.esxcli.isChecked()  # the form was cleared
    assert editor.table.item(0, editor.COLUMNS.index("esxcli")).text() == "via API"
    assert probes.vsphere_target(spec, "pw").esxcli is True
    editor.table.selectRow(0)
    assert editor.esxcli.isChecked()  # the form follows the selected target
    key = spec.key()
    editor.esxcli.setChecked(False)
    editor.update_selected()
    assert wizard.state.vcenters[0].esxcli is False and wizard.state.vcenters[0].key() != key  # audited again
    assert editor.table.item(0, editor.COLUMNS.index("esxcli")).text() == "no"
    editor.esxcli.setChecked(True)
    editor.update_selected()

    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=60_000) as blocker:
        wizard.next()
    audit = blocker.args[0]
    assert sorted(h.name for h in audit.hosts) == ["DC0_C0_H0", "DC0_C0_H1"]
    label = f"127.0.0.1:{vcsim.port}"
    expected = (f"vCenter {label}: esxcli over the vSphere API (esxcli network nic list, esxcli network nic get, "
                "esxcli network nic coalesce get, esxcli system module parameters list) not available on 2 "
                "host(s): MethodNotFound (RetrieveManagedMethodExecuter)")
    assert any(text.endswith(expected) for text in discover.problem_texts()), discover.problem_texts()


# --- the scope mapping, on a hand-made tree ------------------------------------------------------------

def _tree() -> list[InventoryNode]:
    def host(name: str, n: int) -> InventoryNode:
        return InventoryNode("host", name, f"HostSystem:host-{n}", connection_state="connected", in_maintenance=False)

    return [
        InventoryNode("datacenter", "DC0", "Datacenter:dc-0", [
            InventoryNode("cluster", "C0", "ClusterComputeResource:c-0", [host("a", 1), host("b", 2)]),
            InventoryNode("cluster", "C1", "ClusterComputeResource:c-1", [host("c", 3)]),
            InventoryNode("standalone", "d", "ComputeResource:s-0", [host("d", 4)]),
        ]),
        InventoryNode("datacenter", "DC1", "Datacenter:dc-1", [
            InventoryNode("cluster", "C0", "ClusterComputeResource:c-2", [host("e", 5)]),
        ]),
    ]


@pytest.mark.parametrize(("checked", "scope"), [
    ({1, 2, 3, 4, 5}, Scope()),
    ({1, 2, 3, 4}, Scope(datacenter="DC0")),
    ({5}, Scope(datacenter="DC1")),  # the whole datacenter, rather than its one cluster
    ({1, 2}, Scope(datacenter="DC0", cluster="C0")),  # cluster names repeat across datacenters
    ({4}, Scope(host_names=("d",))),  # a standalone host is not a cluster
    ({1, 2, 5}, Scope(host_names=("a", "b", "e"))),
    (set(), None),
])
def test_scope_of_selection(checked, scope):
    tree = _tree()
    refs = {f"HostSystem:host-{n}" for n in checked}
    assert scope_of_selection(tree, refs) == scope
    if scope is not None:  # the scope reads back exactly the checked hosts
        assert {h.ref for h in hosts_in_scope(tree, scope)} == refs


def test_scope_text():
    tree = _tree()
    assert scope_text("", "", (), None) == "all hosts"
    assert scope_text("DC0", "C0", (), None) == "DC0 / C0"
    assert scope_text("", "", ("a", "b"), None) == "2 named hosts"
    assert scope_text("", "", (), tree) == "all hosts (5)"
    assert scope_text("DC0", "", (), tree) == "DC0: 4 of 5 hosts"
    assert scope_text("", "C0", (), tree) == "C0: 3 of 5 hosts"
    assert scope_text("", "", ("A", "e"), tree) == "2 of 5 hosts"  # names compare case-insensitively
