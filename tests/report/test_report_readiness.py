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


def _run_stubbed(lines: list[str], words: set[str], bin_dir) -> list[str]:
    """What ``lines`` would run, as ``sh`` expands them: each command word in ``words`` is a program in ``bin_dir``
    (first on PATH) that prints its name and arguments instead of running anything."""
    for w in words:
        stub = bin_dir / w
        stub.write_text('#!/bin/sh\necho "$(basename "$0") $*"\n')
        stub.chmod(0o755)
    script = "set -f\n" + "\n".join(line for line in lines if not line.startswith("#"))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True, env=env).stdout.splitlines()


def test_each_host_page_opens_with_its_missing_checks_and_a_finish_block_that_runs_the_same_commands(demo, raw, html,
                                                                                                     tmp_path):
    from nicadvisor.report.finish import finish_block

    flat = _flat(raw)
    lacking = [hv for hv in demo.verdict.hosts if hv.missing]
    assert len(lacking) == 10
    for hv in lacking:
        host = next(h for h in demo.hosts if h.name == hv.host)
        page = flat[flat.index(f"Decisive checks not made on {hv.host} "):]
        page = page[:page.index("Plan items for")]
        # before anything else about the host: its missing checks, then the commands, then its matrix
        assert page.index("Finish this audit") < page.index("Capability matrix")
        for title in dict.fromkeys(m.title for m in hv.missing):
            assert title in page
        # the block runs exactly the commands of the verdict's list (loops over pNICs expanded by sh itself)
        block = finish_block(hv, [p.name for p in host.pnics])
        commands = [c for c in hv.finish if not c.startswith("#")]
        words = {c.split()[0] for c in commands}
        ran = _run_stubbed(block, words, tmp_path)
        assert ran and sorted(ran) == sorted(_run_stubbed(commands, words, tmp_path)), hv.host
        assert _flat(block[0]) in page
        assert f'<pre class="evidence finish">{block[0]}' in html.replace("&#39;", "'").replace("&lt;", "<") \
            .replace("&gt;", ">").replace("&#34;", '"').replace("&amp;", "&")
    # the PCIe link of an ESXi pNIC is read on the host: lspci -d, once for every pNIC (it dumps every function)
    hpe = next(hv for hv in lacking if hv.host == "esxi-hpe-connectx5")
    block = finish_block(hpe, ["vmnic0", "vmnic1"])
    assert "lspci -d" in "; ".join(block) and not any(line.startswith("#") for line in block)
    assert any(line.startswith("for nic in vmnic0 vmnic1; do vsish -e get /net/pNics/$nic/properties;")
               for line in block)


def test_the_finish_block_survives_the_grouping_of_alike_hosts(demo, tmp_path):
    import copy

    from pypdf import PdfReader

    from nicadvisor.model import Audit
    from nicadvisor.services.audit import evaluate_findings

    hosts = []
    for i in range(3 * len(demo.hosts)):
        host = copy.deepcopy(demo.hosts[i % len(demo.hosts)])
        host.name = f"lab{i // len(demo.hosts):02d}-{host.name}"
        hosts.append(host)
    fleet = Audit(hosts=hosts, inputs=list(demo.inputs), created_at=demo.created_at)
    fleet.findings = evaluate_findings(hosts)
    verdicts = {hv.host: hv for hv in fleet.verdict.hosts}
    # alike hosts lack the same checks and take the same commands, so a group's block holds for each of its hosts
    group = ["lab00-esxi-hpe-connectx5", "lab01-esxi-hpe-connectx5", "lab02-esxi-hpe-connectx5"]
    assert verdicts[group[0]].finish and all(verdicts[h].finish == verdicts[group[0]].finish for h in group)
    text = _flat(" ".join(p.extract_text() for p in PdfReader(str(write_pdf(fleet, tmp_path / "f.pdf"))).pages))
    page = text[text.index("Hosts lab00-esxi-hpe-connectx5 and 2 alike"):]
    page = page[:page.index("Plan items for")]
    assert "Decisive checks not made on each of these 3 hosts" in page
    assert "Finish this audit (the same commands on each host of the group)" in page
    assert ("3 hosts whose pNICs, configuration and findings are the same (all of them; [1–48] is a run of numbers): "
            + ", ".join(group)) in page
    # the cover counts the hosts that lack each check, however many there are; it lists no host
    cover = text[:text.index("Scope:")]
    assert "ESXi release (with its update) on 24 hosts" in cover and "lab01-esxi-hpe-connectx5" not in cover


