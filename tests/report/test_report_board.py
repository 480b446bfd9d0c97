"""What a change board reads and signs (issue 19 §1), on the demo lab: no walls of repeated text, a document-level
decision with its fields, scope fields on the cover, the checks that ran and passed, when the inputs were captured
beside when the report was made, references a reviewer can open (never internal file names), a glossary at the end,
and the same in the HTML; the JSON names its inputs relative to what was given."""
from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import pytest
from pypdf import PdfReader

from nicadvisor.paths import demo_lab_dir
from nicadvisor.report.html_export import to_html
from nicadvisor.report.json_export import audit_to_dict, validate_document
from nicadvisor.report.pdf import write_pdf

#: The reference documents' internal file names: a reader never sees them.
INTERNAL = ("nsx-t-performance-on-intel.txt", "vds-ipfix-impact-nsxv.txt", "nsx-latency-part1-dfw.txt",
            "nsx-latency-part2-vxlan-dlr.txt", "vmfex-vs-vswitch-netperf.txt")


def repeated_share(text: str, min_chars: int = 20) -> float:
    """The share of the lines of ``text`` (pdftotext -layout) that repeat a line said before: every copy of a line
    of at least ``min_chars`` characters beyond its first, over all non-blank lines, page footers left out
    (whitespace collapsed). Shorter lines are labels and table cells ("? unknown", "Capability matrix")."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line and not re.search(r"page \d+ of \d+$", line)]
    counts = Counter(lines)
    copies = sum(n - 1 for line, n in counts.items() if n > 1 and len(line) >= min_chars)
    return copies / len(lines)


@pytest.fixture(scope="module")
def pdf(demo, tmp_path_factory):
    return write_pdf(demo, tmp_path_factory.mktemp("board") / "demo.pdf")


@pytest.fixture(scope="module")
def layout(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def _flat(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


def test_less_than_5_percent_of_the_demo_pdf_lines_repeat(layout):
    share = repeated_share(layout)
    assert share < 0.05, f"{share:.1%} of the lines repeat"
    flat = _flat(layout)
    # said once: the legend, the white paper's address note, the vendor sources of the compatibility note
    assert flat.count("pass: the facts it needs known, no finding") == 1
    assert flat.count("https://docs.nvidia.com/networking/display/VMwarev4171516/Introduction") == 1
    assert flat.count("no public address of this white paper could be confirmed") == 1


def test_the_board_decides_on_the_document_and_signs_with_role_name_and_date(pdf, layout):
    fields = PdfReader(str(pdf)).get_fields()
    decision = fields["decision"]
    assert decision["/FT"] == "/Btn" and set(decision["/_States_"]) >= {"/approve", "/approve_with_conditions", "/reject"}
    assert fields["decision.comments"]["/FT"] == "/Tx" and int(fields["decision.comments"]["/Ff"]) & 4096  # multiline
    for i in (1, 2, 3):
        for key in ("role", "name", "date"):
            assert fields[f"board{i}.{key}"]["/FT"] == "/Tx"
        assert fields[f"board{i}.signature"]["/FT"] == "/Sig"  # a signature field (issue 25 §1)
    assert fields["board1.role"]["/V"] == "Change manager"
    for key in ("change_request", "target_nsx", "vcenter", "auditor"):  # scope fields on the cover
        assert fields[f"scope.{key}"]["/FT"] == "/Tx"
    flat = _flat(layout)
    assert "Board decision" in flat and "Approve with conditions" in flat and "Reject" in flat


def test_the_cover_says_when_the_inputs_were_captured_and_the_report_made(pdf, demo):
    first = _flat(PdfReader(str(pdf)).pages[0].extract_text())
    assert f"audit run {demo.created_at}" in first and "report made 20" in first
    # what the captures' own headers say (issue 25 §1), never the checkout's file dates
    assert "Inputs captured: capture files (32): 16 dated by their # source: line (published) 2017-09" in first
    for label in ("Change request", "vCenter / cluster", "Auditor"):
        assert label in first


def test_the_checks_that_ran_list_what_passed_as_well(layout):
    flat = _flat(layout)
    start = flat.index("Every check the audit ran")
    section = flat[start:flat.index("How to read the host pages", start)]
    # Link: 24 physical pNICs checked, 13 passed, 6 warned (one a 25 GbE port at 10 Gbit/s), 5 not read (the demo lab)
    assert "Link physical pNICs 24 13 6 0 5 0" in section
    # no host has a TEP-path test: esxi-vcf9-nested's local error on the default netstack is not one (issue 24 §3)
    assert "MTU path test (vmkping -d / ping -M do) passed hosts 10 0 0 0 10 0" in section


def test_no_heading_is_left_alone_at_the_foot_of_a_page(pdf):
    """A heading and what it introduces never split across pages: no page ends with a section heading."""
    reader = PdfReader(str(pdf))
    headings = ("Board decision", "Signed by", "Checks that ran", "How to read the host pages", "Capability summary",
                "Remediation plan", "Sign-off of the work per host", "Capability matrix")
    for n, page in enumerate(reader.pages, start=1):
        lines = [ln.strip() for ln in page.extract_text().splitlines() if ln.strip()]
        body = [ln for ln in lines if not re.search(r"page \d+ of \d+$", ln) and not ln.startswith("NIC Advisor 0.")]
        assert not body or body[-1] not in headings, (n, body[-1])
    # and each block of fields is on the page of its heading
    for heading, names in (("Board decision", {"decision.comments"}),
                           ("Signed by", {"decision", "board1.role", "board3.signature"}),
                           ("Sign-off of the work per host", {"signoff1.name", "signoff10.date"})):
        page = next(p for p in reader.pages if heading in p.extract_text())
        fields = {a.get_object().get("/T") or a.get_object().get("/Parent", {}).get("/T")
                  for a in page.get("/Annots") or []}
        assert names <= fields, (heading, names - fields)


def test_references_give_title_version_and_a_link_never_a_file_name(pdf, layout, demo):
    flat = _flat(layout)
    for name in INTERNAL:
        assert name not in flat
    refs = flat[flat.index("Appendix: references"):flat.index("Glossary")]
    assert ("Testing VMkernel network connectivity with the vmkping command. Broadcom KB 344313 (VMware KB 1003728). "
            "Broadcom (VMware). https://knowledge.broadcom.com/external/article?legacyId=1003728") in refs
    assert "VDS IPFIX performance with NSX-V and vRNI" not in refs or "314383" in refs
    links = {a["/A"]["/URI"] for page in PdfReader(str(pdf)).pages for a in (page.get("/Annots") or [])
             if a.get_object().get("/A", {}).get("/URI") for a in [a.get_object()]}
    assert "https://knowledge.broadcom.com/external/article?legacyId=1003728" in links
    assert "https://developer.broadcom.com/powercli/latest/vmware.vimautomation.vds/commands/set-vdswitch" in links


def test_the_glossary_is_at_the_end(pdf):
    last = _flat(PdfReader(str(pdf)).pages[-1].extract_text())
    assert "Glossary" in last
    for term in ("TEP", "Geneve", "ENS / EDP", "Rx filter", "RSS", "VCG"):
        assert term in last


def test_the_html_says_the_same(demo):
    html = to_html(demo)
    text = _flat(re.sub(r"<[^>]+>", " ", html))
    for name in INTERNAL:
        assert name not in html
    assert 'type="radio" name="decision" value="approve_with_conditions"' in html
    assert "Checks that ran" in text and "Board decision" in text and "Sign-off of the work per host" in text
    # the inputs read, host by host, as the PDF lists them
    inputs = text[text.index("Appendix: inputs read"):text.index("Appendix: references")]
    for host in demo.hosts:
        assert f"{host.name} ({len(host.inputs)})" in inputs
    assert "demo-lab/esxi-vcf9-nested/esxi_vmkping-d_message_too_long_mtu_mismatch.txt" in inputs
    assert 'href="https://knowledge.broadcom.com/external/article?legacyId=1003728"' in html
    assert text.rindex("Glossary") > text.index("Appendix: references")
    assert str(demo_lab_dir()) not in html


def test_the_json_names_inputs_relative_to_what_was_given(demo):
    doc = audit_to_dict(demo)
    validate_document(doc)
    text = json.dumps(doc)
    assert str(demo_lab_dir()) not in text  # none of the auditor's absolute paths
    assert doc["inputs"] == ["demo-lab"]
    assert all(i.startswith("demo-lab/") for h in doc["hosts"] for i in h["inputs"])
    f = next(f for f in doc["findings"] if f["rule_id"] == "tep-mtu-below-1700")
    assert f["evidence"][0]["source"].startswith("demo-lab/esxi-sio4-nsxv/")
    kb = next(c for c in f["citations"] if c["id"].endswith("legacyId=1003728"))
    assert kb["title"] == "Testing VMkernel network connectivity with the vmkping command" and kb["url"] == kb["id"]
    paper = next(c for c in f["citations"] if c["id"] == "nsx-t-performance-on-intel.txt")
    assert paper["section"] == "Jumbo MTU for Higher Throughput" and paper["url"] is None
