"""Issue 25 §1 in the wizard (a small hook): the Connect page takes the target NSX version, the audit keeps it, and
the Discover banner reads the same verdict text as every other view — configuration the rollout sets apart from
the blockers (issue 24 §2)."""
from __future__ import annotations

from guitools import run_audit
from nicadvisor.gui.pages.connect import target_nsx_of
from nicadvisor.gui.wizard import PageId


def test_the_target_nsx_version_goes_into_the_audit_and_the_banner_reads_the_verdict(make_wizard, qtbot):
    wizard = make_wizard()
    connect = wizard.pages[PageId.CONNECT]
    connect.demo_radio.setChecked(True)
    connect.target_nsx_edit.setText(" 4.2 ")
    audit = run_audit(wizard, qtbot)
    assert audit.target_nsx == "4.2" and wizard.state.target_nsx == "4.2"
    banner = wizard.pages[PageId.DISCOVER].banner.plain_text()
    assert banner.splitlines()[0] == f"{audit.verdict.symbol} {audit.verdict.headline}"
    assert "4 configuration changes before the rollout (MTU 1500 → ≥ 1600 on 4 hosts)" in banner
    assert "1 driver change (bnx2x on esxi-pasek-bnx2x)" in banner


def test_a_target_that_is_no_version_is_left_out():
    assert target_nsx_of("4.2.1") == "4.2.1"
    assert target_nsx_of("latest") == "" and target_nsx_of("") == ""
