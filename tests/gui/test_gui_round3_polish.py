"""Issue 27 §20, the rest of the wording and polish: pNIC counts without "physical" (a pNIC is one), permission
refusals under their own heading (not "Inputs not understood"), esxi-pasek-bnx2x's reason naming its finding."""
from __future__ import annotations

from guitools import run_audit
from nicadvisor.gui.pages.discover import REFUSED_HEADING
from nicadvisor.gui.wizard import PageId
from nicadvisor.model.entities import InputProblem


def test_counts_refusals_and_reasons_read_well(make_wizard, qtbot, screenshot):
    wizard = make_wizard(store=None)
    audit = run_audit(wizard, qtbot)
    discover = wizard.pages[PageId.DISCOVER]
    assert "physical pNIC" not in discover.summary.text() and " pNICs · " in discover.summary.text()
    assert all("physical pNIC" not in row[2] for row in discover.hosts_progress.rows())
    # esxi-pasek-bnx2x's NOT READY reason names what is wrong, not just "(vmnic4)"
    pasek = next(h for h in audit.verdict.hosts if h.host == "esxi-pasek-bnx2x")
    assert pasek.reason != "(vmnic4)" and "driver" in pasek.reason, pasek.reason
    # a refusal as collect/ssh.py words it around the real stderr of ethtool run by a non-root account
    # (tests/faults/test_ssh_privileges.py: "netlink error: Operation not permitted")
    n_before = len(audit.inputs_not_understood)
    refusal = InputProblem("ssh://auditor@192.0.2.10:22",
                           "'ethtool eth0' was partly refused to user 'auditor' on 192.0.2.10:22: netlink error: "
                           "Operation not permitted; the rest of its output was read (part of this query needs more "
                           "privileges than the account has: root on Linux)", "ethtool eth0")
    audit.inputs_not_understood.append(refusal)
    discover._show(audit)
    heading = discover.problems.topLevelItem(0)
    assert heading.text(0) == f"{REFUSED_HEADING}  (1)" and heading.childCount() == 1
    assert heading.child(0).toolTip(0) == f"{refusal.source}: {refusal.message}"
    title = discover.problems_box.title()
    assert title.startswith(f"Inputs not understood ({n_before} ") and title.endswith(
        " · refused for lack of privilege (1)"), title
    others = [discover.problems.topLevelItem(i).text(0) for i in range(1, discover.problems.topLevelItemCount())]
    assert not any(t.startswith("ssh://auditor@") for t in others)
    for size in ((1200, 800), (1920, 1080)):
        wizard.resize(*size)
        screenshot(wizard, f"discover-refused-{size[0]}")


def test_what_is_checked_names_every_program_the_ssh_audit_runs(make_wizard, qtbot, screenshot):
    """Issue 27 §20: "What is checked" named fewer commands than the SSH audit runs (no cat, readlink, ip, lldpctl)."""
    from nicadvisor.commands import collected

    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    text, tip = connect.ssh_commands.text(), connect.ssh_commands.toolTip()
    for platform in ("esxi", "linux"):
        for command in collected(platform):  # what the SSH collectors send (collect/ssh_commands.py)
            assert command.words[0] in text and f"  {command.text}\n" in tip + "\n", command.text
    for program in ("cat", "readlink", "ip", "lldpctl", "ethtool", "esxcli", "vsish"):
        assert f" {program}," in text or f" {program}<" in text, program
    connect.tabs.setCurrentIndex(connect.tabs.indexOf(connect.ssh_commands.parentWidget()))
    for size in ((1200, 800), (1920, 1080)):
        wizard.resize(*size)
        screenshot(wizard, f"connect-what-is-checked-{size[0]}")


