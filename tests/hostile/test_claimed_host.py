"""Issue 29 §10: a capture can speak for another host. A ``# host: esxB`` inside esxA's collection overrode esxB's
own pNIC MTU, and which one won depended on the order of the arguments. Now such a capture is flagged, and when esxB's
own collection answers the same command both are left out: the check stays undecided, whatever the order.

The captures are real shared ones (each file's header names its source); only the ``# host:`` framing line is added,
as the collector script writes it."""
from __future__ import annotations

import json
from pathlib import Path

from capturetools import CAPTURES

MTU_1500 = CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt"
MTU_9000 = CAPTURES / "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"
OTHER = CAPTURES / "esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt"


def _put(folder: Path, name: str, host: str, capture: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(f"# host: {host}\n" + capture.read_text(encoding="utf-8"), encoding="utf-8")


def _esx_b_mtus(cli, tmp_path, order) -> tuple[dict, str]:
    out = tmp_path / f"{'-'.join(p.name for p in order)}.json"
    run = cli("audit", "--quiet", "--no-history", "--capture", *order, "--json", out)
    doc = json.loads(out.read_text(encoding="utf-8"))
    host = next((h for h in doc["hosts"] if h["name"] == "esxB"), None)
    return ({p["name"]: p.get("mtu") for p in host["pnics"]} if host else {}), run.err


def test_a_host_claimed_from_another_collection_is_flagged_and_left_undecided(cli, tmp_path):
    a, b = tmp_path / "esxA", tmp_path / "esxB"
    _put(a, "001_nics.txt", "esxA", MTU_1500)
    _put(a, "002_ethtool.txt", "esxA", OTHER)
    _put(a, "003_claim.txt", "esxB", MTU_9000)  # esxA's collection speaks for esxB
    _put(b, "001_nics.txt", "esxB", MTU_1500)
    first, err = _esx_b_mtus(cli, tmp_path, (a, b))
    second, _ = _esx_b_mtus(cli, tmp_path, (b, a))
    assert first == second  # the order of the arguments no longer decides
    assert 9000 not in first.values()  # esxA's claim never sets esxB's MTU
    assert (f"{a / '003_claim.txt'}: this capture in esxA's collection {a} says it is of host esxB (# host: esxB), "
            "and esxB's own collection answers esxcfg-nics -l too: neither is read") in err


def test_a_claim_without_a_conflict_is_only_flagged(cli, tmp_path):
    a = tmp_path / "esxA"
    _put(a, "001_nics.txt", "esxA", MTU_1500)
    _put(a, "002_ethtool.txt", "esxA", OTHER)
    _put(a, "003_claim.txt", "esxB", MTU_9000)
    mtus, err = _esx_b_mtus(cli, tmp_path, (a,))
    assert 9000 in mtus.values()
    assert "says it is of host esxB (# host: esxB): read as esxB's; check that it is" in err
