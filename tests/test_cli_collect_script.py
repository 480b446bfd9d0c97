"""``nic-advisor collect-script --kind esxi|linux [-o FILE]``: the collector script on stdout or in an executable
file (what it runs and how: tests/ssh/test_collect_script_esxi.py, test_collect_script_linux.py)."""
from __future__ import annotations

import os
import stat
import subprocess

import pytest

from nicadvisor.cli import main
from nicadvisor.collect.script import collector_script


@pytest.mark.parametrize("kind", ["esxi", "linux"])
def test_to_stdout_and_to_a_file(kind, tmp_path, capsys):
    assert main(["collect-script", "--kind", kind]) == 0
    out = capsys.readouterr().out
    assert out == collector_script(kind) and out.startswith("#!/bin/sh\n")
    target = tmp_path / f"nic-advisor-collect-{kind}.sh"
    assert main(["collect-script", "--kind", kind, "-o", str(target)]) == 0
    err = capsys.readouterr().err
    assert target.read_text() == out and os.stat(target).st_mode & stat.S_IXUSR
    assert f"wrote {target}" in err and "nic-advisor audit --capture" in err
    # the text is a valid POSIX sh script (dash -n parses without running)
    assert subprocess.run(["/bin/dash", "-n", str(target)], capture_output=True, timeout=30).returncode == 0


def test_what_each_script_says_it_runs():
    esxi, linux = collector_script("esxi"), collector_script("linux")
    assert "ESXi Shell (busybox sh" in esxi and "esxcli network nic list" in esxi and "ethtool" not in esxi
    assert "#   ethtool {nic}    (per pNIC; needs root for a full answer)" in linux
    with pytest.raises(ValueError, match="--kind must be one of esxi, linux"):
        collector_script("windows")


def test_bad_kind_and_unwritable_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["collect-script", "--kind", "windows"])
    assert exc.value.code == 2
    assert main(["collect-script", "--kind", "esxi", "-o", str(tmp_path / "missing" / "x.sh")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_the_script_on_standard_output_is_the_document_not_escaped_lines():
    """The console script writes the collector script as it is: the CLI escapes control characters in its own lines
    (a newline in a device name), which must not turn the script's line ends into ``\\n`` (the Ansible playbook
    runs exactly this output)."""
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys; from nicadvisor.cli import main; sys.exit(main())",
                           "collect-script", "--kind", "esxi"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and done.stdout == collector_script("esxi")
    assert done.stdout.startswith("#!/bin/sh\n") and "\\n" not in done.stdout.splitlines()[0]
