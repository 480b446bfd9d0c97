"""Issue 11 items 4–6: command lines as written, and the Linux / ESXi output variants, on real outputs.

Every input is a real capture — of ../shared/fixtures, or a public output stored verbatim under
``tests/parsers/captures/`` with its source in its header — or a transformation of one (named in each test: a path
prefixed to the command, the header removed, the text cut, a driver tag swapped, a row broken). No device output is
written here.

Variants with no public capture found, covered by the property tests alone: vmkernel.log NIC lines mixed with
FCoE/HBA lines (``test_storage_function_lines_of_the_same_family_add_no_nic_fact``) and esxcfg-vswitch -l with
third-party or stale distributed-switch rows (``test_a_switch_row_that_fails_is_listed_with_its_line_number``).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES, FIXTURES, merged, parsed_facts
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.registry import bundle_file_command, normalise, parse_output, resolve_command
from nicadvisor.parsers.linux import ethtool as linux_ethtool
from nicadvisor.parsers.esxi import vsish
from nicadvisor.parsers.esxi import vmkernel_log
from nicadvisor.parsers.esxi import vswitch as esxi_vswitch
LOCAL = Path(__file__).parent / "captures"


def cap(name: str):
    """A real capture: ours (tests/parsers/captures) or the shared fixtures."""
    path = LOCAL / name if (LOCAL / name).exists() else CAPTURES / name
    return read_capture(path)


def facts_of(name: str) -> dict:
    c = cap(name)
    return merged(parse_output(c.command, c.text, c.notes))[0]


def results_of(name: str):
    c = cap(name)
    return parse_output(c.command, c.text, c.notes)


# --- 4. command lines as written ------------------------------------------------------------------------

#: Real captures whose header starts with a command word (not a prompt, a PowerCLI call or a description).
SHARED = sorted(p.name for p in CAPTURES.glob("*.txt")
                if not read_capture(p).command.startswith(("$", "[", "nsx-edge", "bundle", "grep ", "community.",
                                                           "ansible", "/")))


@pytest.mark.parametrize("name", SHARED)
@pytest.mark.parametrize("prefix", ["/sbin/", "/usr/sbin/", "/usr/lib/vmware/vsan/bin/", "sudo -E LC_ALL=C /bin/"])
def test_a_command_written_with_its_path_or_wrappers_reads_like_the_bare_command(name, prefix):
    """Transformation: the first command of each real header written with an absolute path (and wrappers)."""
    c = read_capture(CAPTURES / name)
    first, sep, rest = c.command.partition(" ; ")
    written = prefix + first + sep + rest
    assert parsed_facts(written, c.text) == parsed_facts(c.command, c.text)


def test_vsish_shell_prompts_localcli_and_absolute_paths_normalise():
    # the interactive vsish session of nsx-t-performance-on-intel.txt §1.4.3 CLI 2 and §1.4.5 CLI 3
    assert normalise("/> get /net/pNics/vmnic0/rxqueues/info") == "vsish -e get /net/pNics/vmnic0/rxqueues/info"
    assert normalise("/> cat /net/pNics/vmnic5/rxqueues/info") == "vsish -e get /net/pNics/vmnic5/rxqueues/info"
    assert normalise("[Host-1] # vsish") == "vsish"
    # header of esxi_localcli_networkinternal_nic_privstats_32q.txt
    assert normalise("localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic privstats get -n vmnic1") \
        == "esxcli networkinternal nic privstats get -n vmnic1"
    assert normalise("/usr/lib/vmware/vsan/bin/vsish -e get /net/pNics/vmnic0/rxqueues/info").startswith("vsish -e get")


@pytest.mark.parametrize("name", ["esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt",
                                  "esxi_vsish_rxqueues_info_geneve_rxfilter_vmnic5_seed.txt"])
def test_a_command_named_only_in_the_note_is_the_one_read(name):
    """The seed captures' notes name the interactive vsish command ('/> get …', 'cat /net/…'): with the header
    removed, the note gives the command and the facts are the same."""
    c = cap(name)
    assert resolve_command("", c.notes, c.text) == normalise(c.command)
    assert parsed_facts("", c.text) == {}  # no header, no note, no prompt in the text: nothing is guessed
    with_note = merged(parse_output("", c.text, c.notes))[0]
    assert with_note == facts_of(name) and with_note


@pytest.mark.parametrize("name", ["esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt", "esxi55_ethtool-i_vmnic0_bnx2x_sneaku.txt",
                                  "esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt",
                                  "linux_ethtool_speed_unknown_link_down_openwrt22126.txt"])
def test_a_command_named_only_in_an_echoed_prompt_line_is_the_one_read(name):
    c = cap(name)
    assert merged(parse_output("(see the prompt line)", c.text))[0] == facts_of(name) != {}


def test_a_pasted_session_with_two_commands_reads_both():
    c = cap("linux_pasted_session_ethtool-c-k_kernel4.10_enp6s0f1.txt")  # header names no command
    got = facts_of("linux_pasted_session_ethtool-c-k_kernel4.10_enp6s0f1.txt")["enp6s0f1"]
    assert got["coalesce_rx_usecs"] == 100 and got["receive_hashing"] is True and got["tso"] is True
    assert "ethtool -c enp6s0f1" in resolve_command(c.command, c.notes, c.text)


def test_a_vm_support_file_named_in_the_header_is_read_as_its_command():
    c = read_capture(FIXTURES / "vm-support" / "bundle_commands_esxcfg-vswitch_-l.txt_DVS_section_elatov.txt")
    assert c.command.startswith("bundle file commands/esxcfg-vswitch_-l.txt")
    switches = merged(parse_output(c.command, c.text))[2]
    assert switches == {"dvSwitch": {"kind": "distributed", "mtu": 1500, "uplinks": ["vmnic3", "vmnic2"]}}
    # the naming rule of vm-support-bundles.md §1 item 6, reversed
    assert bundle_file_command("commands/localcli_network-nic-list.txt") == "esxcli network nic list"
    assert bundle_file_command("commands/vmware_-vl.txt") == "vmware -vl"
    assert bundle_file_command("commands/lldpnetmap.txt") is None


# --- 5. Linux variants ---------------------------------------------------------------------------------

def test_ethtool_l_separate_rx_tx_channels_with_combined_na():
    # the two outputs were posted from two hosts (fpip3-compute0951, emny-ossdev-firedancer11): the file is read as the
    # first host's (issue 26), the second output on its own
    assert facts_of("linux_ethtool-l_rx_tx_separate_combined_na_firedancer1427.txt") == {
        "eno1": {"rx_queues": 4, "tx_queues": 1, "rx_queues_max": 4, "tx_queues_max": 4},  # RX 4 / TX 1 in use
    }
    c = cap("linux_ethtool-l_rx_tx_separate_combined_na_firedancer1427.txt")
    second = c.text[c.text.index("[nbridge@emny-ossdev-firedancer11"):]
    assert merged(parse_output(c.command, second))[0] == {
        "ens3f0": {"rx_queues": 1, "tx_queues": 1, "rx_queues_max": 64, "tx_queues_max": 64},
    }


def test_ethtool_c_fields_na_are_unknown_not_zero_and_cqe_mode_is_recorded():
    (r,) = results_of("linux_ethtool-c_na_cqe_mode_tuned726.txt")
    assert {k: f.value for k, f in r.pnics["enp1s0"].items()} == {"coalesce_rx_usecs": 3, "coalesce_tx_usecs": 3}
    (cqe,) = [x for x in r.records if "cqe_mode_rx" in x]
    assert cqe == {"interface": "enp1s0", "cqe_mode_rx": None, "cqe_mode_tx": None, "line": "CQE mode RX: n/a  TX: n/a"}


def test_ethtool_x_zero_table_and_zero_key_leave_rss_unknown():
    results = results_of("linux_ethtool-i-x-l_sfc_zero_indirection_onload208.txt")
    p = merged(results)[0]["enp2s0f0"]
    assert "rss" not in p and p["rx_queues"] == 4
    assert any("all zeros" in n and "RSS stays unknown" in n for r in results for n in r.notes)
    assert {"interface": "enp2s0f0", "block": "RSS hash key", "hash_key_bytes": 40, "hash_key_all_zero": True} in \
        [x for r in results for x in r.records]


def test_ethtool_x_table_cut_short_is_read_as_far_as_it_goes():
    p = facts_of("linux_ethtool-l-x_14rings_partial_pfring819.txt")["ens2f1"]
    assert p == {"rx_queues": 14, "tx_queues": 14, "rx_queues_max": 16, "tx_queues_max": 16, "rss": True}


def test_ethtool_x_table_zeroed_is_no_rss_only_with_a_key_shown():
    """Transformation of the real igb table (4 rings, key 'Operation not supported'): every entry set to 0."""
    c = cap("linux_ethtool-x_igb_enp2s0_4rings.txt")
    zeroed = re.sub(r"(?m)^(\s*\d+:)(.*)$", lambda m: m.group(1) + re.sub(r"\d+", "0", m.group(2)), c.text)
    r = linux_ethtool.parse_ethtool_x(zeroed, CommandLine.parse(c.command))
    assert "rss" not in r.pnics["enp2s0"] and r.notes  # one ring of four and no key: not judged
    r1 = linux_ethtool.parse_ethtool_x(zeroed.replace("with 4 RX ring(s)", "with 1 RX ring(s)"),
                                       CommandLine.parse(c.command))
    assert r1.pnics["enp2s0"]["rss"].value is False


def test_ethtool_i_without_interface_name_is_keyed_by_command_or_bus_info():
    c = cap("esxi55_ethtool-i_vmnic0_bnx2x_sneaku.txt")
    expected = {"driver": "bnx2x", "driver_version": "2.710.70.v55.7", "firmware_version": "FFV7.10.17 bc 7.10.11",
                "pci_address": "0000:01:00.0", "is_physical": True}
    assert facts_of("esxi55_ethtool-i_vmnic0_bnx2x_sneaku.txt") == {"vmnic0": expected}  # ESXi 5.5, a vmnic
    body = "\n".join(line for line in c.text.splitlines() if not line.startswith("~ #"))  # prompt line removed
    assert merged(parse_output("ethtool -i", body))[0] == {"pci:0000:01:00.0": expected}  # named by bus-info
    assert merged(parse_output("ethtool -i vmnic0", body))[0] == {"vmnic0": expected}  # named by the command


def test_ethtool_i_filtered_by_grep_is_keyed_by_the_echoed_command():
    p = facts_of("linux_ethtool-i-x-l_sfc_zero_indirection_onload208.txt")["enp2s0f0"]
    assert (p["driver_version"], p["firmware_version"]) == ("5.3.18.1005", "8.5.0.1002 rx0 tx0")
    assert "driver" not in p  # the grep removed the driver: line


def test_ethtool_speed_unknown_and_link_down():
    (r,) = results_of("linux_ethtool_speed_unknown_link_down_openwrt22126.txt")
    assert {k: f.value for k, f in r.pnics["lan12"].items()} == {"link_up": False}
    assert r.pnics["lan12"]["link_up"].line == "Link detected: no"


# --- 6. ESXi variants ----------------------------------------------------------------------------------

def test_vsish_rxqueues_features_decoded_lro_and_rss():
    results = results_of("esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt")
    assert merged(results)[0] == {"vmnic2": {"rx_queues_max": 8, "rss": True, "lro": True}}
    (rec,) = [x for r in results for x in r.records]
    assert rec["features"] == ["LRO", "Pair", "Dynamic", "RSS", "Dynamic", "Preemptible", "IPv4LRO"]
    assert rec["features_complete"] is True and rec["features_mask"] == 0x200001A3


RXQ = ["esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt", "esxi_vsish_rxqueues_info_geneve_rxfilter_vmnic5_seed.txt",
       "esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt"]


@pytest.mark.parametrize("name", RXQ)
def test_a_cut_rxqueues_output_concludes_no_absence(name):
    """Transformation: the real output cut after each of its lines. A cut text never yields a value the whole text
    does not (a 'no' read from a list that lost its end would be invented)."""
    c = cap(name)
    full = parsed_facts(c.command, c.text)
    lines = c.text.splitlines()
    for i in range(len(lines)):
        cut = parsed_facts(c.command, "\n".join(lines[:i + 1]))
        assert all(full.get(k) == v for k, v in cut.items()), (i, cut, full)


def test_filter_class_list_cut_before_geneve_is_not_a_no():
    c = cap("esxi_vsish_rxqueues_info_geneve_rxfilter_vmnic5_seed.txt")
    lines = c.text.splitlines()
    at = next(i for i, line in enumerate(lines) if "filter class" in line)
    cut = "\n".join(lines[:at + 1])  # "… 0x1c -> VLAN_MAC", the wrapped "VXLAN Geneve GenericEncap" lost
    r = vsish.parse_rxqueues_info(cut, CommandLine.parse(c.command))
    assert "geneve_rx_filter" not in r.pnics.get("vmnic5", {})
    assert any("may be cut" in n for n in r.notes)
    # grep-filtered features line of the same output: "Pair Dynamic" without RSS is no "no" either
    feats = next(line for line in lines if "features" in line)
    g = vsish.parse_rxqueues_info("rx queues info {\n" + feats + "\n}\n",
                                  CommandLine.parse(c.command + " | grep -i features"))
    assert "rss" not in g.pnics.get("vmnic5", {})
    assert facts_of("esxi_vsish_rxqueues_info_geneve_rxfilter_vmnic5_seed.txt")["vmnic5"]["rss"] is False  # complete


VMK = ["esxi_vmkernel_log_i40en_icen_itr_msix.txt", "esxi_vmkernel_log_ixgben_queues_itr_mtu.txt"]
STORAGE_TAGS = {"ixgben": "qfle3f", "icen": "bnx2fc", "i40en": "lpfc"}


@pytest.mark.parametrize("name", VMK)
@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_storage_function_lines_of_the_same_family_add_no_nic_fact(name, seed):
    """Transformation (no public vmkernel.log with FCoE lines was found): the real NIC lines with their driver tag
    swapped for an FCoE/FC driver of a converged adapter, interleaved with the real log. They change no fact."""
    c = cap(name)
    lines = c.text.splitlines()
    tag = re.compile(r"\b(ixgben|icen|i40en):")
    storage = [tag.sub(lambda m: STORAGE_TAGS[m.group(1)] + ":", line) for line in lines if tag.search(line)]
    assert storage
    alone = vmkernel_log.parse_vmkernel_log("\n".join(storage), CommandLine.parse(c.command))
    assert alone.pnics == {}  # read as NIC lines they would give queues, RSS, MTU, ITR (the originals do)
    mixed = list(lines)
    for i, line in enumerate(storage):
        mixed.insert((seed + i * 7) % (len(mixed) + 1), line)
    assert parsed_facts(c.command, "\n".join(mixed)) == parsed_facts(c.command, c.text)
    records = [x for x in vmkernel_log.parse_vmkernel_log("\n".join(mixed), CommandLine.parse(c.command)).records
               if x.get("kind") == "storage adapter lines"]
    assert records == [{"kind": "storage adapter lines", "lines": len(storage)}]


VSWITCH = ["esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt", "esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt"]


@pytest.mark.parametrize("name", VSWITCH)
def test_a_switch_row_that_fails_is_listed_with_its_line_number(name):
    """Transformation (no public output of a third-party or stale DVS was found): each switch row of a real output
    in turn cut to its name alone, as a row of another shape would be; that section is skipped, named with its line
    number, and every other switch is still read."""
    c = cap(name)
    lines = c.text.splitlines()
    full = merged(parse_output(c.command, c.text))[2]
    rows = [i for i, line in enumerate(lines) if i and re.match(r"^\s*(?:Switch|DVS) Name\b", lines[i - 1])]
    assert len(rows) == len(full) >= 2
    for i in rows:
        broken = list(lines)
        name_only = broken[i].split()[0]
        broken[i] = name_only
        results = parse_output(c.command, "\n".join(broken))
        switches = merged(results)[2]
        assert set(switches) == set(full) - {name_only}
        assert all(switches[s] == full[s] for s in switches)
        assert any(f"line {i + 1}: switch row not understood" in n for r in results for n in r.notes)


# --- bounded work ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["a_" + "-" * 50_000 + ".tx", "'" + "x" * 50_000, "# " + "ethtool " * 10_000,
                                  "CQE mode RX:" + " " * 50_000 + "x", "00:" * 30_000, "[" + "a" * 50_000 + "] # x"])
def test_new_patterns_take_hostile_lines_without_failing(text):
    """Long unbroken lines reach every new pattern without an error (the patterns have no nested quantifiers over
    overlapping characters; tests/hostile bounds the time of a whole audit of long lines in a subprocess)."""
    resolve_command("no such command", (text,), text)
    bundle_file_command(text)
    linux_ethtool.parse_ethtool_c("Coalesce parameters for em1:\n" + text, CommandLine.parse("ethtool -c em1"))
    linux_ethtool.parse_ethtool_x("RX flow hash indirection table for em1 with 2 RX ring(s):\n0: 0 0\nRSS hash key:\n"
                                  + text, CommandLine.parse("ethtool -x em1"))
    vmkernel_log.parse_vmkernel_log(text, CommandLine.parse("cat /var/log/vmkernel.log"))
    esxi_vswitch.parse_esxcfg_vswitch("Switch Name  Num Ports  Used Ports  Configured Ports  MTU  Uplinks\n" + text,
                                      CommandLine.parse("esxcfg-vswitch -l"))
    assert normalise(text) is not None
