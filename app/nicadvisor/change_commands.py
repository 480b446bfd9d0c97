"""The commands a rule's ``change``, ``verify`` and ``rollback`` texts quote, built from the audited host's own
objects: the switch that holds a pNIC decides where its MTU is set (a standard vSwitch on the host, a VDS in vCenter,
an N-VDS in the NSX uplink profile), and the host's own TEP vmknic is the one a ``vmkping`` leaves from.

Every command is as its vendor documents it (the rule files cite the page):

* ``esxcli network vswitch standard set -v <vSwitch> -m <MTU>`` — ESXCLI reference, ``esxcli network`` namespace
  (https://developer.broadcom.com/xapis/esxcli-command-reference/latest/namespace/esxcli_network.html);
* ``Get-VirtualSwitch … | Set-VirtualSwitch -Mtu`` and ``Get-VDSwitch … | Set-VDSwitch -Mtu`` — VMware PowerCLI
  reference (https://developer.broadcom.com/powercli/latest/vmware.vimautomation.core/commands/set-virtualswitch,
  https://developer.broadcom.com/powercli/latest/vmware.vimautomation.vds/commands/set-vdswitch);
* the NSX uplink profile's MTU — NSX installation guide "Create an Uplink Profile"
  (https://docs.vmware.com/en/VMware-NSX/4.1/installation/GUID-50FDFDFB-F660-4269-9503-39AE2BBA95B4.html) and the
  Policy API ``PATCH /policy/api/v1/infra/host-switch-profiles/<id>``
  (https://developer.broadcom.com/xapis/nsx-t-data-center-rest-api/4.0.0/method_PatchPolicyHostSwitchProfile.html);
  an uplink profile's MTU is not applied to a VDS, whose MTU vCenter owns (shared/design/research/nsx-api.md §2.3);
* ``vmkping ++netstack=vxlan -I <TEP vmknic> -d -s <size> <remote TEP>`` — Broadcom KB 344313 (VMware KB 1003728)
  "Testing VMkernel network connectivity with the vmkping command"; the ``++netstack=vxlan … -I vmk10`` form and its
  outputs: shared/design/research/esxi-public/4_vmkping.md. The payload is the MTU less 28 bytes of IPv4 and ICMP
  header (8972 for 9000, 1672 for 1700, 1572 for 1600), less 48 for IPv6 (``vmkping -6``: 40-byte IPv6 header,
  RFC 8200, and the 8-byte ICMPv6 echo header, RFC 4443);
* ``esxcli network ip interface set -i vmkN -m M`` — the vmknic MTU (ESXCLI reference, ``esxcli network ip
  interface set``; the real session of resources/demo-lab/esxi-vcf9-nested runs it before its interface list);
* the vmklinux → native driver move and its roll-back — VMware KB 52044 "Network I/O performance regression after
  migrating from bnx2x driver to qfle3 driver" (its commands ``esxcli system module set --enabled=… --module=…``).

Pure: strings from the model, no I/O. A name the audit did not read stays a ``<placeholder>`` to fill in.
"""
from __future__ import annotations

import shlex

from nicadvisor.model import Host, PhysicalNic, Switch, VmkernelNic

#: The MTU the rules recommend (bytes): NSX reaches its highest throughput with 9000 on the fabric
#: (nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput).
MTU_TARGET = 9000
#: Bytes of IPv4 + ICMP header a ``vmkping -s`` payload leaves out of the frame's MTU (20 + 8, RFC 791/792).
PING_OVERHEAD = 28
#: Bytes of IPv6 + ICMPv6 echo header a ``vmkping -6 -s`` payload leaves out of the frame's MTU (40 + 8, RFC
#: 8200/4443).
PING_OVERHEAD_IPV6 = 48

