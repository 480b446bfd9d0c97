"""Issue 20 §4: an NSX Manager that sends one byte every few seconds kept a ``--timeout 10`` audit running past
150 s: each read got its byte within the socket timeout. ``--timeout`` now bounds each call as a whole (connect,
TLS, request and the complete answer) for NSX, vCenter and the guide download. A real slow HTTPS server on loopback
(tests/tls_servers.py) answers one byte a second; each run must end — with the timeout named — inside the hostile
child's hang guard, where before it would have read for 100,000 seconds (no timing claim: ending at all is the
proof, on a loaded machine too)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tls_servers import SlowServer

TIMEOUT = "2"
HANG_SECONDS = 240  # the wall-clock hang guard of the hostile children (conftest.py)


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
    run = cli("audit", "--no-history", "--quiet", flag, slow.url, "--user", "auditor",
              "--thumbprint", f"127.0.0.1:{slow.port}={slow.thumbprint}", "--timeout", TIMEOUT,
              env={password_env: "not-a-real-secret"})
    assert run.code == 2
    assert said in run.err and f"127.0.0.1:{slow.port}" in run.err, run.err
    assert any(r.startswith(asked) for r in slow.requests)


def test_the_guide_download_answered_byte_by_byte_ends_at_the_timeout(cli, slow):
    run = cli("vcg", "fetch", "--url", f"{slow.url}/service/vsan/all.json", "--ca-file", slow.ca_file,
              "--timeout", TIMEOUT)
    assert run.code == 2
    assert f"{slow.url}/service/vsan/all.json: no answer within {TIMEOUT} s" in run.err


#: The wizard's "Test connection" and "Browse hosts" (services/connection.py), run in a child bounded as the CLI's.
_PROBE = """
import json, sys
from nicadvisor.services.connection import browse_vcenter, check_nsx, check_vcenter
from nicadvisor.services.targets import NsxEntry, VcenterEntry
check, url, thumbprint = sys.argv[1:4]
password = lambda *_a, **_k: "not-a-real-secret"
if check == "check_nsx":
    result = check_nsx(NsxEntry(url, "auditor", thumbprint), password, timeout={timeout})
elif check == "check_vcenter":
    result = check_vcenter(VcenterEntry(url, "auditor", thumbprint), password, timeout={timeout})
else:
    result = browse_vcenter(VcenterEntry(url, "auditor", thumbprint), password, timeout={timeout})
print(json.dumps([result.ok, result.message]))
"""


@pytest.mark.parametrize("check, said", [
    ("check_nsx", "no answer to POST /api/session/create within 2 s (timeout)"),
    ("check_vcenter", "no answer within 2 s"),
    ("browse_vcenter", "no answer within 2 s"),
])
def test_test_connection_of_a_manager_answering_byte_by_byte_ends_at_the_timeout(slow, tmp_path, check, said):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}  # a pin store of this test's own
    run = subprocess.run([sys.executable, "-c", _PROBE.format(timeout=TIMEOUT), check, slow.url, slow.thumbprint],
                         capture_output=True, text=True, timeout=HANG_SECONDS, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    ok, message = json.loads(run.stdout)
    assert not ok and said in message and f"127.0.0.1:{slow.port}" in message, message
