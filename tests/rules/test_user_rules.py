"""The user's own rules (issue 8 §4): a rules folder in the user's config dir, loaded after the shipped ones and
validated with file:line errors, and ``nic-advisor rules check FILE``."""
from __future__ import annotations

from pathlib import Path

import pytest

from nicadvisor.cli import main
from nicadvisor.model import Host, PhysicalNic
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.rules_engine.loader import RuleError, user_rules_dir

MINE = """rules:
  - id: site-mtu-not-9000
    title: Site standard — MTU 9000 on every pNIC
    severity: warning
    applies_to: pnic
    category: mtu
    condition: mtu != null and mtu != 9000
    message: "${name} has MTU ${mtu}; our site standard is 9000."
    recommendation: "Set ${name} to 9000."
    rollback: "Set ${name} back to ${mtu}."
    references: ["https://example.org/site-standard"]
"""


def _write(folder: Path, text: str, name: str = "site.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_user_rules_load_after_the_shipped_ones_and_fire():
    path = _write(user_rules_dir(), MINE)
    try:
        rules = load_rules()
        assert rules[-1].id == "site-mtu-not-9000" and rules[-1].source == f"{path.parent}/site.yaml:2"
        assert len(rules) == len(load_rules(user=False)) + 1
        host = Host(name="h", kind="esxi", pnics=[PhysicalNic(name="vmnic0", mtu=1500)])
        (hit,) = [f for f in evaluate(rules, [host]) if f.rule_id == "site-mtu-not-9000"]
        assert hit.message == "vmnic0 has MTU 1500; our site standard is 9000." and hit.rollback == "Set vmnic0 back to 1500."
    finally:
        path.unlink()


def test_a_broken_user_rule_names_its_file_and_line():
    path = _write(user_rules_dir(), MINE.replace("mtu != 9000", "mtu != 9000 and colour == 'red'"))
    try:
        with pytest.raises(RuleError, match=rf"{path}:7: rule site-mtu-not-9000: condition names unknown fact"):
            load_rules()
    finally:
        path.unlink()


def test_a_user_rule_cannot_replace_a_shipped_one(tmp_path):
    path = _write(tmp_path, MINE.replace("site-mtu-not-9000", "no-rss"))
    with pytest.raises(RuleError, match=r"rule id 'no-rss' already defined at offload\.yaml:\d+"):
        from nicadvisor.rules_engine.loader import check_rule_files
        check_rule_files([path])


def test_rules_check_command(tmp_path, capsys):
    good = _write(tmp_path, MINE)
    assert main(["rules", "check", str(good)]) == 0
    assert "1 rule(s) valid in 1 file(s)" in capsys.readouterr().out
    bad = _write(tmp_path, MINE.replace("severity: warning", "severity: fatal"), "bad.yaml")
    assert main(["rules", "check", str(good), str(bad)]) == 2
    assert f"{bad}:4: 'fatal' is not one of" in capsys.readouterr().err
    assert main(["rules", "check", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml" in capsys.readouterr().err
