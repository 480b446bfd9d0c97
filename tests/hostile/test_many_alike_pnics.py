"""Issue 29 §5: one host with 32 or more alike pNICs made the PDF fail (reportlab LayoutError: a table row — the
host's objects and evidence — taller than a page), and then no report was written at all (exit 3, no JSON or PDF).
Long table rows now split across pages, and each report is written on its own: one failure never costs the others
and is one sentence naming the report. The host: ``esxcfg-nics -l`` of 40 pNICs, the real row of a shared capture
renamed ``vmnicN`` (benchmarks/growth.py's ``rows`` shape)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def host40(rows_host) -> Path:
    return rows_host(40)


def test_forty_alike_pnics_give_a_whole_pdf_and_json(cli, host40, tmp_path):
    run = cli("audit", "--quiet", "--no-history", "--capture", host40, "--pdf", tmp_path / "r.pdf",
              "--json", tmp_path / "r.json")
    assert run.code == 1, run.err  # NOT READY (the row's MTU), not an internal error
    assert len(json.loads((tmp_path / "r.json").read_text())["hosts"][0]["pnics"]) == 40
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True,
                          check=True, timeout=120).stdout
    assert "vmnic39" in text and "vmnic0" in text


def test_a_report_that_fails_costs_only_itself(cli, host40, tmp_path):
    """The PDF library refuses the layout (the failure of before this fix, induced in the child): the JSON, CSV and
    HTML are still written, and the PDF's failure is one sentence naming it."""
    setup = ("from reportlab.platypus.doctemplate import LayoutError\n"
             "import nicadvisor.report.pdf as _pdf\n"
             "def _refuse(*a, **k):\n    raise LayoutError('Flowable <Table> too large on page 7')\n"
             "_pdf.build_story = _refuse\n")
    run = cli("audit", "--quiet", "--no-history", "--capture", host40, "--pdf", tmp_path / "r.pdf", "--json",
              tmp_path / "r.json", "--csv", tmp_path / "r.csv", "--html", tmp_path / "r.html", setup=setup)
    assert run.code == 3, run.err  # an internal error (never a verdict), once the other reports are written
    assert not (tmp_path / "r.pdf").exists()
    for name in ("r.json", "r.csv", "r-inventory.csv", "r-verdict.csv", "r.html"):
        assert (tmp_path / name).stat().st_size > 0, name
    (line,) = [ln for ln in run.err.splitlines() if "could not be written" in ln]
    assert line.startswith(f"nic-advisor: internal error, not a verdict (ReportWriterError: the PDF report "
                           f"{tmp_path / 'r.pdf'} could not be written: LayoutError: Flowable <Table> too large on "
                           "page 7); the details are in ")
