"""Issue "Verdicts an admin can trust" in the wizard: bad and failed inputs show NOT RATED with the causes on
Discover, Inspect and Findings and in the history (never "every rule passed", never a green "done"); a failed
live target's row says it failed and why; the matrix can be sorted, filtered to problems and grouped by host.
Screenshots: wizard-discover-not-rated, wizard-findings-not-rated, wizard-discover-live-failed,
wizard-inspect-problems."""
from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import Qt

from guitools import next_enabled
from guitools import run_audit as _run
from nicadvisor.gui.state import SshSpec, VcenterSpec
from nicadvisor.gui.wizard import PageId
from nicadvisor.model.capabilities import CAPABILITIES, FAIL, STATUS_ORDER, WARN
from nicadvisor.store import AuditStore



def run_audit(wizard, qtbot):
    return _run(wizard, qtbot, wait_next=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("kind", ["empty folder", "missing path"])
def test_bad_input_is_not_rated_on_every_page_and_in_the_history(kind, make_wizard, qtbot, tmp_path, screenshot):
    bad = tmp_path / ("empty" if kind == "empty folder" else "no-such-bundle.tgz")
    if kind == "empty folder":
        bad.mkdir()
    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store)
    connect = wizard.pages[PageId.CONNECT]
    connect.capture_radio.setChecked(True)
    qtbot.keyClicks(connect.capture_edit, str(bad))
    audit = run_audit(wizard, qtbot)
    discover = wizard.pages[PageId.DISCOVER]
    headline = "? NOT RATED: no physical NIC could be read from the inputs"
    assert discover.banner.isVisible() and discover.banner.plain_text().splitlines()[0] == headline
    assert discover.banner.plain_text().splitlines()[1].startswith(f"{bad}: ")  # the cause, first
    assert discover.progress.failed and discover.progress.status.text().startswith("Audit failed:")
    if kind == "missing path":
        screenshot(wizard, "discover-not-rated")
    # the history says so too, as soon as it is written
    line = store.summary(audit.history_id)
    assert line.display_status == "nothing read" and line.verdict_of().headline == audit.verdict.headline

    qtbot.waitUntil(lambda: next_enabled(wizard))  # a not-rated audit can still be exported, labelled
    wizard.next()
    inspect = wizard.pages[PageId.INSPECT]
    assert inspect.banner.plain_text().splitlines()[0] == headline
    wizard.next()  # Benchmark
    wizard.next()
    findings = wizard.pages[PageId.FINDINGS]
    assert wizard.currentId() == PageId.FINDINGS
    assert findings.banner.plain_text().splitlines()[0] == headline
    detail = findings.detail.toPlainText()
    assert "every rule passed" not in detail and "no conclusion" in detail
    if kind == "missing path":
        screenshot(wizard, "findings-not-rated")
    wizard.next()
    assert wizard.currentId() == PageId.EXPORT  # exporting a not-rated audit is allowed, and labelled
    assert wizard.pages[PageId.EXPORT].banner.plain_text().splitlines()[0] == headline

    while wizard.currentId() != PageId.CONNECT:
        wizard.back()
    panel = connect.history
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1)
    row = [panel.table.item(0, c).text() for c in range(panel.table.columnCount())]
    assert row[2] == "✖ nothing read" and row[3] == headline


def test_failed_live_targets_say_failed_and_why(make_wizard, qtbot, tmp_path, screenshot):
    vc_port, ssh_port = closed_port(), closed_port()
    wizard = make_wizard(store=AuditStore(tmp_path / "history.sqlite3"))
    state = wizard.state
    state.vcenters.append(VcenterSpec(url=f"https://127.0.0.1:{vc_port}", user="admin", password="x"))
    state.ssh_hosts.append(SshSpec(spec=f"root@127.0.0.1:{ssh_port}", kind="esxi", password="x"))
    connect = wizard.pages[PageId.CONNECT]
    connect.live_radio.setChecked(True)
    audit = run_audit(wizard, qtbot)
    discover = wizard.pages[PageId.DISCOVER]
    rows = discover.hosts_progress.rows()
    tops = [r for r in rows if r[3] == 0]
    assert len(tops) == 2
    for name, step, status, _depth in tops:
        assert step != "waiting" and status.startswith("✖ "), (name, step, status)
        assert "refused" in status.lower() or "connect" in status.lower(), status
    assert audit.verdict.status == "not_rated"
    text = discover.banner.plain_text()
    assert text.startswith("? NOT RATED: no physical NIC could be read from the inputs")
    assert f"vcenter://127.0.0.1:{vc_port}" in text and f"127.0.0.1:{ssh_port}" in text
    assert discover.progress.failed
    screenshot(wizard, "discover-live-failed")


