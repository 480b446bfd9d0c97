"""Issue 19 §2: what the wizard says reads as sentences. An export into ``FILE/report.pdf`` says FILE is not a folder
("File exists" before); Open PDF / Show folder say when the desktop has no program for them and give the path (they
did nothing); a failed audit's bar is red whole with "failed" on it and says its causes are listed below (they are);
the guide download offline and a bad import name no exception class; an import whose every row was skipped says which
column refused each row; Past audits → Compare rounds as the wizard does and says "no changes"."""
from __future__ import annotations

import re
import socket

from PySide6.QtCore import Qt

from guitools import AUDIT_TIMEOUT_MS, run_audit
from nicadvisor.gui.wizard import PageId
from nicadvisor.store import AuditStore


def to_export(wizard, qtbot):
    run_audit(wizard, qtbot)
    while wizard.currentId() != PageId.EXPORT:
        wizard.next()
    return wizard.pages[PageId.EXPORT]


def test_export_into_a_file_says_it_is_not_a_folder_and_open_says_where(make_wizard, qtbot, tmp_path):
    wizard = make_wizard(store=None)
    export = to_export(wizard, qtbot)
    blocker_file = tmp_path / "FILE"
    blocker_file.write_text("a file, not a folder\n")
    for fmt in export.checks:
        export.checks[fmt].setChecked(fmt in ("pdf", "json"))
    export.edits["pdf"].setText(str(blocker_file / "report.pdf"))
    export.edits["json"].setText(str(tmp_path / "ok" / "report.json"))
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS):
        export.start_export()
    hint = export.hint.text()
    assert f"{blocker_file} is not a folder, so report.pdf cannot be written in it" in hint, hint
    assert "File exists" not in hint and "Errno" not in hint
    # the offscreen desktop has no program to open files: the buttons say so and give the path
    assert export.show_folder_button.isEnabled() and not export.open_pdf_button.isEnabled()
    assert export.show_folder() is False
    assert "no program that opens folders" in export.hint.text() and str(tmp_path / "ok") in export.hint.text()
    export.edits["pdf"].setText(str(tmp_path / "ok" / "report.pdf"))
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS):
        export.start_export()  # report.json exists from the first export: asked, and replaced
        [replace] = [b for b in export.overwrite_box.buttons() if b.text() == "Replace"]
        replace.click()
    qtbot.mouseClick(export.open_pdf_button, Qt.MouseButton.LeftButton)
    assert "no program that opens PDF files" in export.hint.text()
    assert str(tmp_path / "ok" / "report.pdf") in export.hint.text()


def test_a_failed_audit_bar_is_red_whole_and_points_below(make_wizard, qtbot, tmp_path):
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    connect.capture_radio.setChecked(True)
    connect.capture_edit.setText(str(tmp_path / "no-such-capture.txt"))
    run_audit(wizard, qtbot, wait_next=False)
    discover = wizard.pages[PageId.DISCOVER]
    bar = discover.progress.bar
    assert discover.progress.failed and bar.text() == "failed"
    assert bar.value() == bar.maximum()  # the word sits on the red bar, not half outside a short red chunk
    status = discover.progress.status.text()
    assert "listed below" in status and "listed above" not in status
    below = discover.problems_box.mapTo(discover, discover.problems_box.rect().topLeft()).y()
    assert below > discover.progress.mapTo(discover, discover.progress.rect().bottomLeft()).y()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def guide_panel(make_wizard):
    return make_wizard(store=None).pages[PageId.CONNECT].guide_panel


def wait_guide(panel, qtbot):
    qtbot.waitUntil(lambda: panel.pick_button.isEnabled(), timeout=30_000)
    return panel.diff.toPlainText()


