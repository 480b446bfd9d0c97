"""RSS advice for a driver whose catalogue entry states RSS without a command (qede, icen)
says that the entry gives no command, and cites it — not that the catalogue has no entry."""
from __future__ import annotations

import copy

from nicadvisor.model import Evidence, Host, PhysicalNic
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit

NO_ENTRY = "the driver catalogue has no entry"


def _rss_finding(host: Host, pnic: str):
    (f,) = [f for f in evaluate(load_rules(), [host])
            if f.rule_id == "no-rx-filter-no-rss" and f.target == f"{host.name}/{pnic}"]
    return f


def _read_no(p: PhysicalNic, command: str) -> None:
    for name in ("rss", "geneve_rx_filter"):
        p.set_fact(name, False, Evidence(command, f"{name}: no", "host"))


def test_qede_advice_says_the_entry_gives_no_command():
    nic = PhysicalNic(name="ens1f0", driver="qede", driver_version="8.59.6.0", is_physical=True, mtu=9000)
    _read_no(nic, "ethtool -k ens1f0")
    host = Host(name="kvm1", kind="linux", pnics=[nic])
    f = _rss_finding(host, "ens1f0")
    assert NO_ENTRY not in f.recommendation
    assert "the driver catalogue's qede entry gives no command" in f.recommendation
    assert "qede_main.c" in f.recommendation                     # the catalogue's source, cited


def test_demo_icen_advice_says_the_entry_gives_no_command():
    audit = run_audit(AuditRequest(demo=True))
    host = copy.deepcopy(next(h for h in audit.hosts if h.name == "esxi-mfd-x550-e810"))
    _read_no(host.pnic("vmnic2"), "vsish -e get /net/pNics/vmnic2/rxqueues/info")   # icen, E810
    f = _rss_finding(host, "vmnic2")
    assert NO_ENTRY not in f.recommendation
    assert "the driver catalogue's icen entry gives no command" in f.recommendation
    assert "whats-new-vsphere.html" in f.recommendation          # VCF 9.0 release notes, the entry's source
