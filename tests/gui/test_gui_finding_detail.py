"""The wizard's finding detail says what the reports say (issue 19 §1): the exact change with the host's own names,
how to verify it and how to roll it back, and each document cited by title, version and address — never the
internal reference key (``nsx-t-performance-on-intel.txt §…``) it showed before. On the demo lab.
Screenshot: wizard-findings-steps."""
from __future__ import annotations

from PySide6.QtCore import Qt

from guitools import run_audit
from nicadvisor.gui.wizard import PageId

#: The reference documents' internal file names: a reader never sees them.
INTERNAL = ("nsx-t-performance-on-intel.txt", "vds-ipfix-impact-nsxv.txt", "nsx-latency-part1-dfw.txt",
            "nsx-latency-part2-vxlan-dlr.txt", "vmfex-vs-vswitch-netperf.txt")


def test_the_finding_detail_gives_change_verify_rollback_and_references_by_title(make_wizard, qtbot, screenshot):
    wizard = make_wizard()
    audit = run_audit(wizard, qtbot)  # the demo lab
    while wizard.currentId() != PageId.FINDINGS:
        wizard.next()
    page = wizard.pages[PageId.FINDINGS]
    # esxi-sio4-nsxv: TEP vmk2 at MTU 1600 on the VDS vDS-C-Transport
    tep = next(f for f in audit.findings if f.rule_id == "tep-mtu-below-1700")
    items = [page.tree.topLevelItem(i).child(k) for i in range(page.tree.topLevelItemCount())
             for k in range(page.tree.topLevelItem(i).childCount())]
    item = next(i for i in items if i.data(0, Qt.ItemDataRole.UserRole + 1) is tep)
    page.tree.setCurrentItem(item)
    text = page.detail.toPlainText()
    html = page.detail.toHtml()
    assert tep.change and tep.verify and tep.rollback
    for label, step in (("Change:", tep.change), ("Verify:", tep.verify), ("Roll back:", tep.rollback)):
        assert label in text and step.splitlines()[0] in text
    assert "vmkping ++netstack=vxlan -I vmk2 -d -s 8972 <remote TEP IP>" in text  # the host's own TEP vmknic
    # the documents by title and version, each linked to its address; the white paper says why it has none
    assert ("Testing VMkernel network connectivity with the vmkping command. Broadcom KB 344313 (VMware KB 1003728). "
            "Broadcom (VMware).") in text
    assert 'href="https://knowledge.broadcom.com/external/article?legacyId=1003728"' in html
    assert "VMware NSX-T Data Center: Performance considerations on Intel platforms" in text
    assert "§Jumbo MTU for Higher Throughput" in text and "no public address of this white paper" in text
    assert not any(name in text for name in INTERNAL)
    screenshot(wizard, "findings-steps")

    # an information-only finding has no steps to show
    info = next(f for f in audit.findings if f.severity.value == "info" and not (f.change or f.verify or f.rollback))
    page.tree.setCurrentItem(next(i for i in items if i.data(0, Qt.ItemDataRole.UserRole + 1) is info))
    assert "Roll back:" not in page.detail.toPlainText() and info.message in page.detail.toPlainText()
