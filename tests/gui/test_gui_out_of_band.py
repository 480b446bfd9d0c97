"""The wizard's "Out of band" tab (issue 24 §1): an attestation added with the dialog decides the PCIe cell of the
demo lab's real igb host in the matrix, marked "attested by WHO on DATE"; a BMC (sushy-static serving DMTF's
public-tower mockup on 127.0.0.1, pinned by thumbprint) is read in the same audit and its notes listed. Screenshots:
``wizard-out-of-band.png``, ``wizard-attestation-dialog.png``, ``wizard-inspect-attested.png``."""
from __future__ import annotations

import sys
from pathlib import Path

import yaml
from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QDialogButtonBox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "collect"))

from redfish_bmc import StaticBmc  # noqa: E402

from nicadvisor.gui.wizard import PageId  # noqa: E402
from nicadvisor.model.capabilities import CAPABILITIES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "resources" / "demo-lab" / "linux-igb-mfd"
LABEL = "attested by Alice Admin on 2026-11-30"


def test_attestation_and_bmc_from_the_wizard(make_wizard, qtbot, tmp_path, screenshot, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    wizard = make_wizard()
    connect = wizard.pages[PageId.CONNECT]
    panel = connect.out_of_band
    connect.tabs.setCurrentWidget(panel)
    connect.capture_radio.setChecked(True)
    qtbot.keyClicks(connect.capture_edit, str(HOST))
    attested = tmp_path / "attested.yaml"
    qtbot.keyClicks(panel.file_edit, str(attested))
    assert wizard.state.attestations_file == str(attested)

    with StaticBmc(tmp_path) as bmc:
        for edit, text in ((panel.host, "linux-igb-mfd"), (panel.url, bmc.url), (panel.user, "admin"),
                           (panel.password, "s3cret-bmc"), (panel.thumbprint, bmc.thumbprint)):
            qtbot.keyClicks(edit, text)
        qtbot.mouseClick(panel.add_bmc, Qt.MouseButton.LeftButton)
        assert [b.host for b in wizard.state.bmcs] == ["linux-igb-mfd"] and panel.bmc_list.count() == 1
        screenshot(wizard, "out-of-band")

        key_before = wizard.state.input_key()
        dialog = panel.open_dialog()
        qtbot.waitExposed(dialog)
        dialog.check.setCurrentText("pcie")
        for edit, text in ((dialog.host, "linux-igb-mfd"), (dialog.pnic, "enp2s0"),
                           (dialog.values, "pcie_speed_gts=5; pcie_width=4; pcie_speed_capable_gts=5; "
                                           "pcie_width_capable=4"),
                           (dialog.who, "Alice Admin"), (dialog.how, "BIOS PCIe slot page")):
            qtbot.keyClicks(edit, text)
        dialog.when.setDate(QDate(2026, 11, 30))
        screenshot(dialog, "attestation-dialog")
        with qtbot.waitSignal(dialog.accepted, timeout=10_000):
            qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
        assert yaml.safe_load(attested.read_text())["attestations"][0]["who"] == "Alice Admin"
        assert wizard.state.input_key() != key_before  # the file says more: Discover audits again

        discover = wizard.pages[PageId.DISCOVER]
        with qtbot.waitSignal(discover.sig_audit_done, timeout=120_000) as blocker:
            wizard.next()
        audit = blocker.args[0]

    assert [o.status for o in audit.attestations] == ["decided"]
    # the BMC was read (TLS pinned): its public mockup lists no PCIe function, so enp2s0 is not matched — said so
    assert any(p.source == f"redfish://127.0.0.1:{bmc.port}" and "lists no PCIe function" in p.message
               for p in audit.inputs_not_understood), audit.inputs_not_understood
    qtbot.waitUntil(lambda: wizard.button(wizard.WizardButton.NextButton).isEnabled(), timeout=10_000)
    wizard.next()
    inspect = wizard.pages[PageId.INSPECT]
    model = inspect.model
    col = 1 + [c.key for c in CAPABILITIES].index("pcie")
    shown = model.data(model.index(0, col), Qt.ItemDataRole.DisplayRole)
    tip = model.data(model.index(0, col), Qt.ItemDataRole.ToolTipRole)
    assert "pass" in shown and LABEL in shown  # the cell itself says who attested it, not only the tooltip
    assert LABEL in tip
    screenshot(wizard, "inspect-attested")
