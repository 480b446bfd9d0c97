"""Every bookmark of the PDF leads to the page of its own heading, and no bookmark title is cut mid-word
(issue 19 §1: all 59 outline entries of the demo report led to page 1, one title ended in "…; t")."""
from __future__ import annotations

import re

import pytest
from pypdf import PdfReader

from nicadvisor.report.pdf import outline_title, write_pdf
from nicadvisor.services.audit import AuditRequest, run_audit


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " "))


def _entries(reader: PdfReader, outline=None) -> list:
    out = []
    for item in reader.outline if outline is None else outline:
        if isinstance(item, list):
            out.extend(_entries(reader, item))
        else:
            out.append(item)
    return out


@pytest.fixture(scope="module")
def demo_pdf(tmp_path_factory):
    path = tmp_path_factory.mktemp("outline") / "demo.pdf"
    return write_pdf(run_audit(AuditRequest(demo=True)), path)


def test_every_bookmark_leads_to_the_page_of_its_heading(demo_pdf):
    reader = PdfReader(str(demo_pdf))
    pages = [_flat(p.extract_text()) for p in reader.pages]
    entries = _entries(reader)
    assert len(entries) > 20
    targets = []
    for entry in entries:
        n = reader.get_destination_page_number(entry)
        title = entry.title.removesuffix("…")
        assert title in pages[n], (entry.title, n + 1)
        targets.append(n)
    assert targets == sorted(targets)  # the outline follows the document
    assert len(set(targets)) > len(reader.pages) // 3  # not all on one page


def test_no_bookmark_title_is_cut_mid_word(demo_pdf):
    reader = PdfReader(str(demo_pdf))
    text = _flat(" ".join(p.extract_text() for p in reader.pages))
    for entry in _entries(reader):
        if entry.title.endswith("…"):
            start = text.index(entry.title[:-1])
            follows = text[start + len(entry.title) - 1:start + len(entry.title)]
            assert follows in (" ", ",", ";", ":", ")", "…", ""), entry.title


def test_outline_title_cuts_after_a_whole_word():
    long = "Verdict and scorecard per host (each cell is the worst of that host's pNICs: fail, warn; the host pages)"
    cut = outline_title(long, limit=60)
    assert cut.endswith("…") and len(cut) <= 60
    assert long.startswith(cut[:-1]) and long[len(cut) - 1] == " "
    assert outline_title("  Host   esxi-a ") == "Host esxi-a"
