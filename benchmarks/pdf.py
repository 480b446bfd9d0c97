"""How long the PDF tuning checklist (and the HTML page) takes for large estates, against the targets of the
issue "A report a change board signs": 50 hosts in under 2 s and 500 hosts in under 20 s.

The estate is the bundled demo lab (ten hosts of real captures) repeated under new host names (``lab03-esxi-…``)
until it has N hosts; the rules run on it as in an audit. Prints, per size, the seconds taken, the target and the
ratio seconds / target (below 1.0 meets the target). Not a pass/fail gate.

    python benchmarks/pdf.py            # 50 and 500 hosts
    python benchmarks/pdf.py --smoke    # 10 hosts once (CI smoke run)
"""
from __future__ import annotations

import argparse
import copy
import tempfile
import time
from pathlib import Path

from nicadvisor.model import Audit
from nicadvisor.report.html_export import write_html
from nicadvisor.report.pdf import write_pdf
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit

TARGETS = {50: 2.0, 500: 20.0}


def estate(n: int, base: Audit) -> Audit:
    """An audit of ``n`` hosts: copies of the demo lab's hosts under numbered names, rules evaluated."""
    hosts = []
    for i in range(n):
        host = copy.deepcopy(base.hosts[i % len(base.hosts)])
        host.name = f"lab{i // len(base.hosts):02d}-{host.name}"
        hosts.append(host)
    audit = Audit(hosts=hosts, inputs=list(base.inputs), created_at=base.created_at)
    audit.findings = evaluate_findings(hosts)
    return audit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="10 hosts once")
    args = parser.parse_args()
    base = run_audit(AuditRequest(demo=True))
    sizes = [10] if args.smoke else sorted(TARGETS)
    print(f"{'hosts':>6} {'PDF s':>8} {'HTML s':>8} {'pages':>6} {'target s':>9} {'PDF/target':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            audit = estate(n, base)
            start = time.perf_counter()
            pdf = write_pdf(audit, Path(tmp) / f"{n}.pdf")
            pdf_s = time.perf_counter() - start
            start = time.perf_counter()
            write_html(audit, Path(tmp) / f"{n}.html")
            html_s = time.perf_counter() - start
            pages = pdf.read_bytes().count(b"/Type /Page\n") or pdf.read_bytes().count(b"/Type /Page")
            target = TARGETS.get(n)
            ratio = f"{pdf_s / target:.2f}" if target else "—"
            print(f"{n:>6} {pdf_s:>8.2f} {html_s:>8.2f} {pages:>6} {target or '—':>9} {ratio:>11}")


if __name__ == "__main__":
    main()