#: The legacy vmklinux NIC drivers of ESXi 5.x-6.7 (the ``net-<driver>`` VIBs VMware's own images ship: ESXi 5.0 GA
#: build 469512 and ESXi 6.7 GA build 8169922, both listed whole in tests/rules/data/esxi_image_nic_vibs.txt with
#: their sources; ``qlge``: QLogic's async ``net-qlge`` VIB), each with the native driver of the same vendor family
#: the ESXi 6.7 GA image ships beside it (None where that image has none for the family). Native drivers such as
#: elxnet (Emulex, inbox since ESXi 5.5: William Lam, "ESXi 5.5 introduces a new Native Device Driver Architecture
#: Part 2", williamlam.com/2013/11/esxi-55-introduces-new-native-device.html), ixgben, igbn, i40en, ntg3, qfle3,
#: nenic, nmlx4_en are never here. vSphere 7.0 loads no vmklinux driver (VMware, "What is the Impact of the VMKlinux
#: Driver Stack Deprecation?", blogs.vmware.com/vsphere/2019/04/…). bnx2x → qfle3 is also VMware KB 52044's pair.
VMKLINUX_DRIVERS: dict[str, str | None] = {
    "ixgbe": "ixgben", "igb": "igbn", "tg3": "ntg3", "bnx2x": "qfle3", "e1000e": "ne1000", "enic": "nenic",
    "mlx4_en": "nmlx4_en", "net-mlx4-en": "nmlx4_en", "be2net": "elxnet", "qlge": "qflge",
    "e1000": None, "bnx2": None, "nx_nic": None, "forcedeth": None, "s2io": None, "sky2": None, "r8168": None,
    "r8169": None,
}
#: Kept for callers that want only the known pairs.
NATIVE_DRIVER = {k: v for k, v in VMKLINUX_DRIVERS.items() if v}


def _sh(word: str) -> str:
    """``word`` quoted for the ESXi shell (busybox ash: POSIX quoting); a ``<placeholder>`` to fill in stays as it is."""
    return word if word.startswith("<") and word.endswith(">") else shlex.quote(word)


def _ps(word: str) -> str:
    """``word`` as a PowerShell single-quoted string."""
    return "'" + word.replace("'", "''") + "'"


def tep_vmknic(host: Host) -> VmkernelNic | None:
    """The host's first NSX TEP vmknic (``is_tep``), or None before NSX is installed."""
    return next((v for v in host.vmknics if v.is_tep), None)


def ping_payload(mtu: int, ipv6: bool = False) -> int:
    """The ``-s`` payload (bytes) of a don't-fragment ping whose frame is exactly ``mtu`` bytes: ``mtu`` − 28 for
    IPv4 (1572 for 1600, 1672 for 1700, 8972 for 9000), ``mtu`` − 48 for IPv6."""
    return mtu - (PING_OVERHEAD_IPV6 if ipv6 else PING_OVERHEAD)


def vmkping_command(host: Host, mtu: int = MTU_TARGET) -> str:
    """``vmkping ++netstack=vxlan -I vmk10 -d -s 8972 <remote TEP IP>``: a don't-fragment ping of an ``mtu``-byte
    frame from the host's TEP vmknic (``<TEP vmknic>`` when none was read) on the TEP netstack (``vxlan``, NSX's
    TEP netstack, unless the audit read the TEP on another) to a TEP of another host, which no single host's audit
    knows. A TEP with only IPv6 addresses gets ``vmkping -6`` and the payload ``mtu`` − 48. Always with
    ``++netstack=`` and ``-I``: a test on the default netstack says nothing about the TEP path."""
    tep = tep_vmknic(host)
    name = tep.name if tep else "<TEP vmknic>"
    netstack = tep.netstack if tep and tep.netstack and tep.netstack != "defaultTcpipStack" else "vxlan"
    ipv6 = bool(tep and tep.addresses) and all(":" in a for a in (tep.addresses or ()))
    six = "-6 " if ipv6 else ""
    return f"vmkping {six}++netstack={netstack} -I {name} -d -s {ping_payload(mtu, ipv6)} <remote TEP IP>"


def vmknic_mtu_command(name: str, mtu: int | str) -> str:
    """``esxcli network ip interface set -i vmkN -m M``: the MTU of one vmknic (not a TEP, whose MTU NSX sets)."""
    return f"esxcli network ip interface set -i {_sh(name)} -m {mtu}"


#: What a VDS MTU change reaches (PowerCLI Set-VDSwitch -Mtu sets the MTU of the distributed switch itself, which
#: vCenter pushes to every member host's proxy switch and its uplinks).
VDS_REACH = ("This changes {name} on every member host, not only this one: every host on the VDS takes the new MTU on "
             "its uplinks at once (one change in vCenter; plan it for all of them).")


