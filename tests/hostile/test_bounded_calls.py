"""Issue 20 §4: an NSX Manager that sends one byte every few seconds kept a ``--timeout 10`` audit running past
150 s: each read got its byte within the socket timeout. ``--timeout`` now bounds each call as a whole (connect,
TLS, request and the complete answer) for NSX, vCenter and the guide download. A real slow HTTPS server on loopback
(tests/tls_servers.py) answers one byte a second; each run must end — with the timeout named — well inside the
hostile child's bound (60 s), where before it would have read for 100,000 seconds."""
from __future__ import annotations

import time

import pytest

from tls_servers import SlowServer

TIMEOUT = "2"


@pytest.fixture
def slow(tmp_path):
    with SlowServer(tmp_path) as server:
        yield server


@pytest.mark.parametrize("flag, password_env, said, asked", [
    ("--nsx", "NIC_ADVISOR_NSX_PASSWORD", "no answer to POST /api/session/create within 2 s (timeout)",
     b"POST /api/session/create"),
    ("--vcenter", "NIC_ADVISOR_VCENTER_PASSWORD", "no answer within 2 s", b"GET /sdk/vimServiceVersions.xml"),
])
def test_a_manager_answering_byte_by_byte_ends_at_the_timeout(cli, slow, flag, password_env, said, asked):
    start = time.monotonic()
    run = cli("audit", "--no-history", "--quiet", flag, slow.url, "--user", "auditor",
              "--thumbprint", f"127.0.0.1:{slow.port}={slow.thumbprint}", "--timeout", TIMEOUT,
              env={password_env: "not-a-real-secret"})
    assert run.code == 2
    assert said in run.err and f"127.0.0.1:{slow.port}" in run.err, run.err
    assert any(r.startswith(asked) for r in slow.requests)
    assert time.monotonic() - start < 45  # the server would answer for 100,000 s


def test_the_guide_download_answered_byte_by_byte_ends_at_the_timeout(cli, slow):
    start = time.monotonic()
    run = cli("vcg", "fetch", "--url", f"{slow.url}/service/vsan/all.json", "--ca-file", slow.ca_file,
              "--timeout", TIMEOUT)
    assert run.code == 2
    assert f"{slow.url}/service/vsan/all.json: no answer within {TIMEOUT} s" in run.err
    assert time.monotonic() - start < 45
