"""Issue 26 ("Fields the peers have that admins use"): whether an ``ethtool -k`` feature is ``[fixed]``, so advice
never tells the admin to turn on what the driver cannot.

Real captures: ``linux_ethtool-k_eth0_tso_off_fixed_hi3531-dwmac_stmmac_excerpt.txt`` (tests/parsers/captures:
``tcp-segmentation-offload: off [fixed]`` of a hi3531-dwmac port), ``linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_
systemd6854.txt`` (TSO ``off`` without ``[fixed]``) and every real ``ethtool -k`` capture holding a ``[fixed]`` line
(igb, ice E810, e1000e, a kernel 4.10 session).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from capturetools import CAPTURES
from nicadvisor.report.remediation import info_items, remediation_plan
from nicadvisor.services.audit import AuditRequest, run_audit

LOCAL = Path(__file__).resolve().parents[1] / "parsers" / "captures"
HI3531 = LOCAL / "linux_ethtool-k_eth0_tso_off_fixed_hi3531-dwmac_stmmac_excerpt.txt"
E1000E = LOCAL / "linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_systemd6854.txt"
#: Every real ethtool -k capture with a [fixed] feature line.
FIXED = sorted(p for folder in (CAPTURES, LOCAL) for p in folder.glob("*ethtool-*k*.txt")
               if re.search(r"^\s*[\w-]+: (?:on|off) \[fixed\]", p.read_text(errors="replace"), re.M))
#: ``ethtool -K IF FEATURE on`` in any advice text; the short names ethtool -K takes for the features the audit reads.
_SET_ON_RE = re.compile(r"ethtool -K (?P<ifname>\S+)(?P<pairs>(?: [\w-]+ (?:on|off))+)")
_SHORT = {"tso": "tso", "lro": "lro", "rxhash": "receive_hashing", "tx-udp_tnl-segmentation": "geneve_offload",
          "rx-udp_tunnel-port-offload": "geneve_rx_filter"}


def _audit(path: Path, tmp_path: Path):
    host = tmp_path / "h"
    host.mkdir()
    shutil.copy(path, host / path.name)  # byte-identical: the real capture, alone
    return run_audit(AuditRequest(capture_paths=(str(host),)))


def _advice(finding) -> str:
    return "\n".join((finding.message, finding.recommendation, finding.change, finding.verify, finding.rollback))


def test_tso_off_fixed_is_never_advised_with_ethtool_k(tmp_path):
    audit = _audit(HI3531, tmp_path)
    (pnic,) = audit.hosts[0].pnics
    assert pnic.tso is False and pnic.fixed_offloads == ["tso"]
    ids = {f.rule_id for f in audit.findings if f.obj == "eth0"}
    assert "tso-off-fixed" in ids and "tso-off" not in ids
    # the finding is conditional (the pNIC's overlay role is not known), so it is an info item of the plan
    (item,) = [i for i in remediation_plan(audit) + info_items(audit) if i.rule_id == "tso-off-fixed"]
    assert "ethtool -K" not in item.change and "tso on" not in item.change
    assert item.change.startswith("Manual: not with a command") and "Update" in item.change  # what to do instead
    assert "ethtool -K" not in item.recommendation and "No ethtool setting turns TSO on" in item.recommendation
    assert item.verify == "ethtool -k eth0 | grep tcp-segmentation-offload"
    assert item.rollback.startswith("Nothing to roll back")
    assert "[fixed]" in item.findings[0].message
    assert {e.line for e in item.findings[0].evidence} >= {"tcp-segmentation-offload: off [fixed]"}


def test_tso_off_that_is_not_fixed_is_still_advised_with_the_command(tmp_path):
    audit = _audit(E1000E, tmp_path)
    (item,) = [i for i in remediation_plan(audit) + info_items(audit) if i.rule_id == "tso-off"]
    assert item.change == "ethtool -K eno1 tso on" and item.rollback == "ethtool -K eno1 tso off"
    assert not [f for f in audit.findings if f.rule_id == "tso-off-fixed"]


@pytest.mark.parametrize("path", FIXED, ids=lambda p: p.name)
def test_no_advice_turns_on_a_feature_the_nic_reports_fixed(path, tmp_path):
    audit = _audit(path, tmp_path)
    fixed = {(p.name, f) for h in audit.hosts for p in h.pnics for f in (p.fixed_offloads or ())}
    assert fixed, path.name  # the capture's [fixed] lines were read
    for f in audit.findings:
        for m in _SET_ON_RE.finditer(_advice(f)):
            pairs = m.group("pairs").split()
            turned_on = {_SHORT.get(k) for k, v in zip(pairs[::2], pairs[1::2]) if v == "on"}
            assert not {(m.group("ifname"), t) for t in turned_on} & fixed, (f.rule_id, m.group(0))


def test_the_real_fixed_captures_cover_several_drivers():
    assert len(FIXED) >= 4, [p.name for p in FIXED]
