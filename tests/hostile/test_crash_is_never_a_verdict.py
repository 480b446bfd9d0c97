"""Issue 20 §2: a crash is never a verdict. An internal error exits 3 (0, 1 and 2 are READY, NOT READY and NOT
RATED or refused input) with one sentence on stderr and the reports already written kept; and the environments
that used to end in a traceback — a terminal that cannot show "✖", a standard output that cannot be written, a
read-only output or state folder, a keyring backend that raises — each get one sentence, in the bounded child of
conftest.py."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from capturetools import ready_host

#: The demo lab's verdict (NOT READY: two error findings), whatever the terminal.
DEMO_EXIT = 1


def test_an_induced_internal_error_exits_3_with_one_sentence_and_keeps_the_reports_written(cli, tmp_path, xdg):
    # the HTML report is written last (PDF, JSON, CSV, HTML): a bug in its writer must not read as a verdict
    induce = ("import nicadvisor.report.html_export as h\n"
              "def broken(*a, **k):\n    raise RuntimeError('induced fault')\n"
              "h.write_html = broken\n")
    run = cli("audit", "--demo", "--quiet", "--no-history", "--json", tmp_path / "a.json", "--csv", tmp_path / "a.csv",
              "--html", tmp_path / "a.html", setup=induce)
    assert run.code == 3
    lines = run.err.strip().splitlines()
    sentence = [ln for ln in lines if not ln.startswith("input ")]
    assert len(sentence) == 1, run.err
    assert sentence[0].startswith("nic-advisor: internal error, not a verdict (ReportWriterError: the HTML report "
                                  f"{tmp_path / 'a.html'} could not be written: RuntimeError: induced fault)")
    assert sentence[0].endswith("reports already written are kept")
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["status"] == "not_ready"
    assert (tmp_path / "a.csv").stat().st_size > 0 and not (tmp_path / "a.html").exists()
    crash = sentence[0].split("the details are in ")[1].split(";")[0]
    assert crash.startswith(str(xdg / "xdg_state_home" / "nic-advisor" / "crash-"))
    assert "RuntimeError: induced fault" in Path(crash).read_text(encoding="utf-8")  # the traceback, for a report
    # it holds a traceback and input data: the user's alone (issue 29 §11: it was 0644 in a folder left 0755)
    assert Path(crash).stat().st_mode & 0o777 == 0o600 and Path(crash).parent.stat().st_mode & 0o777 == 0o700


def test_internal_error_exit_code_is_distinct_from_every_verdict():
    from nicadvisor.cli import EXIT_INTERNAL
    from nicadvisor.model.verdict import EXIT_CODE

    assert EXIT_INTERNAL == 3 and EXIT_INTERNAL not in EXIT_CODE.values() and EXIT_INTERNAL != 2


def test_a_latin1_terminal_gets_the_reports_first_and_ascii_symbols(cli, tmp_path):
    run = cli("audit", "--demo", "--quiet", "--no-history", "--json", tmp_path / "a.json",
              env={"PYTHONIOENCODING": "latin-1"})
    assert run.code == DEMO_EXIT and (tmp_path / "a.json").exists()
    assert "Verdict: X NOT READY" in run.out
    assert run.out.index(f"wrote {tmp_path / 'a.json'}") < run.out.index("Verdict:")


def test_a_c_locale_without_utf8_mode_prints_ascii(cli, tmp_path):
    run = cli("audit", "--demo", "--quiet", "--no-history", "--pdf", tmp_path / "a.pdf",
              env={"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": None})
    assert run.code == DEMO_EXIT and (tmp_path / "a.pdf").stat().st_size > 5_000
    assert "Verdict: X NOT READY" in run.out and "✖" not in run.out


def test_stdout_to_dev_full_is_one_sentence_and_the_reports_are_written(cli, tmp_path):
    with open("/dev/full", "w") as full:
        run = cli("audit", "--demo", "--quiet", "--no-history", "--json", tmp_path / "a.json", stdout=full)
    assert run.code == 2
    assert run.err.strip().endswith("nic-advisor: the standard output could not be written (No space left on "
                                    "device); reports already written are kept")
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["status"] == "not_ready"


def test_a_closed_stdout_is_one_sentence_and_the_reports_are_written(cli, tmp_path):
    run = cli("audit", "--demo", "--quiet", "--no-history", "--json", tmp_path / "a.json",
              wrap=["sh", "-c", 'exec "$@" >&-', "sh"])
    assert run.code == 2
    assert "the standard output could not be written (it is closed)" in run.err
    assert (tmp_path / "a.json").exists()


def test_demo_out_in_a_read_only_folder_is_one_sentence(cli, tmp_path, mount_ns):
    ro = tmp_path / "ro"
    ro.mkdir()
    run = cli("demo", "--headless", "--out", ro / "demo", wrap=mount_ns('mount -t tmpfs -o ro,size=64k tmpfs "$1"', ro))
    assert run.code == 2
    assert run.err.strip() == f"nic-advisor demo: cannot make the folder {ro / 'demo'}: Read-only file system"


def test_bench_netns_with_a_read_only_state_folder_changes_nothing_and_says_so(cli, tmp_path, mount_ns):
    before = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    state = tmp_path / "state"
    state.mkdir()
    run = cli("bench", "--netns", "--duration", "1", env={"XDG_STATE_HOME": str(state)},
              wrap=mount_ns('mount -t tmpfs -o ro,size=64k tmpfs "$1"', state))
    assert run.code == 2
    assert (f"nic-advisor bench: the undo journal cannot be written in {state / 'nic-advisor'} (Read-only file "
            "system); nothing was changed or run") in run.err
    assert subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout == before


RAISING_KEYRING = """
import keyring
from keyring.backend import KeyringBackend