def switch_mtu_command(host: Host, switch: Switch | None, mtu: int | str) -> str:
    """Where and how the MTU of ``switch`` is set to ``mtu``, one way per line:

    * a standard vSwitch: the ESXi shell (``esxcli network vswitch standard set``) or PowerCLI
      (``Set-VirtualSwitch``) — it sets the MTU of every uplink pNIC of the vSwitch;
    * a VDS: PowerCLI against vCenter (``Set-VDSwitch``) or the vSphere Client — it applies to every member host of
      the VDS, which the text says (:data:`VDS_REACH`);
    * an N-VDS (opaque): the NSX uplink profile of the host's transport node (NSX UI or Policy API);
    * a switch not read (``None``) or of unknown kind: the vSwitch and VDS forms with ``<switch name>`` to fill in.
    """
    if host.kind == "linux":
        return f"ip link set dev <interface> mtu {mtu}"
    name = switch.name if switch is not None else "<switch name>"
    kind = switch.kind if switch is not None else None
    standard = (f"esxcli network vswitch standard set -v {_sh(name)} -m {mtu}\n"
                f"PowerCLI: Get-VirtualSwitch -VMHost {_ps(host.name)} -Standard -Name {_ps(name)} | "
                f"Set-VirtualSwitch -Mtu {mtu} -Confirm:$false")
    vds = (f"PowerCLI (vCenter): Get-VDSwitch -Name {_ps(name)} | Set-VDSwitch -Mtu {mtu}\n"
           f"vSphere Client: Networking > {name} > Actions > Settings > Edit Settings > Advanced > MTU {mtu}\n"
           f"{VDS_REACH.format(name=name)}")
    if kind == "standard":
        return standard
    if kind == "distributed":
        return vds
    if kind == "opaque":
        return nsx_uplink_profile_mtu(name, mtu)
    return (f"a standard vSwitch: {standard.splitlines()[0]}\n"
            f"a VDS: {vds.splitlines()[0].removeprefix('PowerCLI (vCenter): ')} (PowerCLI, in vCenter)")


def nsx_uplink_profile_mtu(switch_name: str, mtu: int | str) -> str:
    """The NSX UI path and Policy API call that set the MTU of the uplink profile of host switch ``switch_name``
    (an N-VDS takes its MTU from it; a profile without ``mtu`` uses the global Tunnel Endpoint MTU)."""
    return (f"NSX Manager: System > Fabric > Profiles > Uplink Profiles > <uplink profile of {switch_name}> > Edit > "
            f"MTU {mtu}\n"
            f"NSX API: PATCH /policy/api/v1/infra/host-switch-profiles/<uplink profile id> with the profile as GET "
            f"returns it and \"mtu\": {mtu}")


def nsx_uplink_profile_unset(switch_name: str, mtu: int | str) -> str:
    """The roll-back of :func:`nsx_uplink_profile_mtu`: a profile that had no ``mtu`` before (the global Tunnel
    Endpoint MTU applied) gets the field removed again, not a value set; one that had one gets it back."""
    return (f"NSX Manager: System > Fabric > Profiles > Uplink Profiles > <uplink profile of {switch_name}> > Edit: "
            f"if the MTU field was empty before, empty it again (the global Tunnel Endpoint MTU applies); otherwise "
            f"MTU {mtu}\n"
            f"NSX API: PATCH /policy/api/v1/infra/host-switch-profiles/<uplink profile id> with the profile as it was "
            f"before the change: without \"mtu\" when it had none, else \"mtu\": {mtu}")


def nsx_v_signs(host: Host) -> list[str]:
    """What marks ``host`` as an NSX-V (NSX for vSphere 6.x) host, each sign a phrase; empty when none. NSX-V puts
    its VTEP vmknics on the ``vxlan`` netstack of a VDS; NSX-T on ESXi 6.x puts its TEPs on an N-VDS, and on a VDS
    only from ESXi 7.0 (VDS 7.0). So: a TEP on the vxlan netstack of a VDS, on ESXi before 7.0 (or a release not
    read) and no N-VDS or NSX host switch on the host."""
    release = _esxi_major_minor(host)
    if release is not None and release >= (7, 0):
        return []
    if any(s.kind == "opaque" or s.nsx_host_switch for s in host.switches):
        return []
    by_name = {s.name: s for s in host.switches}
    for v in host.vmknics:
        sw = by_name.get(v.switch or "")
        if v.is_tep and v.netstack == "vxlan" and sw is not None and sw.kind == "distributed":
            where = f"ESXi {host.product_version}" if release else "ESXi release not read"
            return [f"VTEP {v.name} on the vxlan netstack of the VDS {sw.name}", where, "no N-VDS"]
    return []


