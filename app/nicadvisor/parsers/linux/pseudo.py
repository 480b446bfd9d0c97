"""The Linux pseudo-device test: names a Linux interface of a software device carries, whatever command printed it.

One test for every Linux reader (``ip link``, ``ethtool`` in all its forms, sysfs, the kernel log): the registry
applies it to every result of a Linux command family (:func:`nicadvisor.parsers.registry.parse_output`), so a bond
or a VLAN sub-interface never becomes a pNIC because the one output read about it did not say what it is.
"""
from __future__ import annotations

import re

#: Names the kernel and the usual tools give software devices, never a PCI port: bonding ``bond0`` (and ``team0``),
#: bridges (``br0``, Docker's ``docker0`` / ``br-<hex>``, libvirt's ``virbr0``), libvirt/QEMU taps ``vnet0``, ``tap…``,
#: ``tun…``, ``veth…``, ``dummy0``, Open vSwitch's ``ovs-system``, tunnel devices ``vxlan_sys_4789`` /
#: ``genev_sys_6081``, WireGuard ``wg0``, Kubernetes CNI ``cni0``, ``flannel.1``, ``cali…``, ``kube-ipvs0``,
#: desktop hypervisors' host-only adapters (VirtualBox ``vboxnet0``, VMware Workstation ``vmnet1``), LXC/LXD bridges
#: ``lxcbr0``/``lxdbr0``, Podman's ``podman0``; wireless LAN ports (``wlan0``, systemd's ``wlp3s0``: a PCI device,
#: but never an Ethernet uplink a host switch or NSX can use); and a
#: VLAN sub-interface ``<parent>.<vlan-id>`` (``eno4.4000``, ``bond0.102``: the name ``ip link add link eno4 name
#: eno4.4000 type vlan id 4000`` and vconfig's default ``DEV_PLUS_VID_NO_PAD`` naming give it, vconfig(8)).
_SOFTWARE_NAME_RE = re.compile(r"^(?:bond\d{1,5}|team\d{1,5}|br\d{1,5}|br-[0-9a-f]{4,32}|docker\d{1,5}|virbr\d{1,5}"
                               r"(?:-nic)?|vnet\d{1,5}|tap\w{0,30}|tun\w{0,30}|veth\w{0,30}|dummy\d{0,5}|ovs-system|"
                               r"vxlan_sys_\d{1,5}|genev_sys_\d{1,5}|wg\d{1,5}|cni\d{1,5}|flannel\.\d{1,5}|cali\w{1,30}|"
                               r"kube-ipvs\d{1,3}|vboxnet\d{1,5}|vmnet\d{1,5}|lxdbr\d{1,5}|lxcbr\d{1,5}|podman\d{1,5}|"
                               r"wlan\d{1,5}|wl[a-z]{1,3}\d{1,5}\w{0,20}|[A-Za-z][\w-]{0,14}\.\d{1,4})$")


def software_device(name: str, flags: list[str] | tuple[str, ...] = ()) -> bool:
    """True when an interface is a software device by its name (a bond, a bridge, a VLAN sub-interface
    ``<parent>.<vlan-id>`` …: :data:`_SOFTWARE_NAME_RE`; a ``name@parent`` as ``ip link`` prints it is judged by its
    name) or by the ``MASTER`` flag (a bond's IFF_MASTER, ip-link(8)): it is no pNIC, whatever MTU and link it
    shows."""
    return bool(_SOFTWARE_NAME_RE.match(name.split("@", 1)[0])) or "MASTER" in flags


def pseudo_reason(name: str) -> str:
    """Why :func:`software_device` calls ``name`` a software device by its name (the evidence of ``is_physical``
    False set from a name alone)."""
    base = name.split("@", 1)[0]
    if re.fullmatch(r"[A-Za-z][\w-]{0,14}\.\d{1,4}", base) and not base.startswith("flannel."):
        parent, vlan = base.rsplit(".", 1)
        return f"{name}: a VLAN sub-interface of {parent} (VLAN {vlan}), named <parent>.<vlan-id>: not a pNIC"
    if re.fullmatch(r"wlan\d{1,5}|wl[a-z]{1,3}\d{1,5}\w{0,20}", base):
        return f"{name}: a wireless LAN port (named wlan<N> or wl<bus>…): not an Ethernet pNIC a host switch can use"
    if re.fullmatch(r"vboxnet\d{1,5}|vmnet\d{1,5}", base):
        return f"{name}: a desktop hypervisor's host-only adapter (VirtualBox, VMware Workstation): not a pNIC"
    return f"{name}: the name of a software device (bond, bridge, tunnel …): not a pNIC"
