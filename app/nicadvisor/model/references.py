"""The documents NIC Advisor cites, as a reviewer opens them: title, version, publisher and address.

A finding's ``references`` hold internal keys — ``"nsx-t-performance-on-intel.txt §1.4 Benefits with RSS"`` (a
reference document of the project's ``shared/reference`` folder and its section), a URL, ``"vendor: A ; B"`` (the
sources of a compatibility-database entry) or ``"compatibility guide (imported): …"``. :func:`cite` turns each into
:class:`Citation` s of a :class:`Reference`; the reports print those and never the internal file names.

Every address below was found in public material (the search tools of the project): the Broadcom knowledge base
and developer portal, VMware documentation, the blog posts and the Cisco white paper themselves. The NSX-T on Intel
white paper has none that could be confirmed; its entry says so.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True)
class Reference:
    """One document. ``key`` is the internal id (a reference file name or a URL); ``url`` None when no public
    address is known (``note`` then says so)."""

    key: str
    title: str
    version: str = ""
    publisher: str = ""
    url: str | None = None
    note: str = ""

    def text(self) -> str:
        """``"Title. Version. Publisher."`` (the parts there are), without the address."""
        return " ".join(part if part[-1] in ".?!" else f"{part}." for part in (self.title, self.version, self.publisher)
                        if part)


@dataclass(frozen=True)
class Citation:
    """A :class:`Reference` and the section of it a finding stands on (``""`` for the whole document)."""

    reference: Reference
    section: str = ""

    def to_dict(self) -> dict[str, str | None]:
        """``{"id", "title", "version", "publisher", "section", "url"}`` (the JSON ``citations``)."""
        r = self.reference
        return {"id": r.key, "title": r.title, "version": r.version, "publisher": r.publisher,
                "section": self.section, "url": r.url}

    def text(self) -> str:
        """``"Title. Version. Publisher. §section. URL"``: the whole citation on one line (the CSV)."""
        parts = [self.reference.text()]
        if self.section:
            parts.append(f"§{self.section}")
        parts.append(self.reference.url or self.reference.note)
        return " ".join(p for p in parts if p)


#: The reference documents of ``shared/reference`` by file name (rules cite ``"<file> §<section>"``).
DOCUMENTS: dict[str, Reference] = {r.key: r for r in (
    Reference("nsx-t-performance-on-intel.txt",
              "VMware NSX-T Data Center: Performance considerations on Intel platforms",
              "white paper, 2020 (NSX-T 3.0)", "VMware (Samuel Kommu; foreword by Bruce Davie)", None,
              "no public address of this white paper could be confirmed: ask VMware (Broadcom) for it by its title"),
    Reference("vds-ipfix-impact-nsxv.txt", "VDS IPFIX performance with NSX-V and vRNI",
              "Broadcom KB 314383 (NSX-V 6.4.5, ESXi 6.5 U3+ / 6.7 U2+)", "Broadcom (VMware)",
              "https://knowledge.broadcom.com/external/article/314383/vds-ipfix-performance-with-nsxv-and-vrni.html"),
    Reference("nsx-latency-part1-dfw.txt", "How much latency does NSX add? [Part 1 – DFW]",
              "blog post (NSX for vSphere, vSphere 6.0 U1)", "nsxperts.com", "http://nsxperts.com/?p=100"),
    Reference("nsx-latency-part2-vxlan-dlr.txt",
              "How much latency does NSX add? [Part 2 – VXLAN & Distributed Logical Routers]",
              "blog post (NSX for vSphere, vSphere 6.0 U2)", "nsxperts.com", "http://nsxperts.com/?p=157"),
    Reference("vmfex-vs-vswitch-netperf.txt",
              "Cisco Data Center Virtual Machine Fabric Extender (VM-FEX) Versus VMware vSwitch: Performance Comparison",
              "white paper C11-727581-00, April 2013", "Cisco",
              "https://www.cisco.com/c/en/us/solutions/collateral/borderless-networks/advanced-services/"
              "whitepaper_c11-727581.html"),
)}

#: Vendor pages by address (rules cite the URL; compatibility-database entries name it in their sources).
PAGES: dict[str, Reference] = {r.key: r for r in (
    Reference("https://knowledge.broadcom.com/external/article?legacyId=1003728",
              "Testing VMkernel network connectivity with the vmkping command", "Broadcom KB 344313 (VMware KB 1003728)",
              "Broadcom (VMware)", "https://knowledge.broadcom.com/external/article?legacyId=1003728"),
    Reference("https://knowledge.broadcom.com/external/article?legacyId=52044",
              "Network I/O performance regression after migrating from bnx2x driver to qfle3 driver",
              "VMware KB 52044 (ESXi 6.5 → 6.7)", "Broadcom (VMware)",
              "https://knowledge.broadcom.com/external/article?legacyId=52044"),
    Reference("https://developer.broadcom.com/xapis/esxcli-command-reference/latest/namespace/esxcli_network.html",
              "ESXCLI command reference: esxcli network", "latest", "Broadcom developer portal",
              "https://developer.broadcom.com/xapis/esxcli-command-reference/latest/namespace/esxcli_network.html"),
    Reference("https://developer.broadcom.com/powercli/latest/vmware.vimautomation.core/commands/set-virtualswitch",
              "VMware PowerCLI reference: Set-VirtualSwitch", "latest", "Broadcom developer portal",
              "https://developer.broadcom.com/powercli/latest/vmware.vimautomation.core/commands/set-virtualswitch"),
    Reference("https://developer.broadcom.com/powercli/latest/vmware.vimautomation.vds/commands/set-vdswitch",
              "VMware PowerCLI reference: Set-VDSwitch", "latest", "Broadcom developer portal",
              "https://developer.broadcom.com/powercli/latest/vmware.vimautomation.vds/commands/set-vdswitch"),
    Reference("https://docs.vmware.com/en/VMware-NSX/4.1/installation/GUID-50FDFDFB-F660-4269-9503-39AE2BBA95B4.html",
              "NSX Installation Guide: Create an Uplink Profile", "NSX 4.1", "VMware",
              "https://docs.vmware.com/en/VMware-NSX/4.1/installation/GUID-50FDFDFB-F660-4269-9503-39AE2BBA95B4.html"),
    Reference("https://docs.vmware.com/en/VMware-NSX/4.1/installation/GUID-37BC3CEF-DCC1-4C6F-960D-CFBB31908D1C.html",
              "NSX Installation Guide: Add a Transport Node Profile", "NSX 4.1", "VMware",
              "https://docs.vmware.com/en/VMware-NSX/4.1/installation/GUID-37BC3CEF-DCC1-4C6F-960D-CFBB31908D1C.html"),
    Reference("https://developer.broadcom.com/xapis/nsx-t-data-center-rest-api/4.0.0/method_PatchPolicyHostSwitchProfile"
              ".html", "NSX REST API: PATCH /policy/api/v1/infra/host-switch-profiles/{host-switch-profile-id}",
              "NSX 4.0.0", "Broadcom developer portal",
              "https://developer.broadcom.com/xapis/nsx-t-data-center-rest-api/4.0.0/method_PatchPolicyHostSwitchProfile"
              ".html"),
    Reference("https://blogs.vmware.com/vsphere/2019/04/what-is-the-impact-of-the-vmklinux-driver-stack-deprecation.html",
              "What is the Impact of the VMKlinux Driver Stack Deprecation?", "vSphere blog, April 2019", "VMware",
              "https://blogs.vmware.com/vsphere/2019/04/what-is-the-impact-of-the-vmklinux-driver-stack-deprecation.html"),
    Reference("https://knowledge.broadcom.com/external/article/337860/faq-ipfix-in-vrealize-network-insight.html",
              "FAQ: IPFIX in vRealize Network Insight", "Broadcom KB 337860", "Broadcom (VMware)",
              "https://knowledge.broadcom.com/external/article/337860/faq-ipfix-in-vrealize-network-insight.html"),
    Reference("https://williamlam.com/2013/11/esxi-55-introduces-new-native-device.html",
              "ESXi 5.5 introduces a new Native Device Driver Architecture Part 2", "November 2013",
              "William Lam (VMware)", "https://williamlam.com/2013/11/esxi-55-introduces-new-native-device.html"),
    Reference("https://docs.vmware.com/en/VMware-NSX/4.1/administration/GUID-A8C5BF37-2BC6-4F78-9464-EA952981876A.html",
              "NSX Administration Guide: Configure NetQ Receive Side Scaling (Enhanced Data Path)", "NSX 4.1", "VMware",
              "https://docs.vmware.com/en/VMware-NSX/4.1/administration/GUID-A8C5BF37-2BC6-4F78-9464-EA952981876A.html"),
)}

#: ``/usr/share/misc/pci.ids (v2023.04.10)`` in a source list: the PCI ID repository.
_PCI_IDS = re.compile(r"^/usr/share/misc/pci\.ids(?: \(v([\d.]+)\))?$")
_URL = re.compile(r"https?://\S+")
_NVIDIA = re.compile(r"^https://docs\.nvidia\.com/networking/display/([^/]+)/([^/]+)$")


def reference_of(key: str) -> Reference:
    """The :class:`Reference` of one source: a reference document's file name, a URL (a known page, else titled
    from its address), the PCI ID list, or any other text as its own title (an imported guide, a repository path).
    A text that holds an address is that address's document: one address carries one title everywhere, and the
    words around it are the citation's section (:func:`cite`)."""
    key = key.strip()
    if key in DOCUMENTS:
        return DOCUMENTS[key]
    if key in PAGES:
        return PAGES[key]
    m = _PCI_IDS.match(key)
    if m:
        return Reference(key, "The PCI ID Repository (pci.ids)", f"v{m.group(1)}" if m.group(1) else "",
                         "pci-ids.ucw.cz", "https://pci-ids.ucw.cz/")
    found = _URL.search(key)
    if found and found.group() != key:  # "VMware KB 2143832 https://kb… as transcribed": the address's document
        return reference_of(found.group().rstrip(".,;)"))
    url = _URL.match(key)
    nvidia = _NVIDIA.match(key)
    if nvidia:  # docs.nvidia.com/networking/display/<space>/<page>: the space names the manual and its version
        return Reference(key, f"NVIDIA networking documentation {unquote(nvidia.group(1))}: "
                              f"{unquote(nvidia.group(2)).replace('+', ' ')}", "", "NVIDIA", key)
    if url and url.group() == key:
        parts = urlsplit(key)
        tail = unquote(parts.path.rstrip("/").rsplit("/", 1)[-1]).replace("+", " ") or parts.netloc
        return Reference(key, f"{tail} ({parts.netloc})", "", "", key)
    return Reference(key, key)


