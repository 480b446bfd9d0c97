"""The facts a rule condition can use, per kind of object.

Every field of the object (``PhysicalNic``, ``VmkernelNic``, ``Switch``, ``Host``) by its name, plus:

* all objects: ``host_name``, ``host_kind`` (``esxi``/``linux``), ``host_version``, ``host_release`` (the
  compatibility-guide release with its update, ``"ESXi 7.0 U3"``, as the judgement's compatibility context derived
  it once — :mod:`nicadvisor.vcg.context`; None when not known or not ESXi);
* pNICs: ``switch_name``, ``switch_kind``, ``switch_mtu``, ``switch_ens_mode`` (the switch that has the pNIC as uplink),
  ``module_version``, ``module_options`` (map of configured driver module options),
  ``link_speed_gbps`` (Gbit/s), ``pcie_bandwidth_gbps`` / ``pcie_bandwidth_capable_gbps``
  (usable PCIe bandwidth of the negotiated / capable link in Gbit/s, see :func:`pcie_bandwidth_gbps`),
  ``ports_line_rate_gbps`` (sum of the link speeds of all ports of the same PCIe device, Gbit/s),
  ``has_tep`` (the host has an NSX TEP vmknic), ``rss_enable_command`` / ``rss_rollback_command`` (the driver
  catalogue's command that enables RSS for this driver and the one that restores what the audit read — the module
  parameters on ESXi, the channel count on Linux —; without a command, text pointing to the vendor guide that says
  whether the catalogue has no entry for the driver or an entry that gives no command, citing its source:
  :func:`nicadvisor.vcg.knowledge.rss_commands`, :func:`nicadvisor.vcg.knowledge.rss_fact_without_command`);
* vmknics: ``is_tep`` is already a field;
* switches: ``has_tep`` (the host has an NSX TEP vmknic) and ``carries_tep`` (see :func:`carries_tep`);
* host: ``mtu_path_error`` (the raw lines of a failed vmkping MTU path test, the evidence of
  ``mtu_path_ok == false``, joined with `` / ``; None otherwise), ``tep_count`` (TEP vmknics read) and
  ``overlay_uplinks`` (physical pNICs that carry the overlay, :meth:`Host.overlay_role` ``carries``; None when no
  TEP or NSX host switch is known).

Every kind of object also carries the command facts of :mod:`nicadvisor.change_commands`
(``mtu_change_command``, ``mtu_verify_command``, ``mtu_rollback_command``, ``vmkping_command``; pNICs
``native_driver``): the exact commands with the host's own switch, TEP vmknic and driver names, for the rules'
``change``, ``verify`` and ``rollback`` texts.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from nicadvisor.model import Host, PhysicalNic, Switch, VmkernelNic
from nicadvisor.change_commands import (
    COMMAND_FACTS, host_commands, pnic_commands, switch_commands, vmknic_commands,
)
from nicadvisor.vcg.builds import host_release
from nicadvisor.vcg.knowledge import rss_commands, rss_fact_without_command

HOST_FACTS = ("host_name", "host_kind", "host_version", "host_release")
# The derived facts each kind of object adds to its own fields (keep in step with the functions below):
# a rule that names anything else is refused when it loads (a typo would otherwise never match).
EXTRA_FACTS: dict[str, tuple[str, ...]] = {
    "pnic": HOST_FACTS + ("switch_name", "switch_kind", "switch_mtu", "switch_ens_mode", "module_version",
                          "module_options", "link_speed_gbps", "pcie_bandwidth_gbps", "pcie_bandwidth_capable_gbps",
                          "ports_line_rate_gbps", "has_tep", "rss_enable_command", "rss_rollback_command")
    + COMMAND_FACTS["pnic"],
    "vmknic": HOST_FACTS + COMMAND_FACTS["vmknic"],
    "switch": HOST_FACTS + ("carries_tep", "has_tep") + COMMAND_FACTS["switch"],
    "host": HOST_FACTS + ("mtu_path_error", "tep_count", "overlay_uplinks") + COMMAND_FACTS["host"],
}
_OBJECTS = {"pnic": PhysicalNic, "vmknic": VmkernelNic, "switch": Switch, "host": Host}


#: A host's collections and records, never a rule's fact (its objects have their own contexts; what was not run is
#: shown per host, not judged).
_NOT_FACTS = ("pnics", "vmknics", "switches", "modules", "inputs", "path_tests", "not_run", "conflicts")


def known_facts(applies_to: str) -> frozenset[str]:
    """Every name a condition or message of a rule on ``applies_to`` objects may use."""
    fields = {f.name for f in dataclasses.fields(_OBJECTS[applies_to])} - {"evidence", *_NOT_FACTS}
    return frozenset(fields | set(EXTRA_FACTS[applies_to]))

# Usable data rate per PCIe lane in Gbit/s after line encoding: Gen1/2 use 8b/10b, Gen3-5 128b/130b
# (PCI Express Base Specification; the NSX-T reference rounds Gen3 x8 to "64Gbps":
# nsx-t-performance-on-intel.txt §Single TEP vs Dual TEP).
_LANE_GBPS = {2.5: 2.0, 5.0: 4.0, 8.0: 8.0 * 128 / 130, 16.0: 16.0 * 128 / 130, 32.0: 32.0 * 128 / 130}


def pcie_bandwidth_gbps(speed_gts: float | None, width: int | None) -> float | None:
    """Usable PCIe bandwidth in Gbit/s per direction for ``speed_gts`` GT/s × ``width`` lanes.

    Gen3 x8 → 63.0 Gbit/s; Gen3 x16 → 126.0; Gen4 x16 → 252.1 (dmesg prints 252.048 for the same
    link, shared/fixtures/captures/linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt). None when
    either input is unknown or the speed is not a PCIe rate.
    """
    if speed_gts is None or width is None:
        return None
    lane = _LANE_GBPS.get(float(speed_gts))
    return round(lane * width, 1) if lane else None


def _device_of(pci: str | None) -> str | None:
    return pci.rsplit(".", 1)[0] if pci else None


def host_context(host: Host, compat: Any = None) -> dict[str, Any]:
    """``host_name``, ``host_kind``, ``host_version`` and ``host_release`` of ``host``, shared by every rule context.
    ``compat``: the host's :class:`nicadvisor.vcg.context.HostCompat` (the release derived once); without it the
    release is derived here."""
    if compat is not None:
        release = compat.release
    else:
        release = host_release(host) if host.kind == "esxi" else None
    return {"host_name": host.name, "host_kind": host.kind, "host_version": host.product_version,
            "host_release": release}


def ports_line_rates(host: Host) -> dict[str, float]:
    """PCIe device (``0000:5e:00``) → the sum of the link speeds of its ports on ``host``, in Gbit/s (devices
    without a known speed left out): ``ports_line_rate_gbps`` of every pNIC, in one pass over the pNICs."""
    mbps: dict[str, int] = {}
    for p in host.pnics:
        dev = _device_of(p.pci_address)
        if dev and p.link_speed_mbps:
            mbps[dev] = mbps.get(dev, 0) + p.link_speed_mbps
    return {dev: total / 1000 for dev, total in mbps.items()}


def pnic_context(host: Host, pnic: PhysicalNic, compat: Any = None,
                 line_rates: dict[str, float] | None = None) -> dict[str, Any]:
    """The rule-engine context of one pNIC (a plain dict; unknown values are None). ``compat``: the host's
    :class:`nicadvisor.vcg.context.HostCompat`, whose release and driver-catalogue facts are used (looked up here
    when not given). ``line_rates``: the host's :func:`ports_line_rates`, given when the contexts of all its pNICs
    are built (computed here otherwise)."""
    ctx = dict(pnic.facts())
    ctx.update(host_context(host, compat))
    sw = host.switch_of(pnic.name)
    ctx.update(switch_name=sw.name if sw else None, switch_kind=sw.kind if sw else None,
               switch_mtu=sw.mtu if sw else None, switch_ens_mode=sw.ens_mode if sw else None)
    mod = host.module(pnic.driver)
    ctx.update(module_version=mod.version if mod else None, module_options=(mod.options if mod else None) or {})
    ctx["link_speed_gbps"] = pnic.link_speed_mbps / 1000 if pnic.link_speed_mbps is not None else None
    ctx["pcie_bandwidth_gbps"] = pcie_bandwidth_gbps(pnic.pcie_speed_gts, pnic.pcie_width)
    ctx["pcie_bandwidth_capable_gbps"] = pcie_bandwidth_gbps(pnic.pcie_speed_capable_gts, pnic.pcie_width_capable)
    rates = ports_line_rates(host) if line_rates is None else line_rates
    ctx["ports_line_rate_gbps"] = rates.get(_device_of(pnic.pci_address) or "")
    ctx["has_tep"] = any(v.is_tep for v in host.vmknics)
    facts = compat.of(pnic).catalogue if compat is not None else None
    ctx["rss_enable_command"], ctx["rss_rollback_command"] = _rss_commands(host, pnic, mod, facts)
    ctx.update(pnic_commands(host, pnic))
    return ctx


def _rss_commands(host: Host, pnic: PhysicalNic, mod: Any, facts: Any = None) -> tuple[str, str]:
    if host.kind == "esxi":
        previous = None if mod is None or mod.options is None else " ".join(f"{k}={v}" for k, v in mod.options.items())
    else:
        previous = str(pnic.rx_queues) if pnic.rx_queues is not None else None
    enable, rollback = rss_commands(host, pnic, previous, facts=facts)
    driver = pnic.driver or "the driver"
    if enable is None:
        setting = "RSS module parameter" if host.kind == "esxi" else "RSS setting"
        stated = rss_fact_without_command(host, pnic, facts=facts)
        if stated is not None:  # qede, icen: the catalogue states RSS, from a source that gives no command
            enable = (f"the {driver} {setting} of the vendor's driver guide: the driver catalogue's {stated.driver} "
                      f"entry gives no command to set it (source: {stated.source})")
        else:
            enable = (f"the {driver} {setting} of the vendor's driver guide: the driver catalogue has no "
                      f"entry for it")
    if rollback is None:
        rollback = (f"Set the {driver} module parameters back to what 'esxcli system module parameters list -m "
                    f"{driver}' showed before the change, and reboot the host." if host.kind == "esxi" else
                    f"Set the channel count of {pnic.name} back to the value 'ethtool -l {pnic.name}' showed "
                    f"before the change.")
    return enable, rollback


def carries_tep(host: Host, switch: Switch) -> bool | None:
    """Whether ``switch`` carries an NSX TEP vmknic of ``host``.

    True when a vmknic with ``is_tep`` names this switch; False when the host has TEP vmknics and every
    one of them names another switch (the switch only carries management, storage or VM traffic);
    None when the host has no known TEP or a TEP's switch is unknown (topology unknown: rules stay strict).
    """
    teps = [v for v in host.vmknics if v.is_tep]
    if any(v.switch == switch.name for v in teps):
        return True
    if teps and all(v.switch for v in teps):
        return False
    return None


def object_context(host: Host, obj: Any, compat: Any = None) -> dict[str, Any]:
    """Context for a vmknic, switch or the host itself (switch and host facts as in the module docstring)."""
    ctx = dict(obj.facts())
    for k in _NOT_FACTS:
        ctx.pop(k, None)
    ctx.update(host_context(host, compat))
    if isinstance(obj, Switch):
        ctx["has_tep"] = any(v.is_tep for v in host.vmknics)
        ctx["carries_tep"] = carries_tep(host, obj)
        ctx.update(switch_commands(host, obj))
    elif isinstance(obj, VmkernelNic):
        ctx.update(vmknic_commands(host, obj))
    elif isinstance(obj, Host):
        ev = obj.evidence.get("mtu_path_ok")
        failed = ev is not None and getattr(obj, "mtu_path_ok", None) is False
        ctx["mtu_path_error"] = " / ".join(ev.line.splitlines()) if failed else None
        ctx["tep_count"] = sum(1 for v in obj.vmknics if v.is_tep)
        carrying = [p for p in obj.pnics if obj.overlay_role(p) == "carries"]
        ctx["overlay_uplinks"] = len(carrying) if obj.overlay_switches()[0] else None
        ctx.update(host_commands(obj))
    return ctx
