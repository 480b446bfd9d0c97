"""``list_inventory``: the datacenter → cluster → host tree of a vCenter (the wizard's "Browse hosts"),
read from govmomi's vcsim and checked against what govc reports for the same simulator."""
from __future__ import annotations

import threading

import pytest

from nicadvisor.cancel import Cancelled
from nicadvisor.collect import ConnectionCheckError
from nicadvisor.collect import vsphere as V
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget, list_inventory
from vcsimtools import GOVC, PASSWORD, USER

needs_govc = pytest.mark.skipif(GOVC is None, reason="govc not installed")


@pytest.fixture(scope="module")
def sim(vcsim_factory):
    """2 datacenters × (2 clusters of 2 hosts + 1 standalone host); DC0_C0_H1 in maintenance mode, DC1_H0
    disconnected (both through govc, as an operator would)."""
    s = vcsim_factory("-dc", "2", "-cluster", "2", "-host", "2", "-standalone-host", "1", "-vm", "0")
    if GOVC is not None:
        s.govc("host.maintenance.enter", "/DC0/host/DC0_C0/DC0_C0_H1")
        s.govc("host.disconnect", "/DC1/host/DC1_H0/DC1_H0")
    return s


def target(sim, **kw) -> VsphereTarget:
    kw.setdefault("thumbprint", fetch_thumbprint("127.0.0.1", sim.port, 10))
    kw.setdefault("timeout_s", 10)
    kw.setdefault("user", USER)
    kw.setdefault("password", PASSWORD)
    return VsphereTarget(host="127.0.0.1", port=sim.port, **kw)


def shape(tree):
    return [(dc.kind, dc.name, [(c.kind, c.name, [h.name for h in c.children]) for c in dc.children]) for dc in tree]


@needs_govc
def test_tree_matches_govc(sim, monkeypatch):
    retrievals = []
    original = V._VcenterAudit._retrieve

    def counting(self, *args, **kwargs):
        retrievals.append(args[-1])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(V._VcenterAudit, "_retrieve", counting)
    tree = list_inventory(target(sim, page_size=3))  # 3 objects a page: the answer comes in several pages
    assert retrievals == ["the inventory tree"]  # one PropertyCollector retrieval (paged)
    assert shape(tree) == [
        ("datacenter", "DC0", [("cluster", "DC0_C0", ["DC0_C0_H0", "DC0_C0_H1"]),
                               ("cluster", "DC0_C1", ["DC0_C1_H0", "DC0_C1_H1"]),
                               ("standalone", "DC0_H0", ["DC0_H0"])]),
        ("datacenter", "DC1", [("cluster", "DC1_C0", ["DC1_C0_H0", "DC1_C0_H1"]),
                               ("cluster", "DC1_C1", ["DC1_C1_H0", "DC1_C1_H1"]),
                               ("standalone", "DC1_H0", ["DC1_H0"])]),
    ]
    # references as govc reports them (object.collect: moref value → name)
    hosts = {p["name"]: f"HostSystem:{moid}" for moid, p in sim.govc_collect("name", type_="h").items()}
    clusters = {p["name"]: f"ClusterComputeResource:{moid}" for moid, p in sim.govc_collect("name", type_="c").items()}
    dcs = {p["name"]: f"Datacenter:{moid}" for moid, p in sim.govc_collect("name", type_="d").items()}
    assert {dc.name: dc.ref for dc in tree} == dcs
    assert {c.name: c.ref for dc in tree for c in dc.children if c.kind == "cluster"} == clusters
    assert {h.name: h.ref for dc in tree for h in dc.hosts()} == hosts
    assert [c.ref.split(":")[0] for c in tree[0].children] == ["ClusterComputeResource"] * 2 + ["ComputeResource"]
    # states: what govc set above; every other host connected and not in maintenance
    states = {h.name: (h.connection_state, h.in_maintenance) for dc in tree for h in dc.hosts()}
    assert states.pop("DC0_C0_H1") == ("connected", True)
    assert states.pop("DC1_H0") == ("disconnected", False)
    assert set(states.values()) == {("connected", False)} and len(states) == 8
    # the target's scope does not narrow the tree (it is listed to choose a scope)
    assert shape(list_inventory(target(sim, datacenter="DC1", cluster="DC1_C0"))) == shape(tree)


def test_refused_login_and_untrusted_certificate(sim):
    with pytest.raises(ConnectionCheckError) as info:
        list_inventory(target(sim, password="wrong-password"))
    msg = str(info.value)
    assert msg == f"127.0.0.1:{sim.port}: logging in failed: login refused for user {USER!r}: wrong user name or password"
    assert "wrong-password" not in msg
    with pytest.raises(ConnectionCheckError, match=rf"^127\.0\.0\.1:{sim.port}: checking the TLS certificate failed: "):
        list_inventory(target(sim, thumbprint=None))  # vcsim's certificate is self-signed


def test_cancelled_before_reading(sim):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        list_inventory(target(sim), cancel)


def test_unreachable(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionCheckError, match=rf"^127\.0\.0\.1:{port}: checking the TLS certificate failed"):
        list_inventory(VsphereTarget(host="127.0.0.1", port=port, user=USER, password=PASSWORD, timeout_s=2))