def test_the_esxi_release_is_on_every_host_row_and_page(demo, layout, raw, html):
    from nicadvisor.report.fleet import host_title, host_groups, release_label

    flat = _flat(raw)
    for group in host_groups(demo):
        assert host_title(group) in flat  # the page's heading: "Host esxi-a · ESXi release not read (run vmware -vl)"
        assert host_title(group) in _html_text(html)
    scorecard = _flat(raw)[_flat(raw).index("Verdict and scorecard per host"):_flat(raw).index("Board decision")]
    assert "Host, ESXi release Verdict Link MTU Geneve Rx filter RSS ENS PCIe Coalesc. Driver" in scorecard
    for host in demo.hosts:  # under each host's name: "release not read", "ESXi 7.0 U3", "Linux"
        assert re.search(rf"{re.escape(host.name)} {re.escape(release_label(host))} [✖?✔] ", scorecard), host.name


def test_the_cover_says_what_was_decided_and_what_was_not_before_anything_about_the_hosts(demo, pdf, html):
    from pypdf import PdfReader

    from nicadvisor.model.verdict import coverage_of

    first = _flat(PdfReader(str(pdf)).pages[1].extract_text())  # page 1 is the decision, then the summary
    coverage = coverage_of(demo, demo.verdict).text  # decided cells per column, hosts rated
    assert coverage.startswith("Decided cells: Link ") and coverage.endswith("hosts rated: 5 of 10")
    assert coverage in first and first.index(coverage) < first.index("Scope:") < first.index("Verdict and scorecard")
    # which checks are missing on how many hosts, once; each host's own list opens its page
    assert "Decisive checks not made: Link and speed on 4 hosts; " in first
    assert "ESXi release (with its update) on 8 hosts" in first
    text = _html_text(html)
    assert coverage in text and "Decisive checks not made: Link and speed on 4 hosts; " in text


@pytest.mark.parametrize("fonts", ["dejavu", "built-in"])
def test_no_scorecard_column_title_wraps(demo, tmp_path, fonts):
    """"Coalesc." once wrapped its full stop to a line of its own (issue 19): each status column is as wide as its
    widest title, in the DejaVu fonts and in the built-in ones a machine without them falls back to."""
    pdf = write_pdf(demo, tmp_path / "s.pdf", font_dir=None if fonts == "dejavu" else tmp_path)
    lines = _pdftotext(pdf, "-layout").splitlines()
    (i,) = [n for n, line in enumerate(lines) if line.split()[:3] == ["Host,", "ESXi", "release"]][:1]
    assert lines[i].split()[-4:] == ["ENS", "PCIe", "Coalesc.", "Driver"]
    assert lines[i + 1].split()[:1] != ["."]


def test_switch_ports_are_one_line_per_host_page_and_how_they_are_read_is_said_once(demo, layout, html):
    from nicadvisor.report.fleet import host_groups

    pages = len(host_groups(demo))
    for text in (_flat(layout), _html_text(html)):
        assert text.count("Switch ports: where each physical pNIC is cabled") == 1  # the legend
        assert text.count("Switch ports: ") == 1 + pages  # and one line under each host's matrix
        assert "the switch must send LLDP or CDP" not in text
        assert "vmnic0, vmnic1: not known: run vim-cmd hostsvc/net/query_networkhint" in text
    assert "<th>Switch port</th>" not in html  # a column repeated the same "not known" on every row
