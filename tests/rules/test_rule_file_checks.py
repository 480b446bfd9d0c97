"""``nic-advisor rules check`` (and every rule load) refuses files that would load but never do what they say, with
``file:line``: a key written twice (YAML keeps the last), a reference to a document that is not one of the reference
documents, and a condition whose comparisons can never match because their types do not fit the facts'."""
from __future__ import annotations

from pathlib import Path

import pytest
import rule_engine

from capturetools import SHARED
from nicadvisor.cli import main
from nicadvisor.rules_engine import load_rules
from nicadvisor.rules_engine.context import object_context, pnic_context
from nicadvisor.rules_engine.loader import REFERENCE_DOCUMENTS, RuleError, check_rule_files, fact_types
from nicadvisor.services.audit import AuditRequest, run_audit

RULE = """rules:
  - id: site-rule
    title: Site standard rule
    severity: info
    applies_to: {applies_to}
    category: mtu
    condition: {condition}
    message: "${{name}} is not to the site standard."
    recommendation: "Fix ${{name}}."
    references:
      - "https://example.org/site-standard"
      - {reference}
"""


def _write(tmp_path: Path, *, condition: str = "mtu != null and mtu != 9000", applies_to: str = "pnic",
           reference: str = '"vendor: Intel E810 feature guide"', extra: str = "") -> Path:
    path = tmp_path / "site.yaml"
    path.write_text(RULE.format(condition=condition, applies_to=applies_to, reference=reference) + extra,
                    encoding="utf-8")
    return path


def test_the_base_rule_file_is_valid(tmp_path, capsys):
    path = _write(tmp_path)
    assert [r.id for r in check_rule_files([path])] == ["site-rule"]
    assert main(["rules", "check", str(path)]) == 0
    assert "1 rule(s) valid in 1 file(s)" in capsys.readouterr().out


def test_a_duplicate_key_is_refused_with_its_line(tmp_path, capsys):
    path = _write(tmp_path)
    text = path.read_text(encoding="utf-8").replace("    severity: info\n", "    severity: info\n    severity: error\n")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError, match=rf"^{path}:5: duplicate key 'severity' \(first at line 4\)"):
        check_rule_files([path])
    assert main(["rules", "check", str(path)]) == 2
    captured = capsys.readouterr()
    assert f"{path}:5: duplicate key 'severity'" in captured.err and "valid" not in captured.out


@pytest.mark.parametrize("text, line, words", [
    ("rules:\n\t- id: x\n", 2, "while scanning for the next token, found character '\\t' that cannot start any token"),
    ("rules:\n  - id: [unclosed\n    title: x\n", 3,
     "while parsing a flow sequence, expected ',' or ']', but got ':'"),
    ("rules: @x\n", 1, "while scanning for the next token, found character '@' that cannot start any token"),
])
def test_yaml_errors_are_worded_as_pyyaml_words_them_with_their_line(tmp_path, text, line, words):
    """The rule files are read with libyaml where PyYAML has it; an error is worded by PyYAML's own reader, whatever
    reader found it (libyaml's messages differ), with the line it names."""
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as caught:
        check_rule_files([path])
    assert str(caught.value) == f"{path}:{line}: not valid YAML: {words}"


def test_a_merge_key_bomb_is_refused_before_it_is_built(tmp_path):
    """Review of 2026-12-02: nested ``<<`` merges double the work at every level when the value is built (23 levels,
    654 bytes: 17 s and all memory). The aliases are counted on the node tree first, so the file is refused at once."""
    lines = ["b0: &b0 {k: 1}"] + [f"b{i}: &b{i} {{<<: [*b{i - 1}, *b{i - 1}]}}" for i in range(1, 24)] + ["rules: []"]
    path = tmp_path / "merge-bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RuleError, match=r"aliases expand to more than 100000 YAML nodes"):
        check_rule_files([path])


def test_an_error_in_a_rule_that_merges_another_names_its_own_line(tmp_path):
    """A rule that merges another (``<<: *base``) and overrides a key with a bad value: the error names the line of
    the overriding key, not the merged rule's (building the value puts merged keys into the node tree first)."""
    base = RULE.format(condition="mtu != null and mtu != 9000", applies_to="pnic", reference='"vendor: x"')
    text = base.replace("  - id: site-rule", "  - &base\n    id: site-rule") + (
        "  - <<: *base\n"
        "    id: site-rule-2\n"
        "    severity: bogus\n")
    path = tmp_path / "merged.yaml"
    path.write_text(text, encoding="utf-8")
    bogus = text.splitlines().index("    severity: bogus") + 1
    with pytest.raises(RuleError, match=rf"^{path}:{bogus}: 'bogus' is not one of"):
        check_rule_files([path])


def test_a_duplicate_rule_list_or_nested_key_is_refused_too(tmp_path):
    path = tmp_path / "two.yaml"
    one = RULE.format(condition="mtu == null", applies_to="pnic", reference='"vendor: x"')
    path.write_text(one + one.replace("rules:\n", "rules:\n", 1).replace("site-rule", "site-rule-2"), encoding="utf-8")
    with pytest.raises(RuleError, match=rf"^{path}:13: duplicate key 'rules' \(first at line 1\)"):
        check_rule_files([path])


