"""Hostile review (parsers): outputs pasted together under one ``# command:`` header were all credited to the
interface or module that header names: vmnic2 got vmnic3's Geneve offload, vmnic1 vmnic2's RSS, em1 igb's driver,
ixgbe ixgben's LRO. Now a pasted session is read command by command (each echoed command keys its own output), and
two outputs appended without a prompt are refused (a note) or keyed by what they name themselves (bus-info).
Every text is built from real captures; only the value a test needs to tell two outputs apart is changed."""
from __future__ import annotations

from capturetools import capture_path
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import parse_output


def _facts(command: str, text: str) -> tuple[dict, list[str]]:
    facts, notes = {}, []
    for r in parse_output(command, text):
        for kind, table in (("pnic", r.pnics), ("module", r.modules)):
            for key, fields in table.items():
                for name, fact in fields.items():
                    facts.setdefault((key, name), fact.value)
        notes += r.notes
    return facts, notes


def _text(name: str) -> str:
    return read_capture(capture_path(name)).text


VSISH = "esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt"
PROMPT = "[root@esx01:~] "


def _vmnic2_without_offloads() -> str:
    """The capture without TSO, ENCAP and Geneve offload, and with three of its mask's 15 bits cleared to match
    (12 names, 12 bits: a whole list, not a cut one)."""
    text = _text(VSISH)
    out = text.replace("VMNET_CAP_TSO ", "").replace("VMNET_CAP_ENCAP VMNET_CAP_Geneve_OFFLOAD\n", "")
    out = out.replace("0x793c032b", "0x793c0320")
    assert out != text and bin(0x793c0320).count("1") == 12
    return out


def test_a_pasted_vsish_session_keys_each_output_by_its_own_command():
    own, other = _vmnic2_without_offloads(), _text(VSISH)
    head = "vsish -e get /net/pNics/vmnic2/properties"
    alone, _ = _facts(head, own)
    assert (alone[("vmnic2", "geneve_offload")], alone[("vmnic2", "tso")]) == (False, False)
    pasted = f"{PROMPT}{head}\n{own}{PROMPT}vsish -e get /net/pNics/vmnic3/properties\n{other}"
    facts, _ = _facts(head, pasted)
    assert (facts[("vmnic2", "geneve_offload")], facts[("vmnic2", "tso")]) == (False, False)
    assert (facts[("vmnic3", "geneve_offload")], facts[("vmnic3", "tso")]) == (True, True)


def test_two_vsish_outputs_appended_without_a_prompt_are_refused_with_a_note():
    facts, notes = _facts("vsish -e get /net/pNics/vmnic2/properties", _vmnic2_without_offloads() + "\n" + _text(VSISH))
    assert not any(key == "vmnic2" and name in ("geneve_offload", "tso", "vxlan_offload") for key, name in facts)
    assert any("several properties outputs" in n for n in notes)


def test_intnet_rss_outputs_pasted_together_never_give_one_vmnic_the_others_support():
    enabled = _text("esxi_esxcli_intnet_rss_get_intel.txt")
    disabled = enabled.replace("Current support: Enabled", "Current support: Disabled")
    assert disabled != enabled
    head = "esxcli intnet rss get -n vmnic1"
    facts, _ = _facts(head, f"{PROMPT}{head}\n{disabled}{PROMPT}esxcli intnet rss get -n vmnic2\n{enabled}")
    assert (facts[("vmnic1", "rss")], facts[("vmnic2", "rss")]) == (False, True)
    facts, notes = _facts(head, disabled + "\n" + enabled)
    assert ("vmnic1", "rss") not in facts and any("appears more than once" in n for n in notes)


def test_two_ethtool_i_outputs_under_one_header_are_keyed_by_their_own_bus_address():
    igb, ice = read_capture(capture_path("linux_ethtool-i_igb_enp2s0.txt")), read_capture(
        capture_path("linux_ethtool-i_ice_e810_fw4.51.txt"))
    for head in (f"{igb.command} ; {ice.command}", ice.command):
        facts, _ = _facts(head, igb.text + "\n" + ice.text)
        assert facts[("pci:0000:02:00.0", "driver")] == "igb" and facts[("pci:0000:63:00.0", "driver")] == "ice"
        assert not any(name == "driver" and not key.startswith("pci:") for key, name in facts)
    facts, _ = _facts(ice.command, ice.text)  # alone, its output is the header interface's
    assert facts[(ice.command.split()[-1], "driver")] == "ice"