def switch_mtu_verify(host: Host, switch: Switch | None) -> str:
    """The command that shows the MTU of ``switch`` (and its uplinks') after the change, and the TEP ping."""
    if host.kind == "linux":
        return "ip link show <interface>"
    kind = switch.kind if switch is not None else None
    name = switch.name if switch is not None else "<switch name>"
    shown = (f"esxcli network vswitch standard list -v {_sh(name)}" if kind == "standard" else
             "esxcli network vswitch dvs vmware list" if kind == "distributed" else "esxcfg-vswitch -l")
    return f"{shown}\nesxcfg-nics -l\n{vmkping_command(host)}"


def pnic_commands(host: Host, pnic: PhysicalNic) -> dict[str, str]:
    """The MTU command facts of a pNIC (set through the switch it is an uplink of): ``mtu_change_command``,
    ``mtu_verify_command``, ``mtu_rollback_command`` (back to the switch's MTU as read, else the pNIC's),
    ``vmkping_command`` and ``native_driver`` (``<native driver>`` when no cited pair names it)."""
    sw = host.switch_of(pnic.name)
    previous = sw.mtu if sw is not None and sw.mtu is not None else pnic.mtu
    out = _mtu_facts(host, sw, previous)
    if sw is None and host.kind != "linux":
        out["mtu_change_command"] = ("Manual: the audit read no switch for this pNIC, and an ESXi pNIC takes its MTU "
                                     "from its switch; set the MTU of the switch it is (or will be) an uplink of:\n"
                                     + out["mtu_change_command"])
    out.update(driver_migration_facts(host, pnic))
    out.update(pnic_show_commands(host, pnic))
    out.update(tso_commands(host, pnic))
    out["coalesce_rollback_command"] = coalesce_rollback_command(host, pnic)
    return out


def coalesce_rollback_command(host: Host, pnic: PhysicalNic) -> str:
    """The command that puts back the interrupt coalescing the audit read: on Linux ``ethtool -C X adaptive-rx
    on|off rx-usecs N`` (ethtool takes ``on``/``off``; 6.1 refuses ``yes``/``no``: "invalid value 'no' for
    parameter 'adaptive-rx'"), only the settings that were read; on ESXi ``esxcli network nic coalesce set``."""
    adaptive, usecs = pnic.coalesce_adaptive_rx, pnic.coalesce_rx_usecs
    if host.kind == "linux":
        parts = ([f"adaptive-rx {'on' if adaptive else 'off'}"] if adaptive is not None else []) + (
            [f"rx-usecs {usecs}"] if usecs is not None else [])
        if not parts:
            return f"Nothing read to restore: the audit read no coalescing of {pnic.name} (ethtool -c {pnic.name})."
        return f"ethtool -C {_sh(pnic.name)} {' '.join(parts)}"
    return (f"esxcli network nic coalesce set -n {_sh(pnic.name)} --rx-usecs "
            f"{usecs if usecs is not None else '<RX microseconds read before>'}")


def is_vmklinux_driver(driver: str | None) -> bool | None:
    """True for a driver of :data:`VMKLINUX_DRIVERS`, False for another named driver, None when none was read."""
    if not driver:
        return None
    return driver in VMKLINUX_DRIVERS


def _esxi_major_minor(host: Host) -> tuple[int, int] | None:
    parts = (host.product_version or "").split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


