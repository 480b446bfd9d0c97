"""Fact names are declared once, as the fields of the model's dataclasses: every fact any parser reads from any real
output the project holds is one of them, and assembling a fact the model lacks is a loud programming error, never a
silently dropped value."""
from __future__ import annotations

import dataclasses

import pytest

from capturetools import CAPTURES, real_outputs
from nicadvisor.collect.sources import read_capture
from nicadvisor.model import Host, KernelModule, PhysicalNic, Switch, VmkernelNic
from nicadvisor.parsers.api import vsphere_objects
from nicadvisor.parsers.assemble import HostInputs, UnknownFactError, assemble_host
from nicadvisor.parsers.base import ParseResult
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.parsers.registry import parse_output

FIELDS = {table: {f.name for f in dataclasses.fields(cls)} - {"evidence"}
          for table, cls in (("pnics", PhysicalNic), ("vmknics", VmkernelNic), ("switches", Switch),
                             ("modules", KernelModule), ("host", Host))}


def unknown_names(r: ParseResult) -> set[tuple[str, str]]:
    """``(table, name)`` of every fact in ``r`` the model has no field for."""
    out = {("host", n) for n in r.host if n not in FIELDS["host"]}
    for table in ("pnics", "vmknics", "switches", "modules"):
        out |= {(table, n) for facts in getattr(r, table).values() for n in facts if n not in FIELDS[table]}
    return out


def test_every_fact_read_from_every_real_output_is_a_model_field():
    outputs = list(real_outputs())
    assert len(outputs) > 100
    facts = 0
    for name, command, text, notes in outputs:
        for r in parse_output(command, text, notes):
            assert unknown_names(r) == set(), f"{name}: {r.family}"
            facts += sum(len(f) for t in (r.pnics, r.vmknics, r.switches, r.modules) for f in t.values())
    assert facts > 1000


def test_the_vsphere_objects_of_the_real_govc_dumps_give_model_fields_only():
    from godump import read_structs

    (pnics,) = read_structs(read_capture(CAPTURES / "esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt").text)
    pci = read_structs(read_capture(CAPTURES / "esxi_api_govc_dump_pcidevice_vmxnet3.txt").text)
    r = vsphere_objects.host_facts({"name": "esx", "config.network.pnic": pnics, "hardware.pciDevice": pci})
    assert r.pnics["vmnic0"] and unknown_names(r) == set()


def test_assembling_a_fact_the_model_lacks_is_an_error_naming_it():
    cap = read_capture(CAPTURES / "esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt")
    (result,) = parse_output(cap.command, cap.text)
    line = next(iter(result.pnics["vmnic0"].values())).line
    result.pnic("vmnic0", "geneve_ofload", True, line)  # a misspelt fact name, as a parser bug would record it
    inputs = HostInputs(name="esx", parsed=[(Capture(source="s", command=cap.command, text=cap.text), result)])
    with pytest.raises(UnknownFactError, match=r"PhysicalNic has no fact 'geneve_ofload' \(read from 'esxcfg-nics"):
        assemble_host(inputs)
