"""The HTML export: the PDF's content (verdict, scorecard, plan grouped by rule, matrices, appendices) as one page
for mail and wikis, with device text escaped."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from audit_sample import VMNIC2, build_audit
from nicadvisor.cli import main
from nicadvisor.model import Severity
from nicadvisor.report.html_export import to_html, write_html


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.parts.append(data)


def _parse(html: str) -> tuple[str, list[str]]:
    p = _Text()
    p.feed(html)
    return " ".join(" ".join(p.parts).split()), p.tags


def test_html_holds_the_same_content_as_the_pdf(tmp_path):
    audit = build_audit()
    path = write_html(audit, tmp_path / "a.html")
    text, tags = _parse(path.read_text(encoding="utf-8"))
    assert "✖ NOT READY for the NSX Geneve overlay" in text and audit.verdict.reason in text
    assert "Verdict and scorecard per host" in text and "Remediation plan" in text
    assert re.search(r"\d+\. ✖ ERROR — pNIC MTU below the Geneve minimum", text)
    for f in audit.findings:
        assert " ".join(f.message.split()) in text
    info = text[text.index("Appendix: information only"):]
    assert all(f.title in info for f in audit.findings if f.severity is Severity.INFO)
    assert " ".join(VMNIC2.split()) in text
    assert "Host esxi-a" in text and "Host lnx-1" in text
    assert "script" not in tags


def test_device_text_is_escaped():
    audit = build_audit()
    html = to_html(audit)
    assert "& check the physical switch ports" not in html  # the raw ampersand is escaped
    assert "&amp; check the physical switch ports" in html
    assert "<4us" not in html and "&lt;4us" in html


def test_cli_writes_html(tmp_path, capsys):
    out = tmp_path / "demo.html"
    main(["audit", "--demo", "--quiet", "--no-history", "--html", str(out)])
    text, _ = _parse(out.read_text(encoding="utf-8"))
    assert f"wrote {out}" in capsys.readouterr().out
    assert "NOT READY" in text and "Host esxi-vcf9-nested" in text


def test_html_has_the_summary_top_actions_charts_and_readable_benchmarks():
    """Review of issue 10: the HTML lacked the top actions, the charts and showed raw benchmark figures."""
    from nicadvisor.bench.results import BenchResult
    from nicadvisor.report.remediation import TOP_ACTIONS, remediation_plan

    audit = build_audit()
    audit.inputs.append("local")  # this machine is audited: its loopback run is about an audited host
    audit.benchmarks = [BenchResult(test="TCP_RR", tool="netperf", path="loopback", throughput_gbps=None,
                                    transactions_per_s=17970.01, latency_us=57.98107126754971, duration_s=1.0,
                                    expected=None, raw="", command="netperf -t omni",
                                    no_expectation="no figure fits a loopback path")]
    html = to_html(audit)
    text, tags = _parse(html)
    plan = remediation_plan(audit)
    assert "Top remediation actions" in text
    top = text[text.index("Top remediation actions"):text.index("Verdict and scorecard per host")]
    assert all(item.title in top for item in plan[:TOP_ACTIONS])
    assert "Compatibility data: the database shipped with" in text
    assert tags.count("svg") == 2  # the capability summary and the µs benchmark chart
    assert "<?xml" not in html and "NicAdv-Sans" not in html  # inline SVG, fonts a browser knows
    assert "17,970" in text and "57.98" in text and "57.98107126754971" not in text and "None" not in text
    assert "no expectation: no figure fits a loopback path" in text