def test_guide_download_and_import_errors_are_sentences(make_wizard, qtbot, tmp_path):
    panel = guide_panel(make_wizard)
    url = f"https://127.0.0.1:{closed_port()}/all.json"
    assert panel.download(url=url, confirm=False)
    text = wait_guide(panel, qtbot)
    assert text.startswith("Not imported — nothing was changed: ")
    assert f"{url}: cannot connect (connection refused)" in text, text
    assert not re.search(r"\w+Error\b|HTTPSConnectionPool|Max retries", text), text

    bad = tmp_path / "not-a-guide.json"
    bad.write_text('{"a": 1}')
    panel.prepare([str(bad)])
    text = wait_guide(panel, qtbot)
    assert "not a recognised compatibility-guide format" in text and "GuideFormatError" not in text, text


def test_an_import_whose_every_row_was_skipped_names_the_column(make_wizard, qtbot, tmp_path):
    from nicadvisor.vcg.guide_formats import EXCHANGE_CSV_COLUMNS

    panel = guide_panel(make_wizard)
    rows = [dict(zip(EXCHANGE_CSV_COLUMNS, [""] * len(EXCHANGE_CSV_COLUMNS))) for _ in range(2)]
    for row, (vid, did, driver) in zip(rows, (("8086", "1572", "i40en"), ("15b3", "1015", "nmlx5_core"))):
        row.update(vid=vid, did=did, svid=vid, ssid="0000", vendor="v", model="m", release="ESXi 7.0 U3",
                   driver=driver, driver_version="1.0", driver_type="native")
    csv = tmp_path / "guide.csv"
    csv.write_text(",".join(EXCHANGE_CSV_COLUMNS) + "\n" + "".join(",".join(r[c] for c in EXCHANGE_CSV_COLUMNS) + "\n"
                                                              for r in rows))
    panel.prepare([str(csv)])
    text = wait_guide(panel, qtbot)
    assert "the files hold no device listing" in text
    assert text.count("driver_type 'native' is not inbox, async or empty") == 2, text  # one per row, with its line
    assert "line 2" in text and "line 3" in text and "ValueError" not in text


def test_compare_rounds_and_says_no_changes(make_wizard, qtbot, tmp_path):
    from nicadvisor.services.audit import AuditRequest
    from nicadvisor.services.audit import run_audit as audit_now
    from nicadvisor.services.bench import BenchRequest, run_quick_bench

    report = run_quick_bench(BenchRequest(path="loopback", duration_s=1.0))
    assert report.results, report.problems
    store = AuditStore(tmp_path / "history.sqlite3")
    ids = []
    for benchmarks in (report.results, report.results, []):
        audit = audit_now(AuditRequest(demo=True), store=store)
        store.set_benchmarks(audit.history_id, list(benchmarks))
        ids.append(audit.history_id)
    wizard = make_wizard(store=store)
    panel = wizard.pages[PageId.CONNECT].history
    qtbot.waitUntil(lambda: panel.table.rowCount() == 3)

    def compare(a: int, b: int) -> str:
        panel.table.clearSelection()
        for i in (a, b):
            row = next(r for r in range(panel.table.rowCount()) if panel.table.item(r, 0).data(Qt.ItemDataRole.UserRole + 1) == i)
            panel.table.selectionModel().select(panel.table.model().index(row, 0),
                                                panel.table.selectionModel().SelectionFlag.Select
                                                | panel.table.selectionModel().SelectionFlag.Rows)
        qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.compare_dialog is not None, timeout=10_000)
        text = panel.compare_dialog.findChild(type(wizard.pages[PageId.INSPECT].detail)).toPlainText()
        panel.compare_dialog.close()
        qtbot.waitUntil(lambda: panel.compare_dialog is None)
        return text

    assert "No changes: the same hosts, facts, findings and benchmark results." in compare(ids[0], ids[1])
    text = compare(ids[1], ids[2])
    assert re.search(r"TCP_RR loopback: \d+\.\d µs → not measured", text), text
    assert re.search(r"TCP_STREAM loopback: \d+(\.\d\d Gbit/s|(\.\d+)? Mbit/s) → not measured", text), text
    assert not re.search(r"\d\.\d{3,}", text.split("Benchmarks")[-1]), text  # rounded as the wizard shows them
