"""What READY needs, in the board's report (issue 16 §1-§3 inside issue 19's report): the table of decisive checks
is the legend, said once, each document cited by number with its title, version and address; each host page opens
with the decisive checks not made on it and its "Finish this audit" block, which survives the grouping of alike
hosts; the ESXi release is on every host row and page; the switch ports are said once per host page. On the demo
lab (real recorded outputs) and fleets made of it."""
from __future__ import annotations

import re
import subprocess

import pytest

from nicadvisor.model.readiness import DECISIVE_CHECKS
from nicadvisor.report.html_export import to_html
from nicadvisor.report.pdf import write_pdf
from nicadvisor.services.audit import AuditRequest, run_audit


@pytest.fixture(scope="module")
def demo():
    return run_audit(AuditRequest(demo=True))


@pytest.fixture(scope="module")
def pdf(demo, tmp_path_factory):
    return write_pdf(demo, tmp_path_factory.mktemp("readiness") / "demo.pdf")


def _pdftotext(pdf, mode: str) -> str:
    return subprocess.run(["pdftotext", mode, str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def layout(pdf):
    """The page as laid out (a table's cells side by side: counts and lines)."""
    return _pdftotext(pdf, "-layout")


@pytest.fixture(scope="module")
def raw(pdf):
    """The text in drawing order (a table cell's lines together: its words)."""
    return _pdftotext(pdf, "-raw")


@pytest.fixture(scope="module")
def html(demo):
    return to_html(demo)


def _flat(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


def _html_text(html: str) -> str:
    return _flat(re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " "))


def test_the_legend_is_the_table_of_decisive_checks_once_citing_documents_by_number(layout, raw, html):
    assert _flat(layout).count("What READY needs: the decisive checks") == 1
    flat = _flat(raw)
    legend = flat[flat.index("What READY needs: the decisive checks"):flat.index("Remediation plan")]
    for check in DECISIVE_CHECKS:
        assert check.title in legend and check.why in legend
    # the white paper behind every check is reference [1] (the legend cites first), by section, never its file name
    assert "[1] §NIC Port Speed" in legend and "nsx-t-performance-on-intel.txt" not in flat
    refs = flat[flat.index("Appendix: references"):]
    assert "[1] VMware NSX-T Data Center: Performance considerations on Intel platforms. white paper, 2020" in refs
    # how to use a Finish block, said once for every host page
    assert flat.count("Run them on the host (ESXi Shell or SSH") == 1

    text = _html_text(html)
    assert text.count("What READY needs: the decisive checks") == 1
    assert '<a href="#ref-1">[1]</a> §NIC Port Speed' in html and 'id="ref-1"' in html
    assert "nsx-t-performance-on-intel.txt" not in html
    assert text.count("Run them on the host (ESXi Shell or SSH") == 1
