"""Test helpers: paths to the real captures in ../shared/fixtures and helpers to parse them."""
from __future__ import annotations

import os
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NICADVISOR_SHARED", REPO.parent / "shared"))
CAPTURES = SHARED / "fixtures" / "captures"
FIXTURES = SHARED / "fixtures"


def capture_path(name: str) -> Path:
    p = CAPTURES / name
    if not p.exists():
        raise FileNotFoundError(f"real capture {p} is missing: is ../shared beside the repository?")
    return p


#: A real capture that alone makes a READY host: a whole, unfiltered pNIC listing (link state and MTU of every uplink)
#: of a nested ESXi host, some of whose pNICs have a Geneve-sized MTU (the others only get conditional warnings).
READY_CAPTURE = "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt"


def ready_host(folder: Path, name: str = "esx-nested") -> Path:
    """A host folder ``folder/name`` holding :data:`READY_CAPTURE` (its host is READY on its own); returns it."""
    import shutil

    host = folder / name
    host.mkdir(parents=True, exist_ok=True)
    shutil.copy(capture_path(READY_CAPTURE), host / READY_CAPTURE)
    return host


def parse_capture(name: str):
    """Parse a real capture through the registry: returns list[ParseResult]."""
    from nicadvisor.collect.sources import read_capture
    from nicadvisor.parsers.registry import parse_output

    cap = read_capture(capture_path(name))
    return parse_output(cap.command, cap.text)


def merged(results):
    """Merge the ParseResults of one capture into dicts of plain values: (pnics, vmknics, switches, modules, host)."""
    out = ({}, {}, {}, {}, {})
    for r in results:
        for i, table in enumerate((r.pnics, r.vmknics, r.switches, r.modules)):
            for key, facts in table.items():
                d = out[i].setdefault(key, {})
                for k, f in facts.items():
                    d.setdefault(k, f.value)
        for k, f in r.host.items():
            out[4].setdefault(k, f.value)
    return out



def parsed_facts(command: str, text: str) -> dict:
    """Every fact the registry reads from ``text`` as ``command``, flat: ``{(kind, key, name): value}`` for pNICs,
    vmknics, switches and modules, ``{("host", name): value}`` for host facts (property tests compare these)."""
    from nicadvisor.parsers.registry import parse_output

    out = {}
    for r in parse_output(command, text):
        for kind, table in (("pnic", r.pnics), ("vmknic", r.vmknics), ("switch", r.switches), ("module", r.modules)):
            for key, facts in table.items():
                for name, fact in facts.items():
                    out[(kind, key, name)] = fact.value
        for name, fact in r.host.items():
            out[("host", name)] = fact.value
    return out
