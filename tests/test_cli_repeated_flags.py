"""Issue 19 §3: repeated list-valued flags accumulate (``--capture A --capture B`` reads A and B, as ``--capture A B``
does; the earlier paths were dropped without a word), and an SSH banner timeout is one sentence, without paramiko's
traceback on stderr."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading

import pytest

from nicadvisor.cli import build_parser, main
from nicadvisor.paths import demo_lab_dir


def test_repeated_capture_flags_accumulate(tmp_path):
    a, b = demo_lab_dir() / "esxi-hpe-connectx5", demo_lab_dir() / "linux-igb-mfd"
    for i, argv in enumerate((["--capture", str(a), "--capture", str(b)], ["--capture", str(a), str(b)])):
        out = tmp_path / f"{i}.json"
        main(["audit", "--quiet", "--no-history", *argv, "--json", str(out)])
        hosts = sorted(h["name"] for h in json.loads(out.read_text())["hosts"])
        assert hosts == ["esxi-hpe-connectx5", "linux-igb-mfd"], (argv, hosts)


@pytest.mark.parametrize("argv, dest, expected", [
    (["audit", "--capture", "A", "--capture", "B", "C"], "capture", ["A", "B", "C"]),
    (["gui", "--capture", "A", "--capture", "B"], "capture", ["A", "B"]),
    (["bench", "--between", "u@a", "--between", "u@b"], "between", ["u@a", "u@b"]),
    (["bench", "--between", "u@a", "u@b", "--tests", "TCP_RR", "--tests", "TCP_STREAM"], "tests",
     ["TCP_RR", "TCP_STREAM"]),
    (["audit", "--ssh", "u@a", "--ssh", "u@b"], "ssh", ["u@a", "u@b"]),
])
def test_every_list_valued_flag_accumulates(argv, dest, expected):
    assert getattr(build_parser().parse_args(argv), dest) == expected


@pytest.fixture
def silent_server():
    """A TCP listener on loopback that accepts and never sends an SSH banner."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    server.close()


BANNER_PROBE = textwrap.dedent("""
    import dataclasses, sys, tempfile, threading
    from pathlib import Path
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.known_hosts import KnownHosts
    from nicadvisor.collect.ssh import SshTarget, check_connection
    target = dataclasses.replace(SshTarget.parse(f"root@127.0.0.1:{sys.argv[1]}", kind="linux", password="x"),
                                 connect_timeout_s=1.0)
    try:
        check_connection(target, KnownHosts(Path(tempfile.mkdtemp()) / "known_hosts"))
    except ConnectionCheckError as exc:
        print(exc)
    for thread in threading.enumerate():  # paramiko's transport thread logs its failure after the caller gave up:
        if thread is not threading.current_thread():  # its end, not a fixed second, is waited for (deadline 60 s)
            thread.join(60)
""")


def test_an_ssh_banner_timeout_is_one_sentence_without_traceback(silent_server):
    run = subprocess.run([sys.executable, "-c", BANNER_PROBE, str(silent_server)], capture_output=True, text=True,
                         timeout=60)
    message = run.stdout.strip()
    assert message == (f"127.0.0.1:{silent_server} did not send an SSH banner within 1 s: it is not an SSH server, "
                       "or it is overloaded"), message
    assert "Traceback" not in run.stderr and "Error reading SSH protocol banner" not in run.stderr, run.stderr
    assert run.stderr.strip() == ""
