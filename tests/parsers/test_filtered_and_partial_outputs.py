"""Parsers hold on filtered and partial outputs as admins paste them: facts known only by a PCI address, commands
with sudo/env prefixes, re-indented module info, an Ansible excerpt cut inside its list, grep-filtered ethtool -k
and lspci -vv, kernel log files read like dmesg, nsxdp-cli stats naming their uplink. Each test reads a real capture
of ../shared/fixtures (or a real capture transformed the way pasting transforms it: re-indented, grep-filtered, a
command prefix added, the header removed; named in each test)."""
from __future__ import annotations

import shutil

from capturetools import CAPTURES, capture_path, merged, parse_capture
from nicadvisor.model.capabilities import capability_matrix
from nicadvisor.parsers.registry import normalise, parse_output, split_commands
from nicadvisor.services.audit import AuditRequest, run_audit


def _body(name: str) -> str:
    """The output of a capture without its ``#`` header lines."""
    return "\n".join(line for line in capture_path(name).read_text().splitlines() if not line.startswith("#"))


# 1. facts known only by PCI address ---------------------------------------------------------------

def test_facts_known_only_by_pci_address_make_a_pnic_and_join_a_named_one_later(tmp_path):
    itr = "esxi_vmkernel_log_i40en_icen_itr_msix.txt"  # icen ITR line of 0000:b1:00.0, no vmnic name
    alone = run_audit(AuditRequest(capture_paths=(str(CAPTURES / itr),)))
    (host,) = alone.hosts
    pnic = host.pnic("pci:0000:b1:00.0")
    assert pnic is not None and pnic.pci_address == "0000:b1:00.0" and pnic.coalesce_rx_usecs == 50
    assert "Dynamic Interrupt Throttle Rate (ITR) to 50 usec" in pnic.evidence["coalesce_rx_usecs"].line
    # with an output naming the pNIC at that address, the facts join it and no pci: pNIC is left
    folder = tmp_path / "esx-e810"
    folder.mkdir()
    for name in (itr, "esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt"):
        shutil.copy(CAPTURES / name, folder / name)
    joined = run_audit(AuditRequest(capture_paths=(str(folder),))).hosts[0]
    named = next(p for p in joined.pnics if p.pci_address == "0000:b1:00.0")
    assert named.name.startswith("vmnic") and named.coalesce_rx_usecs == 50
    assert not any(p.name == "pci:0000:b1:00.0" for p in joined.pnics)


def test_linux_pcie_lines_by_address_are_kept():
    for name, addr in (("linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt", "0000:41:00.0"),
                       ("linux_lspci-vv_connectx6dx_lnkcap_partial.txt", "0000:b3:00.0")):
        (host,) = run_audit(AuditRequest(capture_paths=(str(CAPTURES / name),))).hosts
        pnic = host.pnic(f"pci:{addr}")
        assert pnic is not None and pnic.pci_address == addr and pnic.pcie_width_capable == 16
        assert host.kind == "linux"


# 2. sudo / env / VAR=value prefixes -----------------------------------------------------------------

def test_command_prefixes_are_stripped_before_the_parser_is_chosen():
    body = _body("linux_ethtool-i_igb_enp2s0.txt")
    for header in ("sudo ethtool -i enp2s0", "sudo -u root /sbin/ethtool -i enp2s0", "env LC_ALL=C ethtool -i enp2s0",
                   "LC_ALL=C LANG=C sudo -E ethtool -i enp2s0"):
        (result,) = parse_output(header, body)
        assert result.family == "ethtool -i" and result.pnics["enp2s0"]["driver"].value == "igb", header
    assert normalise("sudo") == "" and split_commands("env") == []


# 3. esxcfg-module -i re-indented -----------------------------------------------------------------------

def test_esxcfg_module_parameters_whatever_the_indentation():
    body = _body("esxi_esxcfg-module-i_i40en_2.6.0.30_params_itr.txt")
    (clean,) = parse_output("esxcfg-module -i i40en", body)
    expected = clean.modules["i40en"]["parameters"].value
    assert len(expected) >= 10 and "DRSS" in expected
    flattened = "\n".join(line.strip() for line in body.splitlines())  # as pasted into a wiki
    tabbed = "\n".join("\t" + line.strip() if line.strip() else line for line in body.splitlines())
    for text in (flattened, tabbed):
        (result,) = parse_output("esxcfg-module -i i40en", text)
        assert result.modules["i40en"]["parameters"].value == expected and not result.notes


# 4. Ansible vmnic_details excerpts -------------------------------------------------------------------

def _closed(fragment: str) -> str:
    """A vmnic_details entry that the capture cuts mid-object, with its open braces closed."""
    return fragment.rstrip().rstrip(",") + "}" * (fragment.count("{") - fragment.count("}"))


