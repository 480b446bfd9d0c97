#!/usr/bin/env python3
"""How many capability cells the knowledge base decides: the demo lab with and without the driver catalogue.

For each overlay capability column (Geneve offload, Rx filter, RSS, ENS) and the Driver column, prints how many
physical pNICs' cells are decided (pass / warn / fail / n/a) rather than unknown: with the facts read on the hosts
only, and with the driver catalogue's decisions added (``nicadvisor.vcg.knowledge``), side by side with the gain.
Nothing is asserted (issue 8: "the share of decided cells rises measurably, printed in a benchmark").
Usage::

    python3 benchmarks/decided_cells.py            # demo lab and the shared fixture captures
    python3 benchmarks/decided_cells.py --smoke    # demo lab only
"""
from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))

from nicadvisor.model.capabilities import UNKNOWN, capability_matrix  # noqa: E402
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit  # noqa: E402
from nicadvisor.vcg.driver_catalogue import ORIGIN_LABEL  # noqa: E402

COLUMNS = ("geneve_offload", "rx_filter", "rss", "ens", "driver")


def _without_catalogue(hosts):
    """A copy of ``hosts`` with every fact the driver catalogue decided set back to unknown."""
    bare = copy.deepcopy(hosts)
    for host in bare:
        for p in host.pnics:
            for name, ev in list(p.evidence.items()):
                if ev.command == ORIGIN_LABEL:
                    setattr(p, name, None)
                    del p.evidence[name]
    return bare


def _decided(hosts) -> dict[str, tuple[int, int]]:
    findings = evaluate_findings(hosts)
    counts = {c: [0, 0] for c in COLUMNS}
    for host in hosts:
        for row in capability_matrix(host, findings):
            for c in COLUMNS:
                counts[c][1] += 1
                counts[c][0] += row.cells[c].status != UNKNOWN
    return {c: (d, n) for c, (d, n) in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="the demo lab only")
    args = parser.parse_args(argv)
    inputs = [("demo lab", AuditRequest(demo=True))]
    shared = ROOT.parent / "shared" / "fixtures" / "captures"
    if not args.smoke and shared.is_dir():
        inputs.append(("shared fixture captures", AuditRequest(capture_paths=(str(shared),))))
    for label, request in inputs:
        audit = run_audit(request)
        with_cat, without = _decided(audit.hosts), _decided(_without_catalogue(audit.hosts))
        print(f"== {label}: {len(audit.hosts)} hosts")
        print(f"{'column':<16}{'host facts only':>18}{'+ driver catalogue':>20}{'gain':>8}")
        for c in COLUMNS:
            (d0, n), (d1, _) = without[c], with_cat[c]
            share = (lambda d: f"{d}/{n} ({100 * d / n:.0f} %)" if n else "0/0")
            print(f"{c:<16}{share(d0):>18}{share(d1):>20}{d1 - d0:>+8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
