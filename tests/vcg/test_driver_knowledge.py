"""The driver catalogue decides capability cells a vCenter-only audit cannot read (issue 8 §3): only capabilities,
never "RSS is on"; a host reading always wins and a contradiction is shown; the RSS advice names the exact command
and a rollback to what the audit read."""
from __future__ import annotations

from nicadvisor.model import Evidence, Host, KernelModule, PhysicalNic, Severity, Switch, VmkernelNic
from nicadvisor.model.capabilities import CATALOGUE_ORIGIN, PASS, capability_matrix
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit
from nicadvisor.vcg.driver_catalogue import ORIGIN_LABEL
from nicadvisor.judgement import fill_from_driver_catalogue
from nicadvisor.vcg.knowledge import catalogue_conflicts


def _i40en_host(**facts) -> Host:
    # an XL710 for 40GbE QSFP+ (8086:1583): the only NIC the i40en geneve_rx_filter source shows it on
    nic = PhysicalNic(name="vmnic2", driver="i40en", driver_version="2.1.5.0", is_physical=True, mtu=9000,
                      link_up=True, link_speed_mbps=25000, vid="8086", did="1583")
    for k, v in facts.items():
        nic.set_fact(k, v, Evidence("vsish -e get /net/pNics/vmnic2/rxqueues/info", f"{k}: {v}", "host"))
    return Host(name="esx", kind="esxi", product_version="8.0.3", pnics=[nic],
                switches=[Switch(name="vds", uplinks=["vmnic2"], mtu=9000)],
                vmknics=[VmkernelNic(name="vmk10", is_tep=True, switch="vds", mtu=9000)],
                modules=[KernelModule(name="i40en", version="2.1.5.0", options={"DRSS": "4,4"})])


def test_origin_label_is_the_models():
    assert ORIGIN_LABEL == CATALOGUE_ORIGIN


def test_unread_capability_is_decided_and_marked():
    host = _i40en_host()
    assert "vmnic2.geneve_rx_filter" in fill_from_driver_catalogue(host)
    nic = host.pnic("vmnic2")
    assert nic.geneve_rx_filter is True and nic.evidence["geneve_rx_filter"].command == ORIGIN_LABEL
    assert "nsx-t-performance-on-intel.txt §1.4.5" in nic.evidence["geneve_rx_filter"].source
    assert nic.rss is None  # a driver that can do RSS says nothing about RSS being on
    (row,) = capability_matrix(host, evaluate(load_rules(), [host]))
    cell = row.cells["rx_filter"]
    assert cell.status == PASS and cell.text.endswith(f"· {ORIGIN_LABEL}") and "not read on the host" in cell.reason


def test_a_host_reading_wins_and_a_contradiction_is_shown():
    host = _i40en_host(geneve_rx_filter=False)
    assert "vmnic2.geneve_rx_filter" not in fill_from_driver_catalogue(host)
    assert host.pnic("vmnic2").geneve_rx_filter is False
    (f,) = catalogue_conflicts([host])
    assert f.severity is Severity.INFO and "reads geneve rx filter = False on the host" in f.message
    assert f.category == "rx_filter"


def test_rss_advice_names_the_catalogue_command_and_restores_what_was_read():
    host = _i40en_host(rss=False, geneve_rx_filter=False)
    findings = evaluate(load_rules(), [host])
    (f,) = [f for f in findings if f.rule_id == "no-rx-filter-no-rss"]
    # the parameters read (DRSS=4,4) are replaced by the recipe's per-port values for this host's one i40en port
    assert 'esxcli system module parameters set -m i40en -p "DRSS=0 RSS=<queues>"' in f.recommendation
    assert f.rollback == 'esxcli system module parameters set -m i40en -p "DRSS=4,4"\nreboot (in maintenance mode)'
    # a driver the catalogue does not know: the advice says so instead of inventing a parameter
    other = _i40en_host(rss=False, geneve_rx_filter=False)
    other.pnics[0].driver = "qedentv"
    other.modules = []
    (g,) = [f for f in evaluate(load_rules(), [other]) if f.rule_id == "no-rx-filter-no-rss"]
    assert "the driver catalogue has no entry for it" in g.recommendation
    assert "esxcli system module parameters list -m qedentv" in g.rollback


def test_demo_lab_cells_decided_by_the_catalogue_say_so():
    audit = run_audit(AuditRequest(demo=True))
    decided = [(h.name, p.name, n) for h in audit.hosts for p in h.pnics for n, e in p.evidence.items()
               if e.command == ORIGIN_LABEL]
    # the X722 i40en pNICs of esxi-h0062-x722-cx4lx are not the XL710 the Rx filter source shows: nothing decided
    x722 = next(h for h in audit.hosts if h.name == "esxi-h0062-x722-cx4lx")
    assert all(p.geneve_rx_filter is None for p in x722.pnics if p.driver == "i40en")
    for host_name, pnic_name, field in decided:
        host = next(h for h in audit.hosts if h.name == host_name)
        row = next(r for r in capability_matrix(host, audit.findings) if r.pnic == pnic_name)
        assert any(ORIGIN_LABEL in c.text for c in row.cells.values()), (host_name, pnic_name, field)
    assert not [f for f in evaluate_findings(audit.hosts) if f.rule_id == "driver-catalogue-conflict"
                and f.severity is not Severity.INFO]
