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


def _i40en_host(tmp_path):
    """A host of two real captures (Intel mfd-network-adapter fixtures): ``esxcfg-nics -e`` (four i40en ports,
    vmnic6-vmnic9) and ``esxcfg-module -i i40en`` (its parameters), RSS read as off on vmnic6."""
    import shutil

    from capturetools import capture_path

    folder = tmp_path / "esx-i40en"
    folder.mkdir()
    for name in ("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt",
                 "esxi_esxcfg-module-i_i40en_2.6.0.30_params_itr.txt"):
        shutil.copy(capture_path(name), folder / name)
    host = copy.deepcopy(run_audit(AuditRequest(capture_paths=(str(folder),))).hosts[0])
    _read_no(host.pnic("vmnic6"), "vsish -e get /net/pNics/vmnic6/rxqueues/info")
    return host


def test_module_parameters_keep_what_is_set_match_the_port_count_and_say_reboot_and_when(tmp_path):
    """``esxcli system module parameters set -p`` replaces the whole string (issue 24 §3): without the parameters
    read, the change reads them and appends; the per-port lists have one value per i40en port of this host (four,
    not the documented two-port DRSS=0,0; with a fifth port, five); it applies to every port,
    needs a reboot, and is the ENS NetQ RSS recipe, said so."""
    from nicadvisor.model import KernelModule

    host = _i40en_host(tmp_path)
    f = _rss_finding(host, "vmnic6")
    assert f.change.startswith("Only for the ENS NetQ RSS recipe: a host switch in Enhanced Datapath mode (ESXi 7.0 U3 "
                               "or later")
    assert "esxcli system module parameters list -m i40en" in f.change
    assert ('esxcli system module parameters set --append -m i40en -p "DRSS=0,0,0,0 '
            'RSS=<queues>,<queues>,<queues>,<queues>"') in f.change
    assert "it applies to every i40en port of the host" in f.change and "reboot (in maintenance mode)" in f.change
    assert '-p ""' not in f.rollback
    # a fifth i40en port and parameters already set: kept, one value per port
    host.pnics.append(PhysicalNic(name="vmnic10", driver="i40en", is_physical=True))
    mod = host.module("i40en") or KernelModule(name="i40en")
    if mod not in host.modules:
        host.modules.append(mod)
    mod.options = {"RxITR": "50"}
    f = _rss_finding(host, "vmnic6")
    assert ('esxcli system module parameters set -m i40en -p "RxITR=50 DRSS=0,0,0,0,0 '
            'RSS=<queues>,<queues>,<queues>,<queues>,<queues>"') in f.change
    assert f.rollback.startswith('esxcli system module parameters set -m i40en -p "RxITR=50"')
