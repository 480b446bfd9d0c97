"""Issue 29 §6: the HTML export was quadratic in pNICs ("Finish this audit" compiled one regex per command and pNIC,
overflowing Python's regex cache: 94 s at 750 pNICs). One host of 750 pNICs (the real ``esxcfg-nics -l`` row of a
shared capture renamed ``vmnicN``: benchmarks/growth.py's ``rows`` shape) is audited and exported to HTML in a child
bounded by the hostile suite's limits (1 GiB, 60 s: the quadratic export does not finish in it). The timing itself
is measured by ``benchmarks/growth.py --shape html``."""
from __future__ import annotations


def test_the_html_of_750_pnics_is_written_within_the_bound(cli, rows_host, tmp_path):
    host = rows_host(750)
    run = cli("audit", "--quiet", "--no-history", "--capture", host, "--html", tmp_path / "r.html")
    assert run.code == 1, run.err
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "vmnic749" in html and "Finish this audit" in html


def test_a_finish_command_names_each_pnic_as_a_word_outside_quotes():
    from nicadvisor.report.finish import _named

    command = "esxcli network nic get -n vmnic1; grep 'vmnic2' x; echo vmnic10 vmnic1x vmnic3.1 vmnic3"
    found = _named(command, {"vmnic1", "vmnic2", "vmnic3", "vmnic10"})
    assert {n: m.start() for n, m in found.items()} == {
        "vmnic1": command.index("vmnic1;"), "vmnic10": command.index("vmnic10"), "vmnic3": len(command) - 6}