def test_one_settings_location_and_the_old_file_is_moved(tmp_path, monkeypatch, qapp):
    """Issue 27 §20: settings were split between ``~/.config/nicadvisor/NIC Advisor.conf`` (QSettings' own place) and
    ``~/.config/nic-advisor/`` (known_hosts, tls_pins, rules). Now one folder; the old file is moved on first use."""
    from PySide6.QtCore import QSettings

    from nicadvisor.collect import known_hosts, tls_pins
    from nicadvisor.gui import settings as app_settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(app_settings, "_migrated", set())
    old = QSettings(app_settings.ORGANIZATION, app_settings.APPLICATION)  # where an older version wrote them
    old.setValue(app_settings.EXPORT_FOLDER, str(tmp_path / "reports"))
    old.sync()
    old_file = old.fileName()
    del old
    assert app_settings.load_export_folder() == str(tmp_path / "reports")  # moved, then read from the new file
    new_file = app_settings.settings_path()
    assert new_file.parent == known_hosts.default_path().parent == tls_pins.default_path().parent
    assert new_file.is_file() and str(tmp_path / "reports") in new_file.read_text()
    assert not __import__("os").path.exists(old_file)
    app_settings.save_export_folder(str(tmp_path / "later"))
    assert app_settings.load_export_folder() == str(tmp_path / "later")


def test_an_old_settings_file_that_cannot_be_deleted_is_said_and_its_folder_kept(tmp_path, monkeypatch, qapp, caplog):
    """The old settings are still moved when their file cannot be deleted (a warning says so, naming the file), and
    the old folder stays while it holds another file of the user's."""
    import os
    from pathlib import Path

    from PySide6.QtCore import QSettings

    from nicadvisor.gui import settings as app_settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(app_settings, "_migrated", set())
    old = QSettings(app_settings.ORGANIZATION, app_settings.APPLICATION)
    old.setValue(app_settings.EXPORT_FOLDER, str(tmp_path / "reports"))
    old.sync()
    old_file = Path(old.fileName())
    del old
    (old_file.parent / "notes.txt").write_text("the user's own file\n")
    real_unlink = Path.unlink

    def refuse(self, *args, **kwargs):  # the old file cannot be deleted (e.g. a read-only home)
        if self == old_file:
            raise PermissionError(13, "Permission denied", str(self))
        return real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", refuse)
    with caplog.at_level("WARNING", logger=app_settings.__name__):
        assert app_settings.load_export_folder() == str(tmp_path / "reports")
    assert old_file.is_file() and any(str(old_file) in r.getMessage() and "Permission denied" in r.getMessage()
                                      for r in caplog.records)
    monkeypatch.setattr(Path, "unlink", real_unlink)
    monkeypatch.setattr(app_settings, "_migrated", set())
    app_settings.migrate_old(app_settings.settings())  # deletable now: the file goes, the folder with notes.txt stays
    assert not old_file.exists() and os.path.isdir(old_file.parent) and (old_file.parent / "notes.txt").is_file()


def test_the_hosts_tree_placeholder_is_whole(make_wizard, qtbot, tmp_path, screenshot):
    """Issue 27 §20: the vCenter tab's hosts-tree placeholder ("Add a vCenter, then click Browse hosts (or T…") was cut,
    at 1920 px too. It is a wrapped label in the tree's place, shown whole; the Discover tree's placeholder too."""
    for size in ((1920, 1080), (1200, 800)):
        wizard = make_wizard(store=None)
        wizard.resize(*size)
        connect = wizard.pages[PageId.CONNECT]
        connect.tabs.setCurrentWidget(connect.vcenter_editor)
        qtbot.wait(50)
        panel = connect.vcenter_editor.hosts
        label = panel.placeholder
        assert label.isVisible() and not panel.tree.isVisible() and label.wordWrap()
        assert label.text().startswith("Add a vCenter, then click Browse hosts (or Test connection)")
        assert label.height() >= label.heightForWidth(label.width()), (size, label.size())
        screenshot(wizard, f"connect-vcenter-{size[0]}")
        connect.capture_radio.setChecked(True)
        connect.capture_edit.setText(str(tmp_path / "no-such-capture.txt"))
        run_audit(wizard, qtbot, wait_next=False)
        tree = wizard.pages[PageId.DISCOVER].tree
        qtbot.wait(50)
        item = tree.topLevelItem(0)
        assert item.text(0).startswith("No host was found in the inputs")
        rect = tree.visualItemRect(item)
        needed = tree.fontMetrics().horizontalAdvance(item.text(0)) + tree.indentation()
        assert rect.width() >= needed and rect.right() <= tree.viewport().width(), (size, rect, needed)
        screenshot(wizard, f"discover-no-host-{size[0]}")
        wizard.shutdown()