def test_ansible_excerpt_starting_inside_vmnic_details_yields_every_entry():
    # the real entry of each capture (both are cut mid-object in their sources), closed and pasted the way they
    # stand inside the list: "{...},\n{...}" with no enclosing "vmnic_details": [ ... ]
    x540 = _body("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt")
    x540 = x540[x540.index('"vmnic_details": [') + len('"vmnic_details": ['):]
    xxv710 = _body("esxi_api_ansible_vmnic_info_xxv710_i40en_25g_partial.txt")
    excerpt = _closed(x540[x540.index("{"):]) + ",\n" + _closed(xxv710[xxv710.index("{"):])
    (result,) = parse_output("community.vmware.vmware_host_vmnic_info", excerpt)
    assert {"vmnic0", "vmnic6"} <= set(result.pnics), sorted(result.pnics)
    assert result.pnics["vmnic0"]["driver"].value == "ixgbe" and result.pnics["vmnic6"]["driver"].value == "i40en"
    # pasted from inside the first entry (its opening brace and first key cut off): that entry is still read
    cut = excerpt[excerpt.index("\n", excerpt.index("{")) + 1:]
    assert not cut.lstrip().startswith("{")
    (result,) = parse_output("community.vmware.vmware_host_vmnic_info", cut)
    assert {"vmnic0", "vmnic6"} <= set(result.pnics), sorted(result.pnics)


# 5. ethtool -k filtered by grep -----------------------------------------------------------------------

def test_grep_filtered_ethtool_k_is_keyed_by_the_echoed_command_and_placeholders_name_nothing():
    udp = [line for line in _body("linux_ethtool-k_igb_enp2s0.txt").splitlines() if "udp" in line]
    pasted = "$ ethtool -k enp2s0 | grep udp\n" + "\n".join(udp) + "\n$ ethtool -k eno1 | grep udp\n" + "\n".join(udp)
    results = parse_output("ethtool -k", pasted)  # one result per echoed command
    pnics = {k: v for r in results for k, v in r.pnics.items()}
    assert set(pnics) == {"enp2s0", "eno1"} and all(len(r.pnics) == 1 for r in results)
    assert pnics["eno1"]["geneve_offload"].value is True
    (placeholder,) = parse_output("ethtool -k <dev> | grep udp", "\n".join(udp))
    assert placeholder.pnics == {} and placeholder.notes  # '<dev>' is no pNIC: said, not invented


# 6. receive-hashing and ethtool -l maximums ------------------------------------------------------------

def test_receive_hashing_and_queue_maximums_are_recorded():
    k = merged(parse_capture("linux_ethtool-k_ice_e810_kernel6.15_flattened.txt"))[0]
    assert k["em1"]["receive_hashing"] is True
    l = merged(parse_capture("linux_ethtool-l_ice_e810_64max_8current_flattened.txt"))[0]
    assert (l["em1"]["rx_queues"], l["em1"]["rx_queues_max"]) == (8, 64)


# 7. grep-filtered lspci -vv -d VID:DID --------------------------------------------------------------------

def test_grep_filtered_lspci_of_a_device_selected_by_ids_keeps_its_link():
    lnk = "\n".join(line for line in _body("linux_lspci-vv_connectx6dx_lnkcap_partial.txt").splitlines()
                    if "Lnk" in line)  # no device header, no address: only the LnkCap line is in this capture
    (result,) = parse_output("lspci -vv -d 15b3:101d | grep -E 'LnkCap|LnkSta'", lnk)
    facts = {k: f.value for k, f in result.pnics["pci-id:15b3:101d"].items()}
    assert facts == {"vid": "15b3", "did": "101d", "pcie_speed_capable_gts": 16.0, "pcie_width_capable": 16}


# 8. kernel log files ------------------------------------------------------------------------------------

def test_kernel_log_files_parse_like_dmesg():
    body = _body("linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt")
    expected = merged(parse_output("dmesg", body))[0]
    for header in ("journalctl -k", "journalctl --dmesg -b", "cat /var/log/kern.log", "grep ice /var/log/messages",
                   "sudo zcat /var/log/kern.log.2.gz"):
        assert merged(parse_output(header, body))[0] == expected, header
    assert expected["pci:0000:41:00.0"]["pcie_width"] == 16


# 9. nsxdp-cli ens uplink/fpo stats ------------------------------------------------------------------------

def test_nsxdp_cli_uplink_and_fpo_stats_name_the_uplink():
    body = _body("esxi_nsxdp-cli_ens_uplink_stats_get.txt")
    (result,) = parse_output("LC_ALL=C nsxdp-cli ens uplink stats get --uplink vmnic1", body)
    assert result.pnics["vmnic1"]["rx_queues"].value == 8 and result.pnics["vmnic1"]["ens_enabled"].value is True
    # the per-queue lines with the hardware queue beside them count the same (no capture has that form; the
    # real lines are rewritten here as "rxqN (hwqN): ...")
    rewritten = "\n".join(line.replace(":", f" (hwq{line[3]}):", 1) if line.startswith(("rxq", "txq")) else line
                          for line in body.splitlines())
    (hwq,) = parse_output("nsxdp-cli ens uplink stats get -n vmnic1", rewritten)
    assert hwq.pnics["vmnic1"]["rx_queues"].value == 8
    (fpo,) = parse_output("nsxdp-cli ens fpo stats get --uplink vmnic1", "")
    assert fpo.family == "nsxdp-cli ens fpo stats get" and fpo.notes  # recognised; an empty answer reads nothing


def test_demo_lab_matrix_still_builds_with_the_new_facts():
    audit = run_audit(AuditRequest(demo=True))
    assert sum(len(capability_matrix(h, audit.findings)) for h in audit.hosts) == 24
