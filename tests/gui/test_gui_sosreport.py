"""The wizard audits a sosreport given on the Connect page as it does a capture folder: the same services read it
(a real sos tree of canonical/hotsos, packed as ``.tar.xz`` at test time; see tests/collect/sosreports/README.md)."""
from __future__ import annotations

import tarfile
from pathlib import Path

from guitools import run_audit

from nicadvisor.gui.wizard import PageId

TREE = Path(__file__).resolve().parents[1] / "collect" / "sosreports" / "hotsos-kubernetes"


def test_wizard_audits_a_sosreport_archive(make_wizard, qtbot, tmp_path, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    archive = tmp_path / "sosreport-juju-110cc2-k8stest-4-2023-01-20-abcdefg.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(TREE, arcname=archive.name.removesuffix(".tar.xz"))
    wizard = make_wizard()
    connect = wizard.pages[PageId.CONNECT]
    assert "sosreport" in connect.bundle_button.text()
    connect.add_paths([str(archive)])
    audit = run_audit(wizard, qtbot)
    assert [h.name for h in audit.hosts] == ["juju-110cc2-k8stest-4"]
    (host,) = audit.hosts
    assert host.kind == "linux" and host.pnic("ens3").mtu == 8958 and host.pnic("ens3").driver == "virtio_net"
    assert audit.inputs_not_understood == []
    assert audit.verdict.label == "NOT RATED"  # a VM: its link speed and RSS are not decided
