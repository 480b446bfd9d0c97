"""Hostile review (parsers): four patterns rescanned the rest of a line from every start position, so one pasted
line of a few hundred kilobytes took minutes (``ethtool -k`` feature keys, ``lspci -vv`` flattened-key split and
``LnkCap`` reads, vsish ``Cap`` block heads, vmkernel.log ``config.intr``). Each now costs bounded work per
position. The uplink table readers tried every line as a header and as a header-less row, about 60 µs a line.
A child process parses a 2 MB adversarial line (or 2 million short lines) with each and must finish within the
hostile-input bound (60 s of CPU time, as childtools.py gives every hostile child: a busy machine slows the child's
wall clock, not the work it does; the wall clock only guards against a hang); at the old cost each took minutes to
hours."""
from __future__ import annotations

import subprocess
import sys

import pytest
from childtools import HANG_SECONDS, LIMIT_SECONDS

CASES = {
    "ethtool -k, one long word": 'linux_ethtool.parse_ethtool_k("a" * N, C.parse("ethtool -k eth0"))',
    "ethtool -k, many short words": 'linux_ethtool.parse_ethtool_k("a " * (N // 2), C.parse("ethtool -k eth0"))',
    "lspci -vv, a whitespace run": 'linux_pci.parse_lspci_vv(" " * N + "x", C.parse("lspci -vv"))',
    "lspci -vv, repeated LnkCap": 'linux_pci.parse_lspci_vv("LnkCap:" * (N // 7), C.parse("lspci -vv -s 0000:01:00.0"))',
    "vsish properties, repeated Cap": ('vsish.parse_properties("Cap " * (N // 4) + "-:", '
                                       'C.parse("vsish -e get /net/pNics/vmnic0/properties"))'),
    "vmkernel.log, repeated config.intr": ('vmkernel_log.parse_vmkernel_log("0000:af:00.0: config.intr: " * (N // 28), '
                                           'C.parse("cat /var/log/vmkernel.log"))'),
    # a table reader tried every line as a header and as a header-less row (about 60 µs each): 2 million short
    # lines took over two minutes; a cheap header test and a cap on header-less tries keep it to a few µs a line
    "esxcli network nic list, 2 million name-like lines": 'parse_output("esxcli network nic list", "vmnic1\\n" * N)',
    "esxcfg-nics -l, 2 million short lines": 'parse_output("esxcfg-nics -l", "a\\n" * N)',
    # issue 20 §3: a pNIC name, a run of spaces and a word: each reader tried every split of the spaces between a
    # name and what follows (20,000 spaces already cost 0.6–1.9 s)
    "privstats, a name and 2 million spaces": ('parse_output("localcli --plugin-dir /usr/lib/vmware/esxcli/int '
                                               'networkinternal nic privstats get -n vmnic0", "vmnic0" + " " * N + "x")'),
    "vsish properties, a name and 2 million spaces": ('parse_output("vsish -e get /net/pNics/vmnic0/properties", '
                                                      '"vmnic0" + " " * N + "x")'),
    "ens fpo stats, a name and 2 million spaces": ('parse_output("nsxdp-cli ens fpo stats get --uplink vmnic0", '
                                                   '"vmnic0" + " " * N + "x")'),
    # the framing pre-pass (issue 16 §5): quotes as deep as lines are long, notes after notes inside one open
    # quote, inline-code spans stuck together, a blank line after every line, Markdown escapes
    "framing, deep quotes": 'parse_output("esxcfg-nics -l", (">" * 1000 + "\\n") * (N // 1000))',
    "framing, notes in an open quote": 'parse_output("ethtool -i eth0", "driver: \\"x" + " # y (note z)" * (N // 14))',
    "framing, stuck inline code": 'parse_output("ethtool -i eth0", "`a``b" * (N // 5))',
    "framing, blank line after every line": 'parse_output("esxcfg-nics -l", "a\\n\\n" * (N // 2))',
    "framing, Markdown escapes": 'parse_output("esxcfg-nics -l", "\\\\_a" * (N // 3))',
    # an author's note is looked for after a run of blanks: a search that restarted at every blank of the run was
    # quadratic (80,000 blanks took 9 s)
    "framing, a value and 2 million blanks before no note": 'parse_output("ethtool -i eth0", "driver: x" + " " * N + "(")',
    "framing, a value and 2 million blanks before no comment": 'parse_output("ethtool -i eth0", "driver: x" + " " * N + "#")',
    # the readers added with the PCIe link on ESXi: vsish pciConfigHeader's "Numa node" pattern let ``^\s*`` run over
    # every following newline from every line start (80,000 blank lines took 15 s); the others held
    "vsish pciConfigHeader, 2 million blank lines": ('parse_output("vsish -e get /hardware/pci/seg/0/bus/4/slot/0/'
                                                     'func/0/pciConfigHeader", "\\n" * N)'),
    "vsish pciConfigHeader, 2 million spaces": ('parse_output("vsish -e get /hardware/pci/seg/0/bus/4/slot/0/func/0/'
                                                'pciConfigHeader", " " * N + "Numa node:x")'),
    "lspci -d, a header and 2 million spaces": 'parse_output("lspci -d", "0000:04:00.0" + " " * N + "x")',
    "lspci -d, 2 million hex rows' bytes": ('parse_output("lspci -d", "0000:04:00.0 x\\n" + '
                                            '"00: 02 00 10 00 00 00 00 00 00 00 00 02 00 00 00 00\\n" * (N // 48))'),
    "lspci -xxx, an offset and 2 million spaces": 'parse_output("lspci -xxx", "00:" + " " * N + "x")',
    "smbiosDump, a designation and 2 million spaces": ('parse_output("smbiosDump", "System Slot (Type 9): #1\\n'
                                                       '  Designation:" + " " * N + "x")'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_adversarial_text_is_parsed_in_bounded_time(case):
    code = ("import resource\n"
            f"resource.setrlimit(resource.RLIMIT_CPU, ({LIMIT_SECONDS}, {LIMIT_SECONDS}))\n"
            "from nicadvisor.parsers.esxi import vmkernel_log, vsish\n"
            "from nicadvisor.parsers.linux import ethtool as linux_ethtool, pci as linux_pci\n"
            "from nicadvisor.parsers.base import CommandLine as C\n"
            "from nicadvisor.parsers.registry import parse_output\n"
            f"N = 2_000_000\nr = {CASES[case]}\nprint('parsed', len(r if isinstance(r, list) else r.notes))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_SECONDS,
                         check=False)
    assert run.returncode == 0 and run.stdout.startswith("parsed"), run.stderr[-2000:]