def driver_migration_facts(host: Host, pnic: PhysicalNic) -> dict[str, str | bool | None]:
    """The facts of the vmklinux → native driver move of ``pnic`` (rule ``legacy-vmklinux-driver``):

    * ``vmklinux_driver``: :func:`is_vmklinux_driver` of its driver;
    * ``native_driver``: the native driver of the family (:data:`VMKLINUX_DRIVERS`), or the sentence "the native
      driver the VMware Compatibility Guide lists for this device" — never an unfilled placeholder;
    * ``driver_change_command``: on ESXi 6.5/6.7, check for the native VIB, install it only when missing, enable it,
      disable the vmklinux driver, reboot in maintenance mode (VMware KB 52044's commands); on ESXi 6.0 and older
      the fix is an ESXi upgrade — NSX-T does not support ESXi 6.0, and 6.7 brings the native drivers inbox (with
      the release unknown, the commands are given after a sentence that says so);
    * ``driver_rollback_command``: the way back, which exists only on 6.x (7.0 and later load no vmklinux driver):
      enable the vmklinux driver, disable the native one, remove the native VIB if the change installed it, reboot.
    """
    driver = pnic.driver or "<driver>"
    native = VMKLINUX_DRIVERS.get(pnic.driver or "")
    native_text = native or "the native driver the VMware Compatibility Guide lists for this device"
    release = _esxi_major_minor(host)
    out: dict[str, str | bool | None] = {"vmklinux_driver": is_vmklinux_driver(pnic.driver),
                                         "native_driver": native_text}
    upgrade = (f"upgrade the host to a release NSX supports (NSX-T does not support ESXi 6.0; see the VMware "
               f"Product Interoperability Matrix) through vSphere Lifecycle Manager or esxcli software profile "
               f"update: ESXi 6.7 ships {native_text} inbox beside {driver}, and 7.0 and later load only native "
               f"drivers")
    if release is not None and release < (6, 5):
        named = upgrade.replace("the host", f"the host from ESXi {host.product_version}", 1)
        out["driver_change_command"] = f"Manual: {named}. Then check which driver claims {pnic.name}."
        out["driver_rollback_command"] = ("Manual: an upgrade is undone with the previous image the host keeps (the "
                                          "boot loader's recovery option, Shift+R).")
        return out
    if not native:
        out["driver_change_command"] = (
            f"Manual: the ESXi 6.7 image ships no native driver for {driver}'s family: look up {pnic.name}'s device "
            f"(VID/DID/SVID/SSID: esxcli hardware pci list) in the VMware Compatibility Guide for a native driver of "
            f"your release and install it, or replace the NIC with one that has a native driver (ESXi 7.0 and later "
            f"load no vmklinux driver).")
        out["driver_rollback_command"] = ("Manual: a replaced NIC is put back; a driver installed from the guide is "
                                          "removed with esxcli software vib remove -n and the host rebooted.")
        return out
    vib = native.replace("_", "-")  # the VIB of module nmlx4_en is nmlx4-en (the ESXi 6.7 GA image's VIB list)
    kb = ("Before you move: VMware KB 52044 \"Network I/O performance regression after migrating from bnx2x driver to "
          "qfle3 driver\": qfle3 has no queue-pairing mode, so it uses more MSI-X vectors (higher CPU, lower "
          "throughput in some cases); benchmark the host before and after.\n" if pnic.driver == "bnx2x" else "")
    unknown = (f"The audit read no ESXi release (vmware -vl): on ESXi 6.0 or older do not swap drivers, {upgrade}. "
               f"On ESXi 6.5/6.7:\n" if release is None else "")
    out["driver_change_command"] = (
        f"{unknown}{kb}esxcli software vib list | grep -i {_sh(vib)}\n"
        f"(only when it is not listed: esxcli software vib install -d /vmfs/volumes/<datastore>/<{native} offline "
        f"bundle>.zip; note that you installed it)\n"
        f"esxcli system module set --enabled=true --module={_sh(native)}\n"
        f"esxcli system module set --enabled=false --module={_sh(driver)}\n"
        f"reboot (in maintenance mode)")
    out["driver_rollback_command"] = (
        f"Only on ESXi 6.x (7.0 and later have no vmklinux driver to go back to):\n"
        f"esxcli system module set --enabled=true --module={_sh(driver)}\n"
        f"esxcli system module set --enabled=false --module={_sh(native)}\n"
        f"(only if the change installed {vib}: esxcli software vib remove -n {_sh(vib)})\n"
        f"reboot (in maintenance mode; VMware KB 52044 goes back from qfle3 to bnx2x this way)")
    return out


