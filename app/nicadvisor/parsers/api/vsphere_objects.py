"""vSphere API property sets (as plain dicts) → parser facts. Pure functions: no pyVmomi, no I/O.

The live collector (:mod:`nicadvisor.collect.vsphere`) retrieves each HostSystem's properties with one
PropertyCollector call and turns the pyVmomi objects into plain JSON-able values: data objects become
dicts keyed by the vSphere property names (``device``, ``linkSpeed``, ``speedMb`` …, unset properties
left out), managed-object references become ``"vim.HostSystem:host-21"`` strings. The same dicts are
written into the recorded :class:`~nicadvisor.parsers.capture_file.Capture` (a JSON dump), so an audit
can be replayed from the recording with :func:`host_facts` alone.

Shapes (top-level keys are the property paths requested, nic-data-sources.md §1.1):

* host: ``{"name": str, "summary.config.product.version": "8.0.2", "summary.config.product.build":
  "21997540", "runtime.connectionState": "connected", "runtime.inMaintenanceMode": bool,
  "config.network.pnic": [PhysicalNic], "hardware.pciDevice": [PciDevice],
  "config.network.vswitch": [HostVirtualSwitch], "config.network.proxySwitch": [HostProxySwitch],
  "config.network.opaqueSwitch": [HostOpaqueSwitch], "config.network.vnic": [HostVirtualNic]}``
* DVS: ``{"name", "uuid", "summary.hostMember": [ref], "config.host": [DistributedVirtualSwitchHostMember],
  "config.maxMtu": int, "config.ipfixConfig": VMwareIpfixConfig | None, "portgroups": [{"name",
  "key", "config.defaultPortConfig": VMwareDVSPortSetting}]}`` (§5, §11)
* modules: ``[KernelModuleInfo]`` (``name``, ``version``, ``optionString`` …) and
  ``{module: configured option string}`` from ``QueryConfiguredModuleOptionString`` (§1.1).

Units: ``linkSpeed.speedMb`` is Mbit/s, MTUs are bytes. PCI IDs are signed int16 in the API and are
masked to 4 hex digits (§14 item 1). A pNIC without ``linkSpeed`` is ``link_up`` False, as the API documents
("if this object is not set, then the link is down"), with ``link_speed_mbps`` None; the evidence line says that
ports moved in and out of a LAG can show this too (§14 item 2), so the link-down finding asks to check. There is no MTU on ``PhysicalNic``; a pNIC's
MTU is that of its switch (§14 item 3), so pNIC ``mtu`` is not set here. Evidence lines look like
``pnic[vmnic0].linkSpeed.speedMb = 10000``.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable

from nicadvisor.parsers.base import ParseResult, hex4, norm_pci
from nicadvisor.parsers.esxi.module import parse_options
from nicadvisor.parsers.esxi.vmknic import is_tep_netstack
from nicadvisor.parsers.rows import load_recording

FAMILY_HOST = "vSphere API HostSystem"
FAMILY_DVS = "vSphere API DistributedVirtualSwitch"
FAMILY_MODULES = "vSphere API HostKernelModuleSystem"

VMWARE_VENDOR_ID = "15ad"
_NIC_KEY_RE = re.compile(r"PhysicalNic-(?P<dev>[^\s]+)$")


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _positive(value: Any) -> int | None:
    """An MTU / speed that means something: a positive int (vcsim returns 0 for unset MTUs)."""
    v = _int(value)
    return v if v is not None and v > 0 else None


def is_vmxnet3(driver: str | None, vendor_id: str | None) -> bool:
    """True for a vmxnet3 uplink of a nested ESXi: driver ``nvmxnet3``/``nvmxnet3_ens``/``vmxnet3`` or PCI
    vendor ``15ad`` (VMware). Its "offloads" are virtual (§14 item 20)."""
    return bool((driver and "vmxnet3" in driver.lower()) or vendor_id == VMWARE_VENDOR_ID)


def pci_index(pci_devices: Iterable[dict]) -> dict[str, dict]:
    """``hardware.pciDevice`` entries by normalised address (``0000:0b:00.0``); entries without a
    readable ``id`` are skipped."""
    out: dict[str, dict] = {}
    for dev in pci_devices:
        addr = norm_pci(_str(_dict(dev).get("id")))
        if addr:
            out[addr] = dev
    return out


def pnic_names(pnics: Iterable[dict]) -> dict[str, str]:
    """``PhysicalNic.key`` → ``device`` (``key-vim.host.PhysicalNic-vmnic0`` → ``vmnic0``)."""
    out: dict[str, str] = {}
    for p in pnics:
        key, dev = _str(_dict(p).get("key")), _str(_dict(p).get("device"))
        if key and dev:
            out[key] = dev
    return out


def _uplink_names(keys: Any, names: dict[str, str]) -> list[str]:
    out = []
    for key in _list(keys):
        if not isinstance(key, str):
            continue
        m = _NIC_KEY_RE.search(key)
        name = names.get(key) or (m.group("dev") if m else None)
        if name and name not in out:
            out.append(name)
    return out


def pnic_facts(result: ParseResult, pnics: Iterable[dict], pci_devices: Iterable[dict] = ()) -> None:
    """Record pNIC facts from ``config.network.pnic`` joined with ``hardware.pciDevice`` on the address.

    Fields: ``pci_address``, ``vid``/``did``/``svid``/``ssid`` (hex4 of the masked int16),
    ``description`` (``vendorName deviceName``), ``driver`` (as reported, ``_ens`` kept),
    ``driver_version``/``firmware_version`` (API 8.0.0.1+ only, §13), ``link_speed_mbps``/``link_up``/
    ``duplex`` (only when ``linkSpeed`` is set and > 0; ``link_up`` False when it is unset), ``mac``, ``ens_capable``
    (``enhancedNetworkingStackSupported``), ``ens_interrupt_capable`` (``ensInterruptSupported``),
    ``ens_enabled``/``ens_mode`` (``spec.enableEnhancedNetworkingStack``/``spec.ensInterruptEnabled``),
    ``is_virtual_uplink`` (vmxnet3) and ``is_physical`` (True for a non-vmxnet3 port with a PCI address).
    """
    by_addr = pci_index(pci_devices)
    for raw in pnics:
        p = _dict(raw)
        name = _str(p.get("device"))
        if not name:
            continue

        def line(path: str, value: Any) -> str:
            return f"pnic[{name}].{path} = {value!r}"

        pci = norm_pci(_str(p.get("pci")))
        result.pnic(name, "pci_address", pci, line("pci", p.get("pci")))
        driver = _str(p.get("driver"))
        result.pnic(name, "driver", driver, line("driver", driver))
        dev = by_addr.get(pci or "")
        vid = None
        if dev is not None:
            for key, field in (("vendorId", "vid"), ("deviceId", "did"), ("subVendorId", "svid"),
                               ("subDeviceId", "ssid")):
                value = _int(dev.get(key))
                if value is None:
                    continue
                ident = hex4(value)
                result.pnic(name, field, ident, f"pciDevice[{pci}].{key} = {value} (0x{ident})")
                if field == "vid":
                    vid = ident
            desc = " ".join(x for x in (_str(dev.get("vendorName")), _str(dev.get("deviceName"))) if x)
            result.pnic(name, "description", desc or None,
                        f"pciDevice[{pci}].vendorName/deviceName = {desc!r}")
        for key, field in (("driverVersion", "driver_version"), ("firmwareVersion", "firmware_version")):
            result.pnic(name, field, _str(p.get(key)), line(key, p.get(key)))
        link = _dict(p.get("linkSpeed"))
        speed = _positive(link.get("speedMb"))
        if speed is not None:
            ev = line("linkSpeed.speedMb", speed)
            result.pnic(name, "link_speed_mbps", speed, ev)
            result.pnic(name, "link_up", True, ev)
            duplex = _bool(link.get("duplex"))
            if duplex is not None:
                result.pnic(name, "duplex", "full" if duplex else "half", line("linkSpeed.duplex", duplex))
        elif not link:  # the API: "If this object is not set, then the link is down"
            result.pnic(name, "link_up", False, f"pnic[{name}].linkSpeed = unset (the vSphere API's word for link "
                                                f"down; also seen on ports moved in and out of a LAG)")
        mac = _str(p.get("mac"))
        result.pnic(name, "mac", mac.lower() if mac else None, line("mac", mac))
        for key, field in (("enhancedNetworkingStackSupported", "ens_capable"),
                           ("ensInterruptSupported", "ens_interrupt_capable")):
            result.pnic(name, field, _bool(p.get(key)), line(key, p.get(key)))
        spec = _dict(p.get("spec"))
        ens_on = _bool(spec.get("enableEnhancedNetworkingStack"))
        if ens_on is not None:
            ev = line("spec.enableEnhancedNetworkingStack", ens_on)
            result.pnic(name, "ens_enabled", ens_on, ev)
            intr = _bool(spec.get("ensInterruptEnabled"))
            result.pnic(name, "ens_mode", _ens_mode(ens_on, intr), f"{ev}, spec.ensInterruptEnabled = {intr!r}")
        if is_vmxnet3(driver, vid):
            result.pnic(name, "is_virtual_uplink", True, line("driver", driver) + (f" (PCI vendor {vid})" if vid else ""))
        elif pci:
            result.pnic(name, "is_physical", True, line("pci", p.get("pci")))
            if driver and vid:
                result.pnic(name, "is_virtual_uplink", False, f"{line('driver', driver)} (PCI vendor {vid})")


def _ens_mode(ens: bool | None, intr: bool | None) -> str | None:
    """``standard`` / ``ens`` / ``ens_interrupt`` from the ENS and interrupt-mode flags (an unset
    interrupt flag with ENS on reads as polling ``ens``); None when ENS is not stated."""
    if ens is None:
        return None
    if not ens:
        return "standard"
    return "ens_interrupt" if intr else "ens"


def switch_facts(result: ParseResult, props: dict[str, Any]) -> dict[str, str]:
    """Record switches from ``config.network.vswitch`` (kind ``standard``: ``mtu``, ``uplinks``),
    ``proxySwitch`` (host view of a VDS, kind ``distributed``: ``mtu``, ``uplinks``, ``ens_mode`` from
    ``ensEnabled``/``ensInterruptEnabled``) and ``opaqueSwitch`` (N-VDS, kind ``opaque``: ``uplinks``).

    Returns a map used to place vmknics: ``"pg:<portgroup name>"`` / ``"dvs:<uuid>"`` → switch name.
    """
    names = pnic_names(_list(props.get("config.network.pnic")))
    where: dict[str, str] = {}
    for raw in _list(props.get("config.network.vswitch")):
        sw = _dict(raw)
        name = _str(sw.get("name"))
        if not name:
            continue
        result.switch(name, "kind", "standard", f"vswitch[{name}]")
        result.switch(name, "mtu", _positive(sw.get("mtu")), f"vswitch[{name}].mtu = {sw.get('mtu')!r}")
        uplinks = _uplink_names(sw.get("pnic"), names)
        if not uplinks:
            uplinks = [d for d in _list(_dict(_dict(sw.get("spec")).get("bridge")).get("nicDevice")) if isinstance(d, str)]
        result.switch(name, "uplinks", uplinks, f"vswitch[{name}].pnic = {uplinks!r}")
        for pg in _list(sw.get("portgroup")):
            if isinstance(pg, str) and "PortGroup-" in pg:
                where["pg:" + pg.split("PortGroup-", 1)[1]] = name
    for raw in _list(props.get("config.network.proxySwitch")):
        sw = _dict(raw)
        name = _str(sw.get("dvsName")) or _str(sw.get("dvsUuid"))
        if not name:
            continue
        ev = f"proxySwitch[{name}]"
        result.switch(name, "kind", "distributed", ev)
        result.switch(name, "mtu", _positive(sw.get("mtu")), f"{ev}.mtu = {sw.get('mtu')!r}")
        uplinks = _uplink_names(sw.get("pnic"), names)
        if not uplinks:
            specs = _list(_dict(_dict(sw.get("spec")).get("backing")).get("pnicSpec"))
            uplinks = [d for d in (_dict(s).get("pnicDevice") for s in specs) if isinstance(d, str)]
        result.switch(name, "uplinks", uplinks, f"{ev}.pnic = {uplinks!r}")
        ens, intr = _bool(sw.get("ensEnabled")), _bool(sw.get("ensInterruptEnabled"))
        result.switch(name, "ens_mode", _ens_mode(ens, intr),
                      f"{ev}.ensEnabled = {ens!r}, ensInterruptEnabled = {intr!r}")
        if _str(sw.get("dvsUuid")):
            where["dvs:" + sw["dvsUuid"]] = name
    for raw in _list(props.get("config.network.opaqueSwitch")):
        sw = _dict(raw)
        name = _str(sw.get("name")) or _str(sw.get("key"))
        if not name:
            continue
        ev = f"opaqueSwitch[{name}]"
        result.switch(name, "kind", "opaque", ev)
        result.switch(name, "uplinks", _uplink_names(sw.get("pnic"), names), f"{ev}.pnic = {sw.get('pnic')!r}")
        for vtep in _list(sw.get("vtep")):
            vnic_facts(result, [vtep], where, tep_switch=name)
    return where


def vnic_facts(result: ParseResult, vnics: Iterable[dict], where: dict[str, str] | None = None,
               tep_switch: str | None = None) -> None:
    """Record vmknics from ``config.network.vnic`` (or an opaque switch's ``vtep`` list, ``tep_switch``):
    ``mtu`` (``spec.mtu``), ``netstack`` (``spec.netStackInstanceKey``), ``addresses`` (IPv4 and IPv6,
    no prefix), ``portgroup``, ``switch`` (via ``where`` from :func:`switch_facts`) and ``is_tep``
    (TEP netstack ``vxlan``/overlay, or listed as an N-VDS ``vtep``)."""
    where = where or {}
    for raw in vnics:
        v = _dict(raw)
        name = _str(v.get("device"))
        if not name:
            continue
        spec = _dict(v.get("spec"))

        def line(path: str, value: Any) -> str:
            return f"vnic[{name}].{path} = {value!r}"

        result.vmknic(name, "mtu", _positive(spec.get("mtu")), line("spec.mtu", spec.get("mtu")))
        netstack = _str(spec.get("netStackInstanceKey"))
        result.vmknic(name, "netstack", netstack, line("spec.netStackInstanceKey", netstack))
        ip = _dict(spec.get("ip"))
        addrs = [a for a in [_str(ip.get("ipAddress"))] if a]
        for a6 in _list(_dict(ip.get("ipV6Config")).get("ipV6Address")):
            a = _str(_dict(a6).get("ipAddress"))
            if a and a not in addrs:
                addrs.append(a)
        if addrs:
            result.vmknic(name, "addresses", addrs, line("spec.ip", addrs))
        pg = _str(v.get("portgroup")) or _str(spec.get("portgroup"))
        result.vmknic(name, "portgroup", pg, line("portgroup", pg))
        dvport = _dict(spec.get("distributedVirtualPort"))
        switch = tep_switch or where.get("dvs:" + (_str(dvport.get("switchUuid")) or "")) or where.get("pg:" + (pg or ""))
        result.vmknic(name, "switch", switch, line("spec.distributedVirtualPort.switchUuid" if dvport else "portgroup",
                                                   dvport.get("switchUuid") or pg))
        if tep_switch:
            result.vmknic(name, "is_tep", True, f"opaqueSwitch[{tep_switch}].vtep[{name}]")
        else:
            result.vmknic(name, "is_tep", is_tep_netstack(netstack), line("spec.netStackInstanceKey", netstack))


def _dvs_member(dvs: dict, host_ref: str) -> dict | None:
    """The ``config.host`` entry of ``host_ref`` (``DistributedVirtualSwitchHostMember``), or None."""
    for m in _list(dvs.get("config.host")):
        if _dict(_dict(m).get("config")).get("host") == host_ref:
            return m
    return None


def dvs_has_host(dvs: dict, host_ref: str) -> bool:
    """True when ``host_ref`` (``"vim.HostSystem:host-21"``) is a member of the DVS."""
    return host_ref in _list(dvs.get("summary.hostMember")) or _dvs_member(dvs, host_ref) is not None


def ipfix_state(dvs: dict) -> tuple[bool | None, str]:
    """Whether IPFIX is effectively on for a VDS (§11) and the evidence line.

    True when a collector is configured (``config.ipfixConfig.collectorIpAddress``) and at least one
    portgroup has ``defaultPortConfig.ipfixEnabled.value`` True; False when no collector is configured
    (``ipfixConfig`` present with an empty address) or every portgroup says False; None otherwise.
    """
    name = dvs.get("name")
    has_cfg = "config.ipfixConfig" in dvs
    collector = _str(_dict(dvs.get("config.ipfixConfig")).get("collectorIpAddress"))
    flags = {}
    for pg in _list(dvs.get("portgroups")):
        pg = _dict(pg)
        flag = _bool(_dict(_dict(pg.get("config.defaultPortConfig")).get("ipfixEnabled")).get("value"))
        if flag is not None:
            flags[str(pg.get("name"))] = flag
    on = sorted(k for k, v in flags.items() if v)
    ev = (f"dvs[{name}].config.ipfixConfig.collectorIpAddress = {collector!r}; "
          f"portgroups with defaultPortConfig.ipfixEnabled = True: {on or 'none'} (of {len(flags)} known)")
    if has_cfg and not collector:
        return False, ev
    if flags and not on:
        return False, ev
    if collector and on:
        return True, ev
    return None, ev


def dvs_facts(result: ParseResult, dvs_list: Iterable[dict], host_ref: str) -> None:
    """Record the VDSs ``host_ref`` belongs to (kind ``distributed``): ``mtu`` from ``config.maxMtu``
    (vCenter owns the VDS MTU, §5), ``uplinks`` from the member's ``config.backing.pnicSpec[].pnicDevice``,
    ``ipfix_enabled`` from :func:`ipfix_state`. Switch key = VDS name (same as ``proxySwitch.dvsName``)."""
    for dvs in dvs_list:
        dvs = _dict(dvs)
        name = _str(dvs.get("name"))
        if not name or not dvs_has_host(dvs, host_ref):
            continue
        result.switch(name, "kind", "distributed", f"dvs[{name}].summary.hostMember contains {host_ref}")
        result.switch(name, "mtu", _positive(dvs.get("config.maxMtu")),
                      f"dvs[{name}].config.maxMtu = {dvs.get('config.maxMtu')!r}")
        member = _dvs_member(dvs, host_ref)
        if member is not None:
            specs = _list(_dict(_dict(_dict(member).get("config")).get("backing")).get("pnicSpec"))
            uplinks = [d for d in (_dict(s).get("pnicDevice") for s in specs) if isinstance(d, str)]
            result.switch(name, "uplinks", uplinks,
                          f"dvs[{name}].config.host[{host_ref}].config.backing.pnicSpec = {uplinks!r}")
        state, ev = ipfix_state(dvs)
        result.switch(name, "ipfix_enabled", state, ev)


def module_facts(result: ParseResult, modules: Iterable[dict], configured: dict[str, str] | None = None) -> None:
    """Record driver modules from ``QueryModules`` (``version``) and the configured option strings
    (``QueryConfiguredModuleOptionString``, e.g. ``"vmdq=1,2,3,4 sriov=0,0,1,1"`` → ``options``).
    A module without a configured string keeps ``options`` unset unless its ``optionString`` is given."""
    configured = configured or {}
    for raw in modules:
        m = _dict(raw)
        name = _str(m.get("name"))
        if not name:
            continue
        result.module(name, "version", _str(m.get("version")), f"module[{name}].version = {m.get('version')!r}")
        if name in configured and isinstance(configured[name], str):
            text, src = configured[name], f"QueryConfiguredModuleOptionString({name}) = {configured[name]!r}"
        elif isinstance(m.get("optionString"), str):
            text, src = m["optionString"], f"module[{name}].optionString = {m['optionString']!r}"
        else:
            continue
        options, bad = parse_options(text)
        result.module(name, "options", options, src)
        if bad:
            result.notes.append(f"module {name}: option words not understood: {bad}")


def host_facts(props: dict[str, Any], dvs_list: Iterable[dict] = (), host_ref: str | None = None) -> ParseResult:
    """All facts of one HostSystem property set (shape in the module docstring) as a ParseResult of
    family ``vSphere API HostSystem``: host ``product_version``/``build``, pNICs (:func:`pnic_facts`),
    switches (:func:`switch_facts`, then the VDSs of :func:`dvs_facts` when ``host_ref`` is given) and
    vmknics (:func:`vnic_facts`). Never raises on odd values: what is not the expected type is skipped."""
    result = ParseResult(family=FAMILY_HOST)
    props = _dict(props)
    for path, field in (("summary.config.product.version", "product_version"),
                        ("summary.config.product.build", "build")):
        result.host_fact(field, _str(props.get(path)), f"{path} = {props.get(path)!r}")
    pnic_facts(result, _list(props.get("config.network.pnic")), _list(props.get("hardware.pciDevice")))
    where = switch_facts(result, props)
    if host_ref:
        dvs_list = list(dvs_list)
        dvs_facts(result, dvs_list, host_ref)
        for dvs in dvs_list:
            if _str(_dict(dvs).get("uuid")) and _str(_dict(dvs).get("name")):
                where.setdefault("dvs:" + dvs["uuid"], dvs["name"])
    vnic_facts(result, _list(props.get("config.network.vnic")), where)
    return result


# --- recordings (the Capture text of a live audit) -----------------------------------------------

def inventory_recording(host_ref: str, props: dict[str, Any], dvs_list: Iterable[dict] = (),
                        missing: Iterable[dict] = (), vcenter: str | None = None) -> str:
    """The JSON text (one compact line, keys sorted) recorded for one host's inventory: ``{"vcenter", "obj": "HostSystem:host-21",
    "propSet": {path: value}, "missingSet": [{"path", "fault"}], "dvs": [DVS of the host]}``.
    :func:`facts_from_recording` reads it back."""
    doc = {"vcenter": vcenter, "obj": host_ref, "propSet": props, "missingSet": list(missing), "dvs": list(dvs_list)}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"


def facts_from_recording(text: str) -> ParseResult:
    """Replay an :func:`inventory_recording` (or :func:`modules_recording`) text into its ParseResult.
    Never raises: text that is not such a recording gives an empty result with a note."""
    doc, failed = load_recording(text, FAMILY_HOST, "a vSphere API recording")
    if failed is not None:
        return failed
    if "modules" in doc:
        r = ParseResult(family=FAMILY_MODULES)
        module_facts(r, _list(doc.get("modules")), {k: v for k, v in _dict(doc.get("configured")).items()
                                                     if isinstance(v, str)})
        return r
    if "propSet" not in doc:
        r = ParseResult(family=FAMILY_HOST)
        r.notes.append("not a vSphere API recording (no propSet)")
        return r
    return host_facts(_dict(doc.get("propSet")), _list(doc.get("dvs")), _str(doc.get("obj")))


def modules_recording(host_ref: str, modules: Iterable[dict], configured: dict[str, str],
                      vcenter: str | None = None) -> str:
    """The JSON text recorded for one host's driver modules: ``{"vcenter", "obj", "modules":
    [KernelModuleInfo], "configured": {module: option string}}``."""
    doc = {"vcenter": vcenter, "obj": host_ref, "modules": list(modules), "configured": dict(configured)}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"
