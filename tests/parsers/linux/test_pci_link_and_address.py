"""The PCIe link and PCI address of Linux ports as older tools print them: ``lspci -vv``'s wording before
``LnkCap``/``LnkSta``, and ``ip -d link``'s ``parentbus``/``parentdev`` (the PCI address, and so a physical port; a
switchdev representor sharing its PF's parentdev is no port; virtio gives no PCI address).

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

from capturetools import read_local_capture as read

SSH_FABRIC = "linux_ssh_root_host_quoted_ip-d_link_fabric0_parentdev_abridged_doks_gpu_fabric_guide.txt"

# --- the old lspci -vv wording of the PCIe link (before LnkCap/LnkSta) ----------------------------------------

def test_old_lspci_link_wording_gives_capability_and_status():
    pnics, *_ = read("linux_lspci-vv_old_link_wording_82571EB_2.6.19_lkml_wrapped.txt")  # LKML 2006, mail-wrapped
    for fn in (0, 1):
        p = pnics[f"pci:0000:83:00.{fn}"]
        assert (p["pcie_speed_capable_gts"], p["pcie_width_capable"], p["pcie_speed_gts"], p["pcie_width"]) == \
            (2.5, 4, 2.5, 4)
    # Red Hat Summit slide (the PDF lost every '-', so the header reads 'lspci v v s 09:00.0'): an x8 card at x4
    pnics, *_ = read("rhel5_lspci-vv_old_link_wording_10gbe_x8_card_in_x4_link_dashes_lost_redhat_summit_pdf.txt",
                     "lspci -vv -s 09:00.0")
    p = pnics["pci:0000:09:00.0"]
    assert (p["pcie_width_capable"], p["pcie_width"], p["pcie_speed_gts"]) == (8, 4, 2.5)


# --- ip -d link: parentbus/parentdev give the PCI address (and so a physical port) ---------------------------

def test_ip_details_parentdev_is_the_ports_pci_address():
    pnics, *_ = read("linux_ip-s-d_link_i40e_ens2f0_parentbus_pci_parentdev_portid_vfs_example-cnf.txt")
    assert (pnics["ens2f0"]["pci_address"], pnics["ens2f0"]["is_physical"]) == ("0000:37:00.0", True)
    assert set(pnics) == {"ens2f0"}  # its 'vf N link/ether …' lines are no interfaces
    pnics, *_ = read("linux_ip-details_link_enp5s0_r8168_parentbus_pci_parentdev_batch_commands_then_outputs_bbrv3_"
                     "blog.txt")
    assert pnics["enp5s0"]["pci_address"] == "0000:05:00.0"
    pnics, *_ = read(SSH_FABRIC)  # abridged by its author, the parentdev kept
    assert pnics["fabric0"]["pci_address"] == "0000:86:00.0"


def test_a_representor_sharing_its_pfs_parentdev_is_no_port_and_virtio_is_no_pci_address():
    pnics, *_ = read("linux_ip-d_link_mlx5_switchdev_pf_and_vf_representors_same_parentdev_tester03_notes.txt")
    assert (pnics["enp1s0f0np0"]["pci_address"], pnics["enp1s0f0np0"]["is_physical"]) == ("0000:01:00.0", True)
    for rep in ("enp1s0f0npf0vf0", "enp1s0f1npf1vf0"):  # portname pf0vf0 / pf1vf0
        assert pnics[rep]["is_physical"] is False and "pci_address" not in pnics[rep]
    pnics, *_ = read("linux_ip-d-s_link_bond0_active-backup_slaves_parentbus_virtio_insights-core.txt")
    assert not any("pci_address" in p for p in pnics.values())  # 'parentbus virtio parentdev virtio1'