def test_an_appended_module_table_with_its_prompt_goes_to_its_own_module():
    cap = read_capture(capture_path("esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt"))
    alone, _ = _facts(cap.command, cap.text)
    assert alone[("ixgbe", "options")]["LRO"] == "0"
    # the ixgbe table's own rows and layout, for the next module (its prompt names --module ixgben)
    rows = [line for line in cap.text.splitlines() if line.strip().startswith(("Name ", "LRO "))][:2]
    more = ("\t[root@macm:~] esxcli system module parameters list --module ixgben | grep -E 'LRO|^Name'\n"
            + "\n".join(rows).replace("  0      Large", "  1      Large") + "\n")
    facts, _ = _facts(cap.command, cap.text + more)
    assert facts[("ixgbe", "options")]["LRO"] == "0" and facts[("ixgben", "options")]["LRO"] == "1"


def test_a_switch_name_ending_in_a_number_keeps_its_mtu_and_uplinks():
    """Review: ``Prod DSwitch 2`` was read as ``Prod DSwitch`` with the Configured Ports (512) as its MTU and
    ``9000`` as an uplink. Uplinks are pNIC names, never bare numbers."""
    cap = read_capture(capture_path("esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt"))
    for name, text in (("Prod DSwitch 2", cap.text.replace("DSwitch_063LongName 6690", "Prod DSwitch 2   6690")),
                       ("dvSwitch 01", cap.text.replace("DSwitch_063LongName 6690", "dvSwitch 01   6690")
                        .replace("9000    vmnic3", "9000"))):
        assert text != cap.text
        (r,) = parse_output(cap.command, text)
        sw = r.switches[name]
        assert sw["mtu"].value == 9000 and all(not u.isdigit() for u in sw["uplinks"].value)
        assert r.vmknics["vmk1"]["switch"].value == name


def test_one_output_giving_a_pnic_two_values_leaves_it_unknown_with_both_lines():
    """Review: a before/after paste of ``esxcli network nic list`` gave vmnic2 whichever MTU came first (9000 or
    1500), silently. Which one is the host's now cannot be told: unknown, with a note quoting both rows."""
    cap = read_capture(capture_path("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt"))
    after = cap.text.replace("  1500  Intel(R) Ethernet Controller E810-C", "  9000  Intel(R) Ethernet Controller E810-C")
    assert after != cap.text
    for text in (cap.text + f"\n{PROMPT}esxcli network nic list\n" + after,
                 after + f"\n{PROMPT}esxcli network nic list\n" + cap.text):
        (r,) = parse_output(cap.command, text)
        assert "mtu" not in r.pnics["vmnic2"] and r.pnics["vmnic0"]["mtu"].value == 1500
        note = next(n for n in r.notes if n.startswith("vmnic2 mtu is "))
        assert "1500" in note and "9000" in note and note.endswith("left unknown")


def test_a_nic_get_cut_mid_name_is_read_as_the_uplink_its_command_names():
    """Review: ``esxcli network nic get -n vmnic4`` cut after ``Name: vmn`` created a pNIC called ``vmn``."""
    cap = read_capture(capture_path("esxi_esxcli_nic_get_bnx2x_qlogic57810_flattened.txt"))
    cut = cap.text[:cap.text.index("Name: ") + len("Name: vmn")]
    (r,) = parse_output(cap.command, cut)
    assert list(r.pnics) == ["vmnic4"] and any("output cut?" in n for n in r.notes)


def test_a_vsish_capability_list_cut_short_leaves_the_missing_ones_unknown():
    """Review: vsish properties cut mid-list read TSO, VXLAN and Geneve offload as "no". The block's mask sets one
    bit per capability named (the capture: 0x793c032b, 15 bits, 15 names): fewer names than bits is a cut list."""
    text = _text(VSISH)
    whole, _ = _facts("vsish -e get /net/pNics/vmnic3/properties", text)
    assert (whole[("vmnic3", "tso")], whole[("vmnic3", "geneve_offload")]) == (True, True)
    cut = text[:text.index("VMNET_CAP_TSO ")]
    facts, notes = _facts("vsish -e get /net/pNics/vmnic3/properties", cut)
    assert not any(key == "vmnic3" and name in ("tso", "vxlan_offload", "geneve_offload") for key, name in facts)
    assert any("sets 15 capabilities but 3 are named" in n for n in notes)
