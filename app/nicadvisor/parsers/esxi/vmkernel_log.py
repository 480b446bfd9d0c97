"""ESXi ``/var/log/vmkernel.log`` (or ``/var/run/log/vmkernel.log``, or a ``grep`` of it): the NIC
drivers' attach-time messages.

What is read (nic-data-sources.md §7, §8a, §9; regexes anchored on the message part because timestamp
prefixes differ across releases, §14 item 17; lines may be split after the prefix as in the reformatted
capture ``esxi_vmkernel_log_i40en_icen_itr_msix.txt``):

* icen ``<pci>: Setting TX/RX Dynamic|Static Interrupt Throttle Rate (ITR) to 50 usec`` →
  ``coalesce_rx_usecs``/``coalesce_tx_usecs`` (µs) and ``coalesce_adaptive_rx`` (True for Dynamic);
  icen ENS form ``Setting RX ... to N usec and TX ... to M usec for ENS`` (also sets ``ens_enabled``);
  i40en ``Setting RX|TX Interrupt Throttle Rate to N usec`` (keyed only when the line names a device).
* ``Device is configured in [Interrupt] ENS mode`` → ``ens_enabled`` True, ``ens_mode`` ``ens`` /
  ``ens_interrupt``.
* ixgben ``feature.rx|tx: numQueue = N``, ``maxTxQueues=12, maxRxQueues=12, maxNumRssQ=4`` →
  ``rx_queues``/``tx_queues``, ``rss`` (``maxNumRssQ`` > 0, or ``Register RSS``); ``Changing MTU from 1500
  to 9000`` → ``mtu`` (bytes); ``Uplink: ...: vmnic0: Driver claims supporting N RX queues, and M queues
  are accepted`` → ``rx_queues`` = M (capture ``esxi_vmkernel_log_ixgben_queues_itr_mtu.txt``).
* ``<pci>: Starting I/O on vmnicN`` maps a PCI address to its vmnic: facts of a mapped address are keyed
  by the vmnic (with ``pci_address``), the others by ``"pci:0000:bb:dd.f"``.
* ``VMK_PCI: ... <pci>: allocated N MSIX interrupts`` and ixgben ``rxITR``/``txITR`` (units not printed)
  and ``vectors`` go to ``records`` only.
* A port's link events (the last event of each port wins; a ``Down`` leaves its speed unknown): the vmklinux-era
  Linux driver messages ``<6>vmnic0 NIC Link is Up 1000 Mbps Full Duplex`` (``<6>ixgbe 04:00.0: vmnic2: NIC Link is
  Up …`` with a bus address without domain) → ``link_up``, ``link_speed_mbps``, ``duplex``; the native drivers'
  ``INFO (ne1000): vmnic0: Link is Up``, ``igbn: igbn_CheckLink:1628: vmnic1: Link is down`` and
  ``ixgben_CheckLink:3864: 0000:af:00.1: Link is up for device`` → ``link_up``; the vmklinux be2net/elxnet form
  ``vmnic0 : 02:00.0 Link Down`` / ``… Link Up - 10 Gbps Full Duplex`` → ``link_up``, ``link_speed_mbps``,
  ``duplex``; and, in ``vobd.log`` (read by the
  same parser), ``[vob.net.vmnic.linkstate.down] vmnic vmnic6 linkstate down`` → ``link_up``, ``[esx.problem.net.
  vmnic.linkstate.flapping] Taking down physical NIC vmnic5`` → ``admin_up`` False (ESXi took the port down).
  Several records joined on one line (a page that lost its line breaks) are all read, in order.
* Lines of the storage functions of the same adapters (FCoE/iSCSI/FC drivers ``qfle3f``, ``bnx2fc``, ``qedf``,
  ``lpfc``, ``nfnic`` …, or a line naming a ``vmhba`` and no vmnic) are skipped: never a pNIC fact, counted in
  one record (``kind`` ``storage adapter lines``).

A log is a history: for each device the **last** value logged wins.
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, norm_pci
from nicadvisor.parsers.registration import register

_PCI = r"(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
_DRV_RE = re.compile(r"\b(?P<drv>[a-z][a-z0-9_]*):\s+\w+:\d+:")
_PCI_ANY_RE = re.compile(_PCI)

_MSIX_RE = re.compile(
    r"VMK_PCI:\s*\d+:\s*(?:device\s+)?" + _PCI + r":?\s+allocated\s+(?P<n>\d+)\s+(?P<kind>MSIX|MSI)\b", re.I)
_ITR = r"Interrupt Throttle Rate\s*(?:\(ITR\)\s*)?to\s+"
_ICEN_ITR_RE = re.compile(r"Setting\s+TX/RX\s+(?P<mode>Static|Dynamic)\s+" + _ITR + r"(?P<v>\d+)\s*usec", re.I)
_ICEN_ENS_ITR_RE = re.compile(
    r"Setting\s+RX\s+(?P<rmode>Static|Dynamic)\s+" + _ITR + r"(?P<rx>\d+)\s*usec\s+and\s+"
    r"TX\s+(?P<tmode>Static|Dynamic)\s+" + _ITR + r"(?P<tx>\d+)\s*usec\s+for\s+ENS", re.I)
_DIR_ITR_RE = re.compile(r"Setting\s+(?P<dir>RX|TX)\s+Interrupt Throttle Rate\s+to\s+(?P<v>\d+)\s*usec", re.I)
_ENS_MODE_RE = re.compile(r"configured in (?P<intr>Interrupt\s+)?ENS mode", re.I)
_NUMQ_RE = re.compile(_PCI + r":\s*feature\.(?P<dir>rx|tx):\s*numQueue\s*=\s*(?P<n>\d+)")
_VECTORS_RE = re.compile(_PCI + r":\s*feature\.intr:\s*vectors\s*=\s*(?P<n>\d+)")
_IXGBEN_ITR_RE = re.compile(_PCI + r":\s*config\.intr:[^\n]{0,200}?rxITR\s*=\s*(?P<rx>\d+),\s*txITR\s*=\s*(?P<tx>\d+)")
_MAXQ_RE = re.compile(_PCI + r":\s*maxTxQueues=(?P<tx>\d+),\s*maxRxQueues=(?P<rx>\d+),\s*maxNumRssQ=(?P<rss>\d+)")
_REG_RSS_RE = re.compile(_PCI + r":\s*Register RSS\b")
_MTU_RE = re.compile(r"Changing MTU from (?P<old>\d+) to (?P<new>\d+)")
_START_IO_RE = re.compile(_PCI + r":\s*Starting I/O on (?P<nic>vmnic\d+)")
_UPLINK_RXQ_RE = re.compile(
    r"Uplink:\s*\d+:\s*(?P<nic>vmnic\d+):\s*Driver claims supporting (?P<n>\d+) RX queues, "
    r"and (?P<acc>\d+) queues are accepted")
_NIC_RE = re.compile(r"\b(?P<nic>vmnic\d+)\b")
#: A driver's link message (see the module docstring): an optional PCI address (with or without its domain) or
#: ``vmnicN`` before ``[NIC] [Copper] Link is Up|Down``, then the speed and duplex vmklinux drivers print.
_LINK_RE = re.compile(
    r"(?:(?P<pci>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):\s+)?(?:(?P<nic>vmnic\d+):?\s+)?"
    r"(?i:(?:NIC\s+)?(?:Copper\s+|Fiber\s+)?Link\s+is\s+(?P<state>up|down)\b)"
    r"(?P<tail>(?:(?!Link\s+is|\d{4}-\d\d-\d\dT)[^\n]){0,80})")
#: The vmklinux-era Emulex/ServerEngines form (be2net, elxnet): ``vmnic0 : 02:00.0 Link Down``, ``vmnic0 : 02:00.0 Link
#: Up - 10 Gbps Full Duplex`` (the interface, a space before the colon, a bus address without its domain, no "is"):
#: capture ``esxi5_vmkernel_log_be2net_vmnic_space_colon_bus_link_down_up_flex10_elatov.txt``.
_BE2NET_LINK_RE = re.compile(
    r"\b(?P<nic>vmnic\d+)\s+:\s+[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s+Link\s+(?P<state>Up|Down)\b"
    r"(?P<tail>(?:(?!Link\s|\d{4}-\d\d-\d\dT)[^\n]){0,80})")
_LINK_SPEED_RE = re.compile(r"(?P<n>\d{1,6})\s*(?P<unit>[MG])b(?:ps|/s)\b", re.I)
_DUPLEX_RE = re.compile(r"\b(?P<d>full|half)[ -]duplex\b", re.I)
#: vobd's link-state observations and ESXi taking a flapping port down (Broadcom KBs 376568, 431016, 324499).
_LINKSTATE_RE = re.compile(r"\[vob\.net\.vmnic\.linkstate\.(?P<state>up|down)\]\s+vmnic\s+(?P<nic>vmnic\d+)\b")
_TAKEN_DOWN_RE = re.compile(r"Taking down physical NIC (?P<nic>vmnic\d+)\b")
# Storage functions of converged adapters log under their own driver, on the same PCI device as the NIC port
# (another function) or on a vmhba: QLogic qfle3f (FCoE, "QLogic Inc. FCoE Adapter" in VMware's upgrade precheck,
# code-index file 10383878004) and qfle3i (iSCSI) beside qfle3, bnx2fc/bnx2i ("QLogic's Linux FCoE Offload Driver"
# README) beside bnx2x, qedf/qedi beside qedentv, brcmfcoe/lpfc/elxiscsi beside elxnet (Broadcom KB 390100 quotes
# "lpfc : vmhbaX" vmkernel lines), qlnativefc, nfnic/fnic (Broadcom KB 432676 "nfnic: <1>: INFO: … fnic1") and the
# software vmkfcoe. Their lines are not NIC facts even when they name a PCI address or an MTU (FCoE functions run a
# 2500-byte "baby jumbo" MTU of their own).
_STORAGE_DRIVERS_RE = re.compile(
    r"\b(?P<sdrv>qfle3f|qfle3i|bnx2fc|bnx2i|qedf|qedi|brcmfcoe|lpfc|elxiscsi|qlnativefc|nfnic|fnic|vmkfcoe)\s?:", re.I)
_VMHBA_RE = re.compile(r"\bvmhba(?:\d+|X)\b")


def _link_events(line: str, put, names: dict[str, tuple[str, str]]) -> bool:
    """Record every link event of ``line`` in order with ``put(key, field, value, evidence)`` (a message naming both
    a PCI address and its vmnic maps the one to the other in ``names``); True when there was one."""
    found = False
    for m in _LINKSTATE_RE.finditer(line):
        put(m.group("nic"), "link_up", m.group("state") == "up", m.group(0))
        if m.group("state") == "down":
            put(m.group("nic"), "link_speed_mbps", None, m.group(0))
        found = True
    for m in _TAKEN_DOWN_RE.finditer(line):
        put(m.group("nic"), "admin_up", False, m.group(0))
        found = True
    for m in _BE2NET_LINK_RE.finditer(line):
        up = m.group("state") == "Up"
        speed = _LINK_SPEED_RE.search(m.group("tail")) if up else None
        duplex = _DUPLEX_RE.search(m.group("tail")) if up else None
        evidence = m.group(0).strip()
        put(m.group("nic"), "link_up", up, evidence)
        put(m.group("nic"), "link_speed_mbps",
            int(speed.group("n")) * (1000 if speed.group("unit").upper() == "G" else 1) if speed else None, evidence)
        put(m.group("nic"), "duplex", duplex.group("d").lower() if duplex else None, evidence)
        found = True
    for m in _LINK_RE.finditer(line):
        pci = norm_pci(m.group("pci")) if m.group("pci") else None
        key = m.group("nic") or (f"pci:{pci}" if pci else None)
        if key is None:
            continue  # a placeholder (vmnicX) or nothing that names the port
        evidence = m.group(0).strip()
        if m.group("nic") and pci:
            names[pci] = (m.group("nic"), evidence)
        up = m.group("state").lower() == "up"
        speed = _LINK_SPEED_RE.search(m.group("tail")) if up else None
        duplex = _DUPLEX_RE.search(m.group("tail")) if up else None
        put(key, "link_up", up, evidence)
        put(key, "link_speed_mbps",
            int(speed.group("n")) * (1000 if speed.group("unit").upper() == "G" else 1) if speed else None, evidence)
        put(key, "duplex", duplex.group("d").lower() if duplex else None, evidence)
        found = True
    return found


@register(
    r"^(?:(?:bundle file|z?[ef]?grep|cat|tail|head|less|more|zcat)\b[^|]*?\s)?\S*(?:vmkernel|vobd)(?:\.\d+)?\.log\b",
    "vmkernel.log",
)
def parse_vmkernel_log(text: str, cmd: CommandLine) -> ParseResult:
    """Read NIC facts from vmkernel.log lines (see the module docstring for the messages understood).

    Returns pNIC facts keyed by vmnic (when the log maps the PCI address to it) or ``"pci:<address>"``;
    MSI-X allocations, ixgben ITR register values and device-less ITR lines go to ``records``.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="vmkernel.log")
    facts: dict[str, dict[str, tuple[Any, str]]] = {}
    pci_to_nic: dict[str, tuple[str, str]] = {}
    unkeyed = 0

    def put(key: str, field: str, value: Any, line: str) -> None:
        facts.setdefault(key, {})[field] = (value, line)  # later lines win: the log is a history

    lines = text.splitlines()
    storage = 0
    for idx, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        if _STORAGE_DRIVERS_RE.search(line) or (_VMHBA_RE.search(line) and not _NIC_RE.search(line)):
            storage += 1  # an FCoE/iSCSI/FC function of a converged adapter: not a NIC fact
            continue
        pm = _PCI_ANY_RE.search(line)
        pci = norm_pci(pm.group("pci")) if pm else None
        dm = _DRV_RE.search(line)
        driver = dm.group("drv") if dm else None

        if _link_events(line, put, pci_to_nic):
            continue
        m = _MSIX_RE.search(line)
        if m:
            result.records.append({"kind": "interrupts", "pci": norm_pci(m.group("pci")),
                                   "type": m.group("kind").upper(), "vectors": int(m.group("n")), "line": line})
            continue
        m = _START_IO_RE.search(line)
        if m:
            pci_to_nic[norm_pci(m.group("pci")) or ""] = (m.group("nic"), line)
            continue
        m = _UPLINK_RXQ_RE.search(line)
        if m:
            put(m.group("nic"), "rx_queues", int(m.group("acc")), line)
            continue
        m = _ICEN_ENS_ITR_RE.search(line)
        if m and pci:
            key = f"pci:{pci}"
            put(key, "coalesce_rx_usecs", int(m.group("rx")), line)
            put(key, "coalesce_tx_usecs", int(m.group("tx")), line)
            put(key, "coalesce_adaptive_rx", m.group("rmode").lower() == "dynamic", line)
            put(key, "ens_enabled", True, line)
            continue
        m = _ICEN_ITR_RE.search(line)
        if m and pci:
            key = f"pci:{pci}"
            put(key, "coalesce_rx_usecs", int(m.group("v")), line)
            put(key, "coalesce_tx_usecs", int(m.group("v")), line)
            put(key, "coalesce_adaptive_rx", m.group("mode").lower() == "dynamic", line)
            continue
        m = _DIR_ITR_RE.search(line)
        if m:
            usecs = int(m.group("v"))
            direction = m.group("dir").lower()
            if pci:
                put(f"pci:{pci}", f"coalesce_{direction}_usecs", usecs, line)
            else:
                unkeyed += 1
                result.records.append({"kind": "itr", "driver": driver, "direction": direction,
                                       "usecs": usecs, "line": line})
            continue
        m = _ENS_MODE_RE.search(line)
        if m:
            key = f"pci:{pci}" if pci else None
            nm = _NIC_RE.search(line)
            key = key or (nm.group("nic") if nm else None)
            mode = "ens_interrupt" if m.group("intr") else "ens"
            if key:
                put(key, "ens_enabled", True, line)
                put(key, "ens_mode", mode, line)
            else:
                unkeyed += 1
                result.records.append({"kind": "ens mode", "driver": driver, "ens_mode": mode, "line": line})
            continue
        m = _NUMQ_RE.search(line)
        if m:
            put(f"pci:{norm_pci(m.group('pci'))}", f"{m.group('dir')}_queues", int(m.group("n")), line)
            continue
        m = _MAXQ_RE.search(line)
        if m:
            key = f"pci:{norm_pci(m.group('pci'))}"
            put(key, "tx_queues", int(m.group("tx")), line)
            put(key, "rx_queues", int(m.group("rx")), line)
            put(key, "rss", int(m.group("rss")) > 0, line)
            continue
        m = _REG_RSS_RE.search(line)
        if m:
            put(f"pci:{norm_pci(m.group('pci'))}", "rss", True, line)
            continue
        m = _MTU_RE.search(line)
        if m:
            nm = _NIC_RE.search(line)
            key = f"pci:{pci}" if pci else (nm.group("nic") if nm else None)
            if key:
                put(key, "mtu", int(m.group("new")), line)
            else:
                unkeyed += 1
                result.records.append({"kind": "mtu change", "driver": driver, "mtu": int(m.group("new")),
                                       "line": line})
            continue
        m = _IXGBEN_ITR_RE.search(line)
        if m:
            result.records.append({"kind": "itr register", "driver": driver, "pci": norm_pci(m.group("pci")),
                                   "rxITR": int(m.group("rx")), "txITR": int(m.group("tx")), "line": line})
            continue
        m = _VECTORS_RE.search(line)
        if m:
            result.records.append({"kind": "interrupt vectors", "driver": driver, "pci": norm_pci(m.group("pci")),
                                   "vectors": int(m.group("n")), "line": line})
            continue

    # Re-key PCI-addressed facts to the vmnic the log names for that address.
    for pci, (nic, line) in pci_to_nic.items():
        result.pnic(nic, "pci_address", pci, line)
        result.records.append({"kind": "pci to vmnic", "pci": pci, "nic": nic, "line": line})
    for key, fields in facts.items():
        target = key
        if key.startswith("pci:") and key[4:] in pci_to_nic:
            target = pci_to_nic[key[4:]][0]
        for field, (value, line) in fields.items():
            result.pnic(target, field, value, line)
    if unkeyed:
        result.notes.append(f"{unkeyed} vmkernel.log line(s) name no vmnic or PCI address; kept in records only")
    if not result.understood:
        result.notes.append("no NIC driver message understood in this vmkernel.log text")
    if storage:
        result.records.append({"kind": "storage adapter lines", "lines": storage})
    return result
