"""Issue 16 §2 in the wizard: Discover shows, per host, the commands a collector could not run and why (here the
collector script's output of the SSH lab's ESXi host, run under busybox sh with fake tools printing its real recorded
outputs: tests/ssh/fake_esxi.py), beside "Finish this audit". Screenshot: wizard-discover-not-run."""
from __future__ import annotations

import sys
from pathlib import Path

from capturetools import CAPTURES
from guitools import run_audit
from nicadvisor.gui.state import Source
from nicadvisor.gui.wizard import PageId

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ssh"))
from fake_esxi import esxi_collection  # noqa: E402


def test_discover_lists_the_commands_that_could_not_run(make_wizard, qtbot, screenshot, tmp_path):
    wizard = make_wizard(source=Source.CAPTURES, capture_paths=(str(esxi_collection(tmp_path, CAPTURES)),))
    audit = run_audit(wizard, qtbot)
    (host,) = audit.hosts
    panel = wizard.pages[PageId.DISCOVER].finish
    panel.host.setCurrentIndex(panel.host.findData("esxi-lab"))
    assert panel.not_run.isVisible()
    assert panel.not_run_title.text() == f"Commands that could not run on this host ({len(host.not_run)}):"
    text = panel.not_run_text()
    assert "\nfailed:\n  esxcli network nic coalesce get   [exit status 1: fake esxcli: no output of" in text
    assert "\n  esxcfg-nics -e   [exit status 1: fake esxcfg-nics: no output of 'esxcfg-nics -e'" in text
    absent = text.split("not present on this host or release:\n", 1)[1].split("\n\n", 1)[0]
    assert "\n  grep -F " in "\n" + absent
    assert all(n.command in text for n in host.not_run)
    # "Finish this audit" names commands the script ran and could not answer: the not-run list says why
    assert "vmware -vl" in panel.text() and "  vmware -vl   [exit status 1" in text
    screenshot(wizard, "discover-not-run")
    # a host whose commands all ran shows no such list
    panel.show_audit(None)
    assert not panel.not_run.isVisible() and panel.not_run_text() == ""