def pnic_show_commands(host: Host, pnic: PhysicalNic) -> dict[str, str]:
    """Read-only commands that show a pNIC's state after a change, as the audit reads it:

    * ``nic_show_command``: link, speed, driver and firmware (``esxcli network nic get -n``; ``ethtool``);
    * ``rss_verify_command``: the receive queues and their features (``vsish -e get /net/pNics/<pNIC>/rxqueues/info``,
      nsx-t-performance-on-intel.txt §1.4.3; ``ethtool -l`` and ``ethtool -x``);
    * ``offload_verify_command``: the Geneve offload capability (``vsish -e get /net/pNics/<pNIC>/properties``,
      §1.3.2; ``ethtool -k``);
    * ``pcie_show_command``: the negotiated and capable PCIe link (``lspci -vv`` LnkCap/LnkSta on Linux; on ESXi
      ``lspci -d``, the hex dump of each function's configuration space whose PCI Express capability holds Link
      Capabilities and Link Status, decoded by the audit: shared/design/research/esxi-public/8_pcie_link_on_esxi.md).
    """
    name, pci = pnic.name, pnic.pci_address or "<PCI address>"
    if host.kind == "linux":
        return {"nic_show_command": f"ethtool {_sh(name)}",
                "rss_verify_command": f"ethtool -l {_sh(name)}\nethtool -x {_sh(name)}",
                "offload_verify_command": f"ethtool -k {_sh(name)} | grep udp_tnl",
                "pcie_show_command": f"lspci -vv -s {pci} | grep -e LnkCap -e LnkSta"}
    return {"nic_show_command": f"esxcli network nic get -n {_sh(name)}",
            "rss_verify_command": f"vsish -e get /net/pNics/{name}/rxqueues/info",
            "offload_verify_command": f"vsish -e get /net/pNics/{name}/properties | grep 'Activated.*Geneve'",
            "pcie_show_command": (f"lspci -d > /tmp/lspci-d.txt   # the configuration space of every PCI function; "
                                  f"nic-advisor audit --capture reads the link of {pci} from it (Link Capabilities "
                                  "and Link Status of its PCI Express capability); out of band: the server's BMC "
                                  "(nic-advisor audit --redfish HOST=https://BMC)")}


def tso_commands(host: Host, pnic: PhysicalNic) -> dict[str, str]:
    """TCP segmentation offload of a pNIC: ``tso_enable_command``, ``tso_verify_command``, ``tso_rollback_command``
    (Linux: ``ethtool -K IF tso on|off``, read back with ``ethtool -k``; ESXi: ``esxcli network nic tso set -e 1|0 -n
    vmnicN``, read back with ``esxcli network nic tso get``, the command the audit reads it with).

    A NIC whose ``ethtool -k`` says ``tcp-segmentation-offload: off [fixed]`` (``fixed_offloads`` holds ``tso``) is
    never told to turn TSO on (the driver refuses it; issue 26): the enable command says so and names what can change
    it (a driver or firmware that offers TSO on this NIC, or another NIC), and there is nothing to roll back."""
    name = _sh(pnic.name)
    if pnic.tso is False and "tso" in (pnic.fixed_offloads or ()):
        driver = pnic.driver or "its driver"
        return {"tso_enable_command": (
                    f"Manual: not with a command: {pnic.name} reports TCP segmentation offload off [fixed] (ethtool "
                    f"-k): {driver} or the NIC cannot segment, and no ethtool setting turns it on. Update {driver} "
                    f"(and the NIC firmware) to a version that offers TSO on this NIC, or move the traffic to a NIC "
                    f"whose driver offers it."),
                "tso_verify_command": (f"ethtool -k {name} | grep tcp-segmentation-offload" if host.kind == "linux"
                                       else "esxcli network nic tso get"),
                "tso_rollback_command": "Nothing to roll back: no TSO setting is changed on this NIC."}
    if host.kind == "linux":
        return {"tso_enable_command": f"ethtool -K {name} tso on",
                "tso_verify_command": f"ethtool -k {name} | grep tcp-segmentation-offload",
                "tso_rollback_command": f"ethtool -K {name} tso off"}
    return {"tso_enable_command": f"esxcli network nic tso set -e 1 -n {name}",
            "tso_verify_command": "esxcli network nic tso get",
            "tso_rollback_command": f"esxcli network nic tso set -e 0 -n {name}"}


def switch_commands(host: Host, switch: Switch) -> dict[str, str]:
    """The MTU command facts of a switch (``mtu_change_command``, ``mtu_verify_command``, ``mtu_rollback_command``,
    ``vmkping_command``)."""
    return _mtu_facts(host, switch, switch.mtu)