@pytest.mark.parametrize("reference", ['"nonexistent.txt §Nowhere"', '"nsx-t-performance.txt §Jumbo MTU"'])
def test_a_reference_to_an_unknown_document_is_refused_with_its_line(tmp_path, reference, capsys):
    path = _write(tmp_path, reference=reference)
    doc = reference.strip('"').split(" §")[0]
    with pytest.raises(RuleError, match=rf"^{path}:12: rule site-rule: reference .*{doc}.* not a reference document"):
        check_rule_files([path])
    assert main(["rules", "check", str(path)]) == 2
    assert f"{path}:12:" in capsys.readouterr().err


@pytest.mark.parametrize("reference", ['"nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput"',
                                       '"vmfex-vs-vswitch-netperf.txt §anything"', '"https://docs.example.com/a.txt"',
                                       '"vendor: Broadcom bnxtnet release notes"'])
def test_known_documents_urls_and_vendor_references_are_accepted(tmp_path, reference):
    assert check_rule_files([_write(tmp_path, reference=reference)])


def test_the_known_reference_documents_are_the_shared_reference_folder_and_the_shipped_rules_cite_them():
    assert REFERENCE_DOCUMENTS == {p.name for p in (SHARED / "reference").glob("*.txt")}
    cited = {ref.partition(" §")[0] for r in load_rules(user=False) for ref in r.references
             if " §" in ref and "://" not in ref}
    assert cited == REFERENCE_DOCUMENTS


@pytest.mark.parametrize("applies_to, condition", [
    ("pnic", 'mtu == "9000"'),                 # a number fact compared with a string
    ("pnic", "mtu != null and mtu != '9000'"),
    ("pnic", "driver > 5"),                    # a string fact ordered against a number
    ("pnic", "driver == 5"),
    ("pnic", "mtu in ['1500', '9000']"),
    ("pnic", "rss == 'true'"),                 # a boolean fact compared with a string
    ("pnic", "module_options['RSS'] == 4"),    # module options are strings
    ("pnic", "switch_mtu == 'jumbo'"),         # derived facts are typed too
    ("pnic", "link_speed_gbps < '10'"),
    ("vmknic", "is_tep == 1"),
    ("switch", "uplinks == 2"),
    ("host", "tep_count == 'one'"),
])
def test_a_condition_whose_types_never_match_is_refused_with_its_line(tmp_path, applies_to, condition, capsys):
    path = _write(tmp_path, applies_to=applies_to, condition=condition)
    with pytest.raises(RuleError, match=rf"^{path}:7: rule site-rule: condition .* can never match"):
        check_rule_files([path])
    assert main(["rules", "check", str(path)]) == 2
    assert f"{path}:7: rule site-rule: condition" in capsys.readouterr().err


@pytest.mark.parametrize("applies_to, condition", [
    ("pnic", "mtu != null and mtu != 9000"),
    ("pnic", "driver in ['ixgben', 'i40en'] and rss == false"),
    ("pnic", "module_options['RSS'] != null and switch_mtu != null and switch_mtu > mtu"),
    ("pnic", "link_speed_gbps != null and link_speed_gbps < 10 and host_kind == 'esxi'"),
    ("pnic", "driver =~ '^i40' and pcie_width != null and pcie_width < 8"),
    ("switch", "kind == 'opaque' and 'vmnic1' in uplinks and carries_tep == false"),
    ("vmknic", "is_tep == true and mtu != null and mtu < 1700 and '10.0.0.1' in addresses"),
    ("host", "tep_count == 1 and overlay_uplinks != null and overlay_uplinks >= 2 and mtu_path_error == null"),
])
def test_well_typed_conditions_are_accepted(tmp_path, applies_to, condition):
    assert check_rule_files([_write(tmp_path, applies_to=applies_to, condition=condition)])


def test_every_fact_has_a_type_and_the_audit_gives_values_of_that_type():
    """The declared fact types (model annotations, DERIVED_FACT_TYPES for context.py's derived facts) hold for the
    contexts of the demo lab's hosts, so a well-typed rule is never refused and a refused one could never match."""
    types = {a: fact_types(a) for a in ("pnic", "vmknic", "switch", "host")}
    for applies_to, facts in types.items():
        assert all(t != rule_engine.DataType.UNDEFINED for t in facts.values()), applies_to
    seen = 0
    for host in run_audit(AuditRequest(demo=True)).hosts:
        contexts = [("pnic", pnic_context(host, p)) for p in host.pnics]
        contexts += [("vmknic", object_context(host, v)) for v in host.vmknics]
        contexts += [("switch", object_context(host, s)) for s in host.switches] + [("host", object_context(host, host))]
        for applies_to, ctx in contexts:
            for name, value in ctx.items():
                if value is None or name not in types[applies_to]:
                    continue
                declared = types[applies_to][name]
                assert rule_engine.DataType.is_compatible(rule_engine.DataType.from_value(value), declared), \
                    f"{applies_to} fact {name} = {value!r} is not {declared}"
                seen += 1
    assert seen > 100
