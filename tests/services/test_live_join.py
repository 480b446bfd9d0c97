"""Joining NSX transport nodes with hosts of other sources by name, and how live targets are named."""
from __future__ import annotations

from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.collect.nsx import NsxTarget
from nicadvisor.services.audit import AuditRequest
from nicadvisor.services.live import _same_host, join_nsx


def test_same_host_rules():
    assert _same_host("esx01", "ESX01.site-a.example")
    assert _same_host("esx01.site-a.example", "esx01.site-a.example")
    assert not _same_host("esx01.site-a.example", "esx01.site-b.example")
    assert not _same_host("10.1.2.3", "10.206.243.190")
    assert _same_host("10.1.2.3", "10.1.2.3")


def test_nsx_node_of_another_site_is_not_merged():
    groups = [HostInputs("esx01.site-a.example")]
    join_nsx(groups, [HostInputs("esx01.site-b.example", kind="esxi")], {})
    assert [g.name for g in groups] == ["esx01.site-a.example", "esx01.site-b.example"]
    join_nsx(groups, [HostInputs("tn-1", kind="esxi")], {"tn-1": ["esx01"]})
    assert [g.name for g in groups] == ["esx01.site-a.example", "esx01.site-b.example"]


def test_nsx_input_name_never_shows_url_credentials():
    t = NsxTarget(url="https://admin:Secr3t-PW@127.0.0.1:9443", user="admin", password="x")
    assert AuditRequest(nsx=(t,)).live_targets == ["nsx://127.0.0.1:9443"]
