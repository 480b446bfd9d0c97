"""Issue 20 §2: one broken file in the user's rules folder crashed every audit. Now the audit skips that file with a
message naming it and its line, runs with the other rules, and is never READY while a rule file was skipped;
``rules check`` and ``rules --dir`` say what is wrong in one sentence, also for the files that used to end in a
RecursionError, UnicodeDecodeError or MemoryError (deep nesting, bytes that are not UTF-8, a "billion laughs" of
YAML aliases: 1.9 GB in 22 s) — all in the bounded child of conftest.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from capturetools import ready_host

GOOD_RULE = """rules:
  - id: site-mtu-not-9000
    title: Site standard — MTU 9000 on every pNIC
    severity: info
    applies_to: pnic
    category: mtu
    condition: mtu != null and mtu != 9000
    message: "${name} has MTU ${mtu}; our site standard is 9000."
    recommendation: "Set ${name} to 9000."
    references: ["https://example.org/site-standard"]
"""


def _laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\nrules: *i\n"


#: name → (file bytes, the line the message names, words of the message)
BROKEN = {
    "syntax error": (b"rules:\n  - id: [unclosed\n    title: x\n", 3,
                     "not valid YAML: while parsing a flow sequence, expected ',' or ']', but got ':'"),
    "empty": (b"", 1, "empty rule file"),
    "only a comment": (b"# nothing here\n", 1, "empty rule file"),
    "one id twice": ((GOOD_RULE + GOOD_RULE.removeprefix("rules:\n")).replace("site-mtu-not-9000", "twice").encode(),
                     11, "rule id 'twice' already defined at "),
    "invalid UTF-8": (b"rules:\n  - id: caf\xe9\n", 2, "not UTF-8 text (byte 18 is 0xe9)"),
    "deep nesting": (b"rules: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", 1, "nested more than 32 levels deep"),
    "billion laughs": (_laughs().encode(), 6, "its aliases expand to more than 100000 YAML nodes"),
    "a condition of 2,000 and": (GOOD_RULE.replace("mtu != null and mtu != 9000",
                                                   " and ".join(["mtu != 9000"] * 2000)).encode(), 7,
                                 "condition nested too deeply to be read"),
}


def _rules_dir(xdg: Path) -> Path:
    folder = xdg / "xdg_config_home" / "nic-advisor" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_user_rule_file_is_skipped_named_and_keeps_the_audit_from_ready(ready_cli, tmp_path, xdg, case):
    text, line, words = BROKEN[case]
    host = ready_host(tmp_path)
    assert ready_cli("audit", "--quiet", "--no-history", "--capture", host).code == 0  # READY without the broken file
    folder = _rules_dir(xdg)
    (folder / "a-site.yaml").write_text(GOOD_RULE, encoding="utf-8")
    bad = folder / "b-broken.yaml"
    bad.write_bytes(text)
    run = ready_cli("audit", "--quiet", "--no-history", "--capture", host, "--json", tmp_path / "a.json")
    assert run.code == 2, run.out  # NOT RATED: never READY while a rule file was skipped
    assert f"input {bad}: rule file skipped, the audit ran without its rules: {bad}:{line}: " in run.err
    assert words in run.err
    assert "NOT RATED: 1 part of the inputs could not be read" in run.out
    assert "site-mtu-not-9000" in (tmp_path / "a.json").read_text()  # the other user rule file still ran


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_rules_check_and_rules_dir_say_what_is_wrong_in_a_sentence(cli, tmp_path, case):
    text, line, words = BROKEN[case]
    folder = tmp_path / "mine"
    folder.mkdir()
    bad = folder / "broken.yaml"
    bad.write_bytes(text)
    for args in (("rules", "check", bad), ("rules", "--dir", folder)):
        run = cli(*args)
        assert run.code == 2 and len(run.err.strip().splitlines()) == 1, (args, run.err)
        assert f"{bad.name}:{line}: " in run.err and words in run.err, (args, run.err)


def test_a_user_rule_that_redefines_a_shipped_id_is_skipped(ready_cli, tmp_path, xdg):
    bad = _rules_dir(xdg) / "mine.yaml"
    bad.write_text(GOOD_RULE.replace("site-mtu-not-9000", "no-rss"), encoding="utf-8")
    run = ready_cli("audit", "--quiet", "--no-history", "--capture", ready_host(tmp_path))
    assert run.code == 2
    assert f"{bad}:2: rule id 'no-rss' already defined at offload.yaml:" in run.err


def test_the_rules_list_says_which_user_file_is_broken(cli, xdg):
    bad = _rules_dir(xdg) / "broken.yaml"
    bad.write_bytes(BROKEN["invalid UTF-8"][0])
    run = cli("rules")
    assert run.code == 2 and run.err.strip() == f"{bad}:2: not UTF-8 text (byte 18 is 0xe9)"