class Raising(KeyringBackend):
    priority = 1
    def get_password(self, service, username):
        raise RuntimeError("the secret service went away")
    def set_password(self, service, username, password):
        raise RuntimeError("the secret service went away")
    def delete_password(self, service, username):
        raise RuntimeError("the secret service went away")

keyring.set_keyring(Raising())
"""


def test_a_keyring_backend_that_raises_is_one_sentence(cli):
    run = cli("audit", "--no-history", "--quiet", "--ssh", "admin@127.0.0.1:1", "--kind", "linux",
              setup=RAISING_KEYRING, env={"NIC_ADVISOR_PASSWORD": None, "NIC_ADVISOR_SSH_PASSWORD": None})
    assert run.code == 2
    assert ("no password for admin at 127.0.0.1:1 in the OS keyring (the keyring refused to read the password: "
            "RuntimeError)") in run.err
    assert "the secret service went away" not in run.err  # a backend's own text is not shown (it may hold anything)


def test_a_keyring_that_cannot_be_loaded_is_one_sentence(cli):
    broken = "import keyring\ndef gone():\n    raise OSError('no D-Bus')\nkeyring.get_keyring = gone\n"
    run = cli("audit", "--no-history", "--quiet", "--ssh", "admin@127.0.0.1:1", "--kind", "linux",
              setup=broken, env={"NIC_ADVISOR_PASSWORD": None, "NIC_ADVISOR_SSH_PASSWORD": None})
    assert run.code == 2 and "the keyring cannot be used: OSError" in run.err


def test_ctrl_c_is_not_a_traceback_nor_a_verdict(cli, tmp_path):
    interrupt = ("import nicadvisor.services.audit as a\n"
                 "def stop(*a, **k):\n    raise KeyboardInterrupt\n"
                 "a.run_audit = stop\n")
    run = cli("audit", "--quiet", "--no-history", "--capture", ready_host(tmp_path), setup=interrupt)
    assert run.code == 130 and run.err.strip() == "nic-advisor: interrupted"


#: CLI paths that reach a service added since issue 20 (services/guide.py, services/between.py): (arguments, the
#: service module and function the fault is induced in). The TEP mesh of ESXi hosts reaches run_between even when no
#: host answers (it says why no ping ran).
SERVICE_PATHS = {
    "vcg fetch": (("vcg", "fetch", "--url", "https://127.0.0.1:1/all.json", "--timeout", "2"),
                  "nicadvisor.services.guide", "plan_download"),
    "bench --between": (("bench", "--between", "root@127.0.0.1:1", "root@127.0.0.1:2", "--yes", "--no-history"),
                        "nicadvisor.services.between", "prepare_between"),
    "bench --between --kind esxi --mtu-check": (("bench", "--between", "root@127.0.0.1:1", "root@127.0.0.1:2",
                                                 "--kind", "esxi", "--mtu-check", "--no-history"),
                                                "nicadvisor.services.between", "run_between"),
}


@pytest.mark.parametrize("path", sorted(SERVICE_PATHS))
def test_service_paths_keep_the_exit_code_contract(cli, path):
    args, module, function = SERVICE_PATHS[path]
    env = {"NIC_ADVISOR_SSH_PASSWORD": "not-a-real-secret"}
    unreachable = cli(*args, env=env)  # port 1 refuses: refused input, never a verdict and never a crash
    assert unreachable.code == 2 and "connection refused" in unreachable.err, unreachable.err
    for raised, code in (("RuntimeError('induced fault')", 3), ("KeyboardInterrupt", 130)):
        induce = f"import {module} as m\ndef broken(*a, **k):\n    raise {raised}\nm.{function} = broken\n"
        run = cli(*args, env=env, setup=induce)
        assert run.code == code, (raised, run.err)
        last = run.err.strip().splitlines()[-1]
        if code == 3:
            assert last.startswith("nic-advisor: internal error, not a verdict (RuntimeError: induced fault)")
        else:
            assert last == "nic-advisor: interrupted"
