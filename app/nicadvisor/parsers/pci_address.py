"""The one normaliser of PCI addresses for every parser: ``normalise_pci(text) -> PciAddress``.

Target form ``dddd:bb:dd.f`` (hex, lower case): domain (segment) at least 4 digits, bus 2, device 2, function 1,
as Linux names PCI functions (``pci_name()``: ``"%04x:%02x:%02x.%d"``, kernel ``include/linux/pci.h``) and as
ESXi 6.x+ ``esxcli network nic list`` / ``esxcfg-nics -l`` print them (captures
``esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt``, ``esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt``).

Forms read (each with its public source):

* ``0000:19:00.0`` — the target form itself.
* ``0000:19:00:0`` — a colon before the function: ``esxcli network nic get`` ``Bus Info``
  (capture ``unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt``).
* ``19:00.0`` — no domain: ``lspci`` omits domain 0 unless ``-D`` is given (pciutils ``lspci(8)``, option ``-D``
  "Always show PCI domain numbers. By default, lspci suppresses them on machines which have only domain 0");
  read as domain 0.
* ``0000:002:00.0`` / ``0000:0c1:00.0`` — a 3-digit bus: ESXi 5.x ``esxcli network nic list`` zero-pads the hex
  bus to 3 digits (``0c1`` holds a hex digit, so the padding is of a hex number: GitHub code-index file id
  48915758579, section "List NICs / VMware", igb I350 at ``0000:0c1:00.0``; elatov.github.io post
  2014 "thunderbolt ethernet" (code-index file id 10896969280) shows ``0000:001:00.0`` for the tg3 that its
  ESXi 6.0 capture ``esxi_g_esxcli_network_nic_list_tg3_ixgbe_esxi60_elatov.txt`` shows at ``0000:01:00.0``,
  same MAC). A 3-digit bus with a leading ``0`` is therefore read as hex. One without a leading ``0``
  (``130``) is not a hex bus (> 0xff) and no source says it is decimal: kept as written, with a note.
  ``000:002:00.0`` (3-digit domain, ESXi 4.1 ``vmkchdev -l``, capture
  ``esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt``) likewise.
* ``0000.19:00.0`` — a dot in place of the domain separator: read as the domain.
* non-zero and wide domains (``c0a4:00:02.0``; Linux names every function with its domain, see ``pci_name()``
  above): the domain is kept at its own width (at least 4 digits).
* ``0000:03:00.01`` — a 2-digit, zero-padded function: ESXi 5.x ``esxcfg-nics -l`` (GitHub code-index file id
  17065244368, a UC engineer's ESXi command notes: ``vmnic3  0000:03:00.01 igb`` in ``esxcfg-nics -l`` and
  ``bus-info: 0000:03:00.1`` in ``ethtool -i vmnic3`` on the same host; likewise file ids 44322383233,
  34183594642). Read when ``00``–``07`` (a PCI function number is 0–7).
* ``bus:slot`` (``02:00``, no function; ``19:00:0`` with no domain, where the colon makes the groups ambiguous):
  kept as written with a note, never dropped.

Device numbers above 0x1f or functions above 7 are not PCI addresses (PCI Local Bus Specification: 32 devices
per bus, 8 functions per device; Linux ``PCI_SLOT()``/``PCI_FUNC()`` take 5 and 3 bits of ``devfn``).
Pure and linear: the text is split at its separators, no backtracking regex.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_PCI_TEXT = 64
"""Longer text is not read as an address (bounded work on pasted garbage)."""

_HEX = frozenset("0123456789abcdef")
_NOT_PCI = {"pseudo": "Pseudo: not a PCI device (a USB or other non-PCI uplink)",
            "n/a": "no PCI address given (N/A)", "-": "no PCI address given (-)", "": "no PCI address given"}


@dataclass(frozen=True)
class PciAddress:
    """A PCI address as read: ``normalised`` is ``dddd:bb:dd.f`` (hex, lower case) or None when the text is not
    an unambiguous full address; ``as_written`` the text as found (stripped); ``note`` says why it was not
    normalised (None when it was)."""

    normalised: str | None
    as_written: str
    note: str | None = None

    @property
    def is_address(self) -> bool:
        """True when the text has the shape of a PCI address (normalised or not), False for ``Pseudo``, ``N/A`` and
        text that is no address."""
        return self.normalised is not None or (self.note or "").startswith("ambiguous")


def _split(text: str) -> tuple[list[str], list[str]] | None:
    """``"0000:19:00.0"`` → (["0000", "19", "00", "0"], [":", ":", "."]); None when a group is not hex or empty."""
    groups: list[str] = []
    seps: list[str] = []
    current = []
    for ch in text:
        if ch in ":.":
            if not current:
                return None
            groups.append("".join(current))
            seps.append(ch)
            current = []
        elif ch in _HEX:
            current.append(ch)
        else:
            return None
    if not current:
        return None
    groups.append("".join(current))
    return groups, seps


def _bus(group: str) -> tuple[int | None, str | None]:
    """A bus (or domain-like) group: 1–2 hex digits, or 3 with a leading 0 (zero-padded hex)."""
    if len(group) <= 2:
        return int(group, 16), None
    if len(group) == 3 and group[0] == "0":
        return int(group, 16), None
    return None, f"ambiguous 3-digit bus {group!r} (not zero-padded hex; base unknown)"


def _function(group: str) -> int | None:
    """``"0"``–``"7"`` or zero-padded ``"00"``–``"07"``; else None."""
    if len(group) == 2 and group[0] == "0":
        group = group[1]
    if len(group) == 1 and group in "01234567":
        return int(group)
    return None


def normalise_pci(text: str | None) -> PciAddress:
    """Read one PCI address as printed (see the module docstring for the forms and their sources).

    Returns ``PciAddress(normalised, as_written, note)``: ``normalised`` ``"0000:19:00.0"`` when the text is an
    unambiguous address; otherwise None, with ``note`` starting ``"ambiguous"`` for an address-shaped text that
    cannot be normalised (short ``bus:slot``, 3-digit bus of unknown base), else saying why it is no address.
    Never raises.
    """
    written = (text or "").strip()
    low = written.lower()
    if low in _NOT_PCI:
        return PciAddress(None, written, _NOT_PCI[low])
    if len(written) > MAX_PCI_TEXT:
        return PciAddress(None, written[:MAX_PCI_TEXT], "not a PCI address (too long)")
    split = _split(low)
    if split is None or not 2 <= len(split[0]) <= 4:
        return PciAddress(None, written, "not a PCI address")
    groups, seps = split
    if len(groups) == 2:
        if seps == [":"] and len(groups[0]) <= 3 and len(groups[1]) <= 2:
            return PciAddress(None, written, "ambiguous short bus:slot form (no domain, no function)")
        return PciAddress(None, written, "not a PCI address")
    if len(groups) == 3:
        if seps == [":", "."]:
            domain_group, bus_group, dev_group, fn_group = "0", *groups
        elif seps == [":", ":"] and all(len(g) <= 4 for g in groups):
            return PciAddress(None, written, "ambiguous: bus:slot:function or domain:bus:slot (colon separators)")
        else:
            return PciAddress(None, written, "not a PCI address")
    else:
        if seps[1] != ":" or len(groups[0]) > 8:
            return PciAddress(None, written, "not a PCI address")
        domain_group, bus_group, dev_group, fn_group = groups
    if len(domain_group) == 3 and domain_group[0] != "0":
        return PciAddress(None, written, f"ambiguous 3-digit domain {domain_group!r} (base unknown)")
    bus, why = _bus(bus_group)
    if bus is None:
        return PciAddress(None, written, why)
    if len(dev_group) > 2 or int(dev_group, 16) > 0x1F:
        return PciAddress(None, written, "not a PCI address (device number above 0x1f)")
    fn = _function(fn_group)
    if fn is None:
        return PciAddress(None, written, "not a PCI address (function not 0-7)")
    return PciAddress(f"{int(domain_group, 16):04x}:{bus:02x}:{int(dev_group, 16):02x}.{fn}", written)


def looks_like_pci(token: str) -> bool:
    """True when ``token`` has the shape of a PCI address (normalisable or ambiguous) — the shape test that the
    table reader uses to place a value in a PCI column."""
    return normalise_pci(token).is_address