def vmknic_commands(host: Host, vmknic: VmkernelNic) -> dict[str, str]:
    """The MTU command facts of a vmknic: a TEP's MTU is NSX's (the uplink profile, or the global Tunnel Endpoint
    MTU; an NSX-V VTEP's: a V2T migration, :func:`nsx_v_signs`), and the switch it runs on must carry it (a VDS:
    vCenter); another vmknic's is ``esxcli network ip interface set -i vmkN -m M`` after its switch."""
    sw = next((s for s in host.switches if s.name == vmknic.switch), None) if vmknic.switch else None
    out = _mtu_facts(host, sw, vmknic.mtu)
    if not vmknic.is_tep and host.kind != "linux":  # a vmknic's own MTU, below its switch's (raised first)
        out["mtu_change_command"] = (f"first the switch: {_first_way(host, sw, MTU_TARGET)}\n"
                                     f"then the vmknic: {vmknic_mtu_command(vmknic.name, MTU_TARGET)}")
        out["mtu_rollback_command"] = vmknic_mtu_command(vmknic.name, _or(vmknic.mtu))
        return out
    nsx_v = nsx_v_signs(host)
    if vmknic.is_tep and nsx_v:
        out["mtu_change_command"] = (
            f"Manual: the host looks like an NSX-V host ({'; '.join(nsx_v)}): its VTEP MTU is NSX-V's (the VXLAN "
            f"configuration of the cluster), and the rollout to NSX-T is a migration (NSX Migration Coordinator, "
            f"V2T), not an NSX-T uplink profile change. Before it: the host on an ESXi release NSX-T supports "
            f"(NSX-T does not support ESXi 6.0; the migration needs ESXi supported by NSX-T, see the VMware Product "
            f"Interoperability Matrix), its switch at MTU 9000 first ({_first_way(host, sw, MTU_TARGET)}), then "
            f"MTU 9000 as the TEP MTU of the migration's NSX-T uplink profile.")
        out["mtu_rollback_command"] = ("Manual: a V2T migration is rolled back with the Migration Coordinator "
                                       "(before the host migration step); the switch MTU back with: "
                                       f"{_first_way(host, sw, _or(sw.mtu if sw else None))}")
        out["mtu_verify_command"] = f"esxcfg-vmknic -l\n{vmkping_command(host)}"
        return out
    if vmknic.is_tep:
        name = sw.name if sw is not None else "<host switch>"
        opaque = sw is not None and sw.kind == "opaque"  # an N-VDS takes its MTU from the uplink profile itself
        raise_switch = "" if opaque else (f"first the switch, so that it carries the TEP's frames: "
                                          f"{_first_way(host, sw, MTU_TARGET)}\nthen the TEP in NSX:\n")
        lower_switch = "" if opaque else (f"\nthen the switch: {_first_way(host, sw, _or(sw.mtu if sw else None))}")
        out["mtu_change_command"] = raise_switch + nsx_uplink_profile_mtu(name, MTU_TARGET)
        out["mtu_rollback_command"] = ("" if opaque else "first the TEP in NSX:\n") + nsx_uplink_profile_unset(
            name, _or(vmknic.mtu)) + lower_switch
        out["mtu_verify_command"] = f"esxcfg-vmknic -l\n{vmkping_command(host)}"
    return out


def _first_way(host: Host, switch: Switch | None, mtu: int | str) -> str:
    """The first way :func:`switch_mtu_command` gives, on one line (the switch's own plan item gives them all)."""
    return switch_mtu_command(host, switch, mtu).splitlines()[0]


def host_commands(host: Host) -> dict[str, str]:
    """The host-level command facts: ``vmkping_command`` from its TEP."""
    return {"vmkping_command": vmkping_command(host)}


def _or(mtu: int | None) -> int | str:
    return mtu if mtu is not None else "<MTU before the change>"


def _mtu_facts(host: Host, switch: Switch | None, previous: int | None) -> dict[str, str]:
    return {"mtu_change_command": switch_mtu_command(host, switch, MTU_TARGET),
            "mtu_verify_command": switch_mtu_verify(host, switch),
            "mtu_rollback_command": switch_mtu_command(host, switch, _or(previous)),
            "vmkping_command": vmkping_command(host)}


