"""vsish ``rxqueues/info`` ("queues supported" / ``maxQueues`` is a maximum, ``rx_queues_max``, not the count in use)
and ``nsxdp-cli ens fpo stats get`` in its table layout (one record per lcore).

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

from capturetools import CAPTURES, read_local_capture as read, local_capture as cap
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import parse_output

# --- vsish rxqueues/info: '# queues supported' / maxQueues is a maximum -----------------------------------------
# The only public text-form output is the sneaku.com one (tests/parsers/captures, ESXi 5.5 bnx2x); the python form is
# Intel's mfd fixture in the shared captures.

def test_queues_supported_is_the_maximum_not_the_count_in_use():
    pnics, *_ = read("esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt")
    assert pnics["vmnic2"]["rx_queues_max"] == 8 and "rx_queues" not in pnics["vmnic2"]
    c = read_capture(CAPTURES / "esxi_g_vsish_-pe_get_pNics_rxqueues_info_intel-mfd.txt")
    (r,) = parse_output("vsish -pe get /net/pNics/vmnic4/rxqueues/info", c.text)
    assert r.pnics["vmnic4"]["rx_queues_max"].value == 9 and "rx_queues" not in r.pnics["vmnic4"]


# --- nsxdp-cli ens fpo stats get in its table layout --------------------------------------------------------------
# The only public output is Intel's mfd unit-test fixture (Python framing kept: its closing '"""' is noted as no row).

def test_fpo_stats_table_one_record_per_lcore():
    c = cap("esxi_nsxdp-cli_ens_fpo_stats_get_-l_table_one_lcore_intel-mfd.txt")
    (r,) = parse_output(c.command, c.text, c.notes)
    (rec,) = r.records
    assert (rec["lcore"], rec["counters"]["hits"], rec["counters"]["markMismatched"]) == (6, 54350896, 160)
    assert set(rec["counters"]) == {"hits", "markMismatched", "pnicMismatched", "delayMatching", "ephemeralFlows",
                                    "transientFlows"}
