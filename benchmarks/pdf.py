"""Fleet reports: pages, seconds and peak memory of the PDF (and the HTML page) for 10, 100, 500 and 5,000 hosts,
against the targets of issue 19 §1 — 500 hosts of 10 configurations give a report no longer than 1.5× the demo's
pages, the time grows linearly with the hosts, and 5,000 hosts stay under 1 GB.

The estate is the bundled demo lab (ten hosts of real captures) repeated under new host names (``lab03-esxi-…``)
until it has N hosts — N/10 alike hosts per configuration, which the report shows as ten groups
(:mod:`nicadvisor.report.fleet`); the rules run on it as in an audit. Each size runs in a process of its own, so that
its peak resident memory (``ru_maxrss``: the estate, the rules, the verdict and both reports) is its own. Prints,
per size: pages, the PDF's pages over the demo's, seconds for the PDF and the HTML, seconds per host over the
10-host run's (1.0 is linear), and the peak memory. Not a pass/fail gate.

    python benchmarks/pdf.py                  # 10, 100, 500 and 5,000 hosts (about 10 minutes on 2 busy cores)
    python benchmarks/pdf.py --sizes 10 500   # chosen sizes
    python benchmarks/pdf.py --smoke          # 10 hosts once (CI smoke run)
"""
from __future__ import annotations

import argparse
import copy
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nicadvisor.model import Audit
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit

SIZES = (10, 100, 500, 5000)
#: The targets of issue 19 §1: pages over the demo's at 500 hosts, MB at 5,000 hosts.
PAGE_RATIO_TARGET, MEMORY_TARGET_MB = 1.5, 1024


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


def _pages(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(str(path)).pages)


def measure(n: int) -> dict[str, float]:
    """Build the ``n``-host estate and write its PDF and HTML; returns pages, seconds and this process's peak MB."""
    from nicadvisor.report.html_export import write_html
    from nicadvisor.report.pdf import write_pdf

    audit = estate(n, run_audit(AuditRequest(demo=True)))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        pdf = write_pdf(audit, Path(tmp) / "fleet.pdf")
        pdf_s = time.perf_counter() - start
        start = time.perf_counter()
        write_html(audit, Path(tmp) / "fleet.html")
        html_s = time.perf_counter() - start
        pages = _pages(pdf)
    return {"hosts": n, "pages": pages, "pdf_s": pdf_s, "html_s": html_s,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def demo_pages() -> int:
    """The pages of the demo lab's own report (the yardstick of the page target)."""
    from nicadvisor.report.pdf import write_pdf

    with tempfile.TemporaryDirectory() as tmp:
        return _pages(write_pdf(run_audit(AuditRequest(demo=True)), Path(tmp) / "demo.pdf"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="10 hosts once")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="host counts (default: %(default)s)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process measuring one size
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    sizes = [10] if args.smoke else args.sizes
    demo = demo_pages()
    print(f"demo lab: {demo} pages; targets: ≤ {PAGE_RATIO_TARGET}× its pages at 500 hosts, "
          f"< {MEMORY_TARGET_MB} MB at 5,000, seconds per host flat")
    print(f"{'hosts':>6} {'pages':>6} {'×demo':>6} {'PDF s':>8} {'HTML s':>8} {'s/host ×10':>11} {'peak MB':>8}")
    base = None
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        per_host = (row["pdf_s"] + row["html_s"]) / n
        base = base or per_host
        print(f"{n:>6} {row['pages']:>6} {row['pages'] / demo:>6.2f} {row['pdf_s']:>8.2f} {row['html_s']:>8.2f} "
              f"{per_host / base:>11.2f} {row['peak_mb']:>8.0f}")


if __name__ == "__main__":
    main()
