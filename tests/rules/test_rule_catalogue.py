"""The rule catalogue (issue 8 §4): every recommendation of the reference documents is a rule or is listed as not
judgeable with the reason, every rule is in rules/README.md with its sources, and every cited section exists."""
from __future__ import annotations

import re

import pytest

from capturetools import SHARED
from nicadvisor.paths import rules_dir
from nicadvisor.rules_engine import load_rules

RULES = load_rules(user=False)
README = (rules_dir() / "README.md").read_text(encoding="utf-8")
REFERENCE = SHARED / "reference"

#: nsx-t-performance-on-intel.txt "Conclusion" and the other documents' recommendations → the rules that carry them.
RECOMMENDATIONS = {
    "Geneve Offload for CPU cycle reduction": {"no-geneve-offload"},
    "Geneve Rx Filters, an intelligent queuing mechanism": {"no-geneve-rx-filter", "no-rx-filter-no-rss"},
    "RSS an older hardware-based queuing mechanism": {"no-rss", "single-rx-queue"},
    "Jumbo MTU": {"pnic-mtu-below-1600", "pnic-mtu-below-1700", "pnic-mtu-not-jumbo", "switch-mtu-below-1600",
                  "tep-mtu-below-1600", "mtu-path-test-failed", "mtu-path-test-failed-linux"},
    "NIC port speed": {"link-below-10g"},
    "Number of NICs—single vs dual TEP": {"single-tep-with-spare-uplinks"},
    "PCIe Gen 3 with x16 lane NICs": {"pcie-budget-below-line-rate", "pcie-link-downgraded"},
    "Enhanced Data Path Enabled NICs": {"not-ens-capable", "ens-capable-not-enabled", "ens-mode-for-general-workloads",
                                        "nsx-ens-mode-pnic-not-ens-capable"},
    "VDS IPFIX (vds-ipfix-impact-nsxv.txt)": {"vds-ipfix-enabled"},
    "interrupt coalescing (vmfex-vs-vswitch-netperf.txt)": {"coalescing-on", "linux-coalescing-on"},
}


def _section_exists(doc: str, section: str) -> bool:
    text = (REFERENCE / doc).read_text(encoding="utf-8")
    words = re.sub(r"\s+", " ", section).strip()
    return words in re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_rule_is_in_the_readme_catalogue_with_its_sources(rule):
    line = next((ln for ln in README.splitlines() if ln.startswith(f"| `{rule.id}` |")), None)
    assert line is not None, f"{rule.id} missing from the catalogue in rules/README.md"
    for ref in rule.references:
        assert ref in line, f"{rule.id}: {ref} not listed in its README row"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_cited_reference_section_exists(rule):
    for ref in rule.references:
        doc, sep, section = ref.partition(" §")
        if not sep or "://" in ref:
            continue
        assert _section_exists(doc, section), f"{rule.id} cites {ref!r}: no such section text in {doc}"


@pytest.mark.parametrize("recommendation, rule_ids", sorted(RECOMMENDATIONS.items()))
def test_every_reference_recommendation_has_its_rules(recommendation, rule_ids):
    have = {r.id for r in RULES}
    assert rule_ids <= have, f"{recommendation}: missing {sorted(rule_ids - have)}"


def test_recommendations_without_a_rule_say_why():
    section = README.split("## Not judged from the audit", 1)[-1]
    for topic in ("Edge VM RSS", "bare-metal Edge", "SR-IOV", "latency budget"):
        assert topic in section, f"rules/README.md does not say why {topic} has no rule"


def test_overlay_rules_are_exactly_the_overlay_topics():
    overlay = {r.id for r in RULES if r.overlay}
    for rid in ("no-geneve-offload", "no-geneve-rx-filter", "no-rss", "pnic-mtu-below-1600", "link-below-10g"):
        assert rid in overlay
    for r in RULES:
        if r.category in ("pcie", "driver", "coalescing", "ipfix"):
            assert not r.overlay, f"{r.id} hurts every port, not only overlay uplinks"