def _words_around(key: str) -> str:
    """The words of a source text around its address (``VMware KB 2143832 https://kb… as transcribed`` → ``VMware
    KB 2143832 as transcribed``), or ``""`` when the text is the address alone or holds none."""
    found = _URL.search(key)
    if not found or found.group() == key.strip():
        return ""
    return " ".join((key[:found.start()] + key[found.end():]).split()).strip(" ,;()")


def cite(reference: str) -> list[Citation]:
    """The citations of one entry of ``Finding.references``: ``"<file> §<section>"`` → that document and section;
    ``"vendor: A ; B"`` → one citation per source; a source text holding an address → that address's document, its
    other words the section; ``"compatibility guide (imported): …"`` and any other text → one citation titled by
    it."""
    if reference.startswith("vendor: "):
        return [Citation(reference_of(part), _words_around(part))
                for part in reference.removeprefix("vendor: ").split(" ; ") if part.strip()]
    doc, sep, section = reference.partition(" §")
    if sep and doc.strip() in DOCUMENTS:
        return [Citation(DOCUMENTS[doc.strip()], section.strip())]
    return [Citation(reference_of(reference), _words_around(reference))]


def citations(references: tuple[str, ...] | list[str]) -> list[Citation]:
    """:func:`cite` of every entry, duplicates removed, order kept."""
    return list(dict.fromkeys(c for r in references for c in cite(r)))