def test_matrix_sorts_filters_and_groups(make_wizard, qtbot, screenshot):
    wizard = make_wizard()
    audit = run_audit(wizard, qtbot)
    qtbot.waitUntil(lambda: next_enabled(wizard))
    wizard.next()
    inspect = wizard.pages[PageId.INSPECT]
    model, proxy = inspect.model, inspect.proxy
    assert inspect.banner.plain_text().splitlines()[0] == f"{audit.verdict.symbol} {audit.verdict.headline}"
    total = model.rowCount()
    assert inspect.count.text() == f"{total} of {total} pNICs"

    # filter to problems: only rows with a warn or fail cell remain
    inspect.row_filter.setCurrentIndex(inspect.row_filter.findData("problems"))
    shown = inspect.visible_rows()
    assert 0 < len(shown) < total
    rows = {(r.host, r.pnic): r for r in model.rows}
    assert all({c.status for c in rows[k].cells.values()} & {WARN, FAIL} for k in shown)
    assert inspect.count.text() == f"{len(shown)} of {total} pNICs"
    # and to one host
    inspect.host_filter.setCurrentIndex(inspect.host_filter.findData("esxi-sio4-nsxv"))
    assert inspect.visible_rows() == [("esxi-sio4-nsxv", "vmnic1")]
    inspect.host_filter.setCurrentIndex(0)
    inspect.row_filter.setCurrentIndex(0)

    # sort by the MTU column, worst first, not grouped: the worst status precedes every other (in the demo lab a
    # warning: since issue 17 §1 the nested host's vmkping on its management netstack fails no pNIC)
    mtu_col = 1 + [c.key for c in CAPABILITIES].index("mtu")
    inspect.group_box.setChecked(False)
    inspect.table.sortByColumn(mtu_col, Qt.SortOrder.AscendingOrder)
    order = [STATUS_ORDER.index(rows[k].cells["mtu"].status) for k in inspect.visible_rows()]
    assert order == sorted(order) and order[0] == STATUS_ORDER.index(WARN) and order[-1] > order[0]
    # grouped by host: hosts stay together (in order), the MTU status sorts within each host
    inspect.group_box.setChecked(True)
    hosts = [h for h, _p in inspect.visible_rows()]
    assert hosts == sorted(hosts, key=[h.name for h in sorted(audit.hosts, key=lambda h: h.name)].index)
    inspect.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)

    # the detail pane lists path findings with where they are and why the cell is what it is
    src = next(i for i, r in enumerate(model.rows) if (r.host, r.pnic) == ("esxi-sio4-nsxv", "vmnic1"))
    inspect.select_cell(src, mtu_col)
    detail = inspect.detail.toPlainText()
    assert "on esxi-sio4-nsxv/vDS-C-Transport" in detail and "on esxi-sio4-nsxv/vmk2" in detail
    assert "Why:" in detail
    inspect.row_filter.setCurrentIndex(inspect.row_filter.findData("problems"))
    assert "on esxi-sio4-nsxv/vDS-C-Transport" in inspect.detail.toPlainText()  # still shown: still visible
    screenshot(wizard, "inspect-problems")
    inspect.host_filter.setCurrentIndex(inspect.host_filter.findData("esxi-vcf9-nested"))
    # its cell is filtered out: the pane never shows a hidden cell, only the current visible one (or nothing)
    assert "esxi-sio4-nsxv" not in inspect.detail.toPlainText()


def test_past_audits_compare_name_and_search(make_wizard, qtbot, tmp_path):
    import shutil

    from capturetools import CAPTURES
    from nicadvisor.services.audit import AuditRequest
    from nicadvisor.services.audit import run_audit as audit_now

    store = AuditStore(tmp_path / "history.sqlite3")
    ids = []
    for name, capture in (("before", "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"),
                          ("after", "unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt")):
        folder = tmp_path / name / "esx-a"
        folder.mkdir(parents=True)
        shutil.copy(CAPTURES / capture, folder / capture)
        ids.append(audit_now(AuditRequest(capture_paths=(str(folder),)), store=store).history_id)
    wizard = make_wizard(store=store)
    panel = wizard.pages[PageId.CONNECT].history
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2)
    assert not panel.compare_button.isEnabled()
    panel.table.selectAll()
    assert panel.compare_button.isEnabled() and not panel.open_button.isEnabled()
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.compare_dialog is not None, timeout=10_000)
    text = panel.compare_dialog.findChild(type(wizard.pages[PageId.INSPECT].detail)).toPlainText()
    assert f"#{ids[0]} → #{ids[1]}" in panel.compare_dialog.windowTitle()
    assert "esx-a/vmnic0 (pNIC) mtu: 9000 → 1500" in text and "Findings new" in text
    panel.compare_dialog.close()

    panel.table.clearSelection()
    panel.select_id(ids[0])
    qtbot.mouseClick(panel.name_button, Qt.MouseButton.LeftButton)
    assert panel.name_dialog is not None
    panel.name_dialog.setTextValue("before the MTU change")
    panel.name_dialog.accept()
    qtbot.waitUntil(lambda: any(panel.table.item(r, 1).text() == "before the MTU change"
                                for r in range(panel.table.rowCount())), timeout=10_000)
    assert store.summary(ids[0]).name == "before the MTU change"
    panel.search.setText("MTU change")
    assert panel.visible_ids() == [ids[0]]
    panel.search.clear()
    assert sorted(panel.visible_ids()) == sorted(ids)
