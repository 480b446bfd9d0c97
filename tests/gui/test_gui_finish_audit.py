"""Issue 16 §2 in the wizard: Discover shows, per host, "Finish this audit" — the read-only commands still needed to
decide every decisive check — as a copyable block, the same list as the CLI, the PDF, the HTML and the JSON; and each
host row names its ESXi release (or that it was not read, with the command that reads it).
Screenshot: wizard-discover-finish."""
from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from guitools import run_audit
from nicadvisor.gui.wizard import PageId


def test_discover_lists_what_each_host_still_needs_and_copies_it(make_wizard, qtbot, screenshot):
    wizard = make_wizard()
    audit = run_audit(wizard, qtbot)  # the demo lab, the wizard's default input
    discover = wizard.pages[PageId.DISCOVER]
    panel = discover.finish
    lacking = [hv for hv in audit.verdict.hosts if hv.finish]
    assert lacking and len(lacking) == len(audit.verdict.hosts)  # no demo host has every decisive check made
    assert panel.host.count() == len(audit.verdict.hosts)
    assert f"({len(lacking)} of {len(audit.verdict.hosts)} hosts lack a decisive check)" in panel.title()
    # choose the Linux E810 host: its MTU and PCIe link were not read
    panel.host.setCurrentIndex(panel.host.findData("linux-e810-pulchart"))
    hv = {h.host: h for h in audit.verdict.hosts}["linux-e810-pulchart"]
    assert panel.text().splitlines() == list(hv.finish) == [
        "cat /sys/class/net/em1/mtu", *(f"cat /sys/class/net/em1/device/{a}" for a in (
            "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"))]
    assert "NOT RATED" in panel.what.text() and "the MTU of em1" in panel.what.text()
    panel.copy.click()
    assert QGuiApplication.clipboard().text() == panel.text()
    # the host rows say the ESXi release, or that it was not read and how to read it
    rows = {discover.tree.topLevelItem(i).text(0): discover.tree.topLevelItem(i).text(6)
            for i in range(discover.tree.topLevelItemCount())}
    assert rows["esxi-hpe-connectx5"].startswith("ESXi release not read (run vmware -vl)")
    assert rows["linux-e810-pulchart"].startswith("Linux ·")
    screenshot(wizard, "discover-finish")