#: The derived command facts each kind of object adds to its context (see :mod:`nicadvisor.rules_engine.context`).
COMMAND_FACTS = {
    "pnic": ("mtu_change_command", "mtu_verify_command", "mtu_rollback_command", "vmkping_command", "native_driver",
             "vmklinux_driver", "driver_change_command", "driver_rollback_command", "nic_show_command",
             "rss_verify_command", "offload_verify_command", "pcie_show_command", "coalesce_rollback_command",
             "tso_enable_command", "tso_verify_command", "tso_rollback_command"),
    "switch": ("mtu_change_command", "mtu_verify_command", "mtu_rollback_command", "vmkping_command"),
    "vmknic": ("mtu_change_command", "mtu_verify_command", "mtu_rollback_command", "vmkping_command"),
    "host": ("vmkping_command",),
}


def driver_update_steps(host: Host, pnic: PhysicalNic, to_version: str | None) -> dict[str, str]:
    """``change`` / ``verify`` / ``rollback`` of a driver update on an ESXi host (findings made in code, not by a rule
    file: the compatibility database and the imported guide): install the vendor's offline bundle of ``to_version``
    (``esxcli software vib install -d``, which also installs an older version, so the roll-back is the same command
    with the version the audit read) and reboot in maintenance mode."""
    driver = pnic.driver or "<driver>"
    bundle = f"/vmfs/volumes/<datastore>/<{driver} {to_version or '<listed version>'} offline bundle>.zip"
    back = f"/vmfs/volumes/<datastore>/<{driver} {pnic.driver_version or '<version read>'} offline bundle>.zip"
    return {"change": f"esxcli software vib install -d {bundle}\nreboot (in maintenance mode)",
            "verify": f"esxcli network nic get -n {_sh(pnic.name)}",
            "rollback": f"esxcli software vib install -d {back}\nreboot (in maintenance mode)"}


def firmware_update_steps(pnic: PhysicalNic) -> dict[str, str]:
    """``change`` / ``verify`` / ``rollback`` of a NIC firmware update: no ESXi command writes NIC firmware, so the
    change is the vendor's tool or the server's management controller, said plainly."""
    return {"change": f"Manual: NIC firmware is written with the vendor's update tool or the server's management "
                      f"controller (no ESXi command does it): the firmware listed for {pnic.driver or 'the driver'} "
                      f"{pnic.driver_version or ''}".rstrip() + f" on {pnic.name}.",
            "verify": f"esxcli network nic get -n {_sh(pnic.name)}",
            "rollback": "Manual: write the previous firmware image back with the same tool (keep it before the "
                        "update)."}


def release_change_steps(host: Host) -> dict[str, str]:
    """``change`` / ``verify`` / ``rollback`` when a NIC is not listed for the host's ESXi release: a release change
    or a NIC swap, both outside what a command on the host can do safely."""
    return {"change": f"Manual: run {host.name} on an ESXi release the guide lists for this NIC (an upgrade through "
                      f"vSphere Lifecycle Manager), or replace the NIC with one listed for the host's release.",
            "verify": "vmware -vl\nesxcli network nic list",
            "rollback": "Manual: an upgrade is undone with the previous image the host keeps (the boot loader's "
                        "recovery option, Shift+R); a replaced NIC is put back."}


def guide_import_steps() -> dict[str, str]:
    """``change`` / ``verify`` / ``rollback`` of (re)importing the compatibility guide into NIC Advisor."""
    return {"change": "nic-advisor vcg import FILE",
            "verify": "nic-advisor vcg status",
            "rollback": "nic-advisor vcg import <the previous file> --replace"}


def overlay_fit_steps(host: Host) -> dict[str, str]:
    """``change`` / ``verify`` / ``rollback`` of ``overlay-no-fit-pnic`` (every pNIC that could carry the overlay would
    fail a rule if it did, :func:`nicadvisor.model.readiness.overlay_fit_findings`): no single command makes a pNIC fit;
    the fixes are those of the conditional findings on the pNICs meant to carry the overlay, each with its own change
    and roll-back; the check reads their link and MTU again (and the switch's)."""
    verify = "ip -d link show" if host.kind == "linux" else "esxcfg-nics -l\nesxcfg-vswitch -l"
    return {"change": "Manual: choose the pNICs that will carry the overlay and carry out the plan items that name them "
                      "(the pNIC or switch MTU raised to at least 1600 bytes, 1700 with Geneve options; the link up), "
                      "each with its own commands.",
            "verify": verify,
            "rollback": "Manual: each of those plan items gives its own roll-back."}
