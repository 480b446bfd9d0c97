"""The words a board member meets in the report, explained once at its end (PDF and HTML), each with the source
that defines it (a reference document section, :mod:`nicadvisor.model.references`)."""
from __future__ import annotations

#: ``(term, meaning, source)``, in the order a reader meets them.
GLOSSARY: tuple[tuple[str, str, str], ...] = (
    ("pNIC / vmnic", "A physical network port of a host; ESXi names them vmnic0, vmnic1, …. The audit rates each "
                     "one that may carry the overlay.", ""),
    ("vmknic (vmk)", "A VMkernel network interface of an ESXi host (vmk0, vmk10): management, vMotion, storage or, "
                     "in NSX, a TEP.", ""),
    ("TEP", "Tunnel endpoint: the vmknic of a host that sends and receives the Geneve-encapsulated overlay traffic. "
            "One TEP per uplink (multi-TEP) lets a host use each uplink's bandwidth.",
     "nsx-t-performance-on-intel.txt §Single TEP vs Dual TEP"),
    ("Geneve", "Generic Network Virtualization Encapsulation, the overlay encapsulation of NSX: every VM frame "
               "travels inside a UDP packet with at least 50 bytes of extra headers, so the fabric's MTU must be "
               "larger than the VMs' (1600 at least, 1700 recommended, 9000 best).",
     "nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput"),
    ("MTU", "Maximum transmission unit: the largest frame an interface, switch or physical port passes, in bytes. "
            "Every hop of the overlay's path must carry the Geneve frame.", ""),
    ("Geneve offload", "A NIC that segments (TSO) and checksums Geneve-encapsulated traffic in hardware; without it "
                       "the host's CPU does it.",
     "nsx-t-performance-on-intel.txt §1.2 NIC Supportability with TSO for Geneve Overlay Traffic"),
    ("Rx filter", "Geneve Rx filter: a NIC that sorts received Geneve packets into receive queues by their inner "
                  "headers, so that the flows between two TEPs spread over several queues and cores.",
     "nsx-t-performance-on-intel.txt §1.4.4 RSS and Rx Filters - Comparison"),
    ("RSS", "Receive side scaling: the NIC hashes received packets over several queues, each processed by its own "
            "core; without it (or Rx filters) a host receives the overlay on one core.",
     "nsx-t-performance-on-intel.txt §1.4 Benefits with RSS"),
    ("NetQueue", "The ESXi mechanism that gives receive queues of a NIC to different VMs or flows; RSS works inside "
                 "it.", ""),
    ("ENS / EDP", "Enhanced Network Stack, also Enhanced Data Path: a host switch mode of NSX for NFV and high packet "
                  "rate workloads (poll or interrupt mode), which needs NICs and drivers listed for it and dedicated "
                  "pNICs.", "nsx-t-performance-on-intel.txt §1.12 N-VDS Enhanced Data Path"),
    ("VDS / N-VDS", "vSphere Distributed Switch (managed in vCenter) / the NSX-managed host switch; a standard "
                    "vSwitch is managed on each host.", ""),
    ("Uplink profile", "The NSX profile of a host switch: teaming, transport VLAN and MTU of its uplinks (the MTU of "
                       "an N-VDS; a VDS takes its MTU from vCenter).", ""),
    ("VCG", "VMware Compatibility Guide (now the Broadcom Compatibility Guide): which device, driver and firmware are "
            "supported on an ESXi release, with features such as Geneve offload, Rx filters and ENS.",
     "nsx-t-performance-on-intel.txt §1.3.1 VMware's IO Compatibility Guide"),
    ("TCP_STREAM / TCP_RR", "netperf tests: bulk throughput in Gbit/s, and request/response transactions per second "
                            "(whose inverse is the round-trip latency in µs).", ""),
)
