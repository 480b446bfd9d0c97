"""Issue 20 §4: trust failures say what they are. A corrupt SSH host-key store names its file (and line) and refuses
the connection, instead of a bare decoding error or treating the host as never seen; a certificate that changed
after it was pinned says CHANGED, not "not trusted … pin it" (which would invite pinning the intruder's). Real TLS
servers on loopback (tests/tls_servers.py), the CLI in the bounded child of conftest.py."""
from __future__ import annotations

import pytest

from tls_servers import CertSwapServer


def _store(xdg):
    path = xdg / "xdg_config_home" / "nic-advisor" / "known_hosts"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("content, words", [
    (b"[127.0.0.1]:1 ssh-ed25519 AAAAC3Nza\xff\xfe\n", "is damaged: line 1 is not UTF-8 text"),
    (b"# mine\n[127.0.0.1]:1 ssh-ed25519 !!!not-base64!!!\n", "is damaged: line 2 ([127.0.0.1]:1) holds no readable key"),
    (b"[127.0.0.1]:1 ssh-ed25519\n", "is damaged: line 1 ([127.0.0.1]:1) holds no readable key"),
])
def test_a_corrupt_known_hosts_names_the_file_and_refuses(cli, xdg, content, words):
    store = _store(xdg)
    store.write_bytes(content)
    run = cli("audit", "--no-history", "--quiet", "--ssh", "auditor@127.0.0.1:1", "--kind", "linux",
              env={"NIC_ADVISOR_SSH_PASSWORD": "not-a-real-secret"})
    assert run.code == 2
    assert f"the SSH host-key store {store} {words}" in run.err, run.err
    assert store.read_bytes() == content  # left as it is


def test_a_known_hosts_that_is_a_folder_names_it(cli, xdg):
    store = _store(xdg)
    store.mkdir()
    run = cli("audit", "--no-history", "--quiet", "--ssh", "auditor@127.0.0.1:1", "--kind", "linux",
              env={"NIC_ADVISOR_SSH_PASSWORD": "not-a-real-secret"})
    assert run.code == 2 and f"the SSH host-key store {store} cannot be read (Is a directory)" in run.err


@pytest.fixture
def swap(tmp_path):
    with CertSwapServer(tmp_path) as server:
        yield server


@pytest.mark.parametrize("flag, password_env", [("--nsx", "NIC_ADVISOR_NSX_PASSWORD"),
                                                ("--vcenter", "NIC_ADVISOR_VCENTER_PASSWORD")])
def test_a_certificate_replaced_after_the_pin_check_is_changed(cli, swap, flag, password_env):
    run = cli("audit", "--no-history", "--quiet", flag, swap.url, "--user", "auditor",
              "--thumbprint", f"127.0.0.1:{swap.port}={swap.first}", "--timeout", "5",
              env={password_env: "not-a-real-secret"})
    assert run.code == 2
    assert (f"127.0.0.1:{swap.port}: the TLS certificate has CHANGED since it was pinned: stored SHA-256 "
            f"{swap.first} (in the --thumbprint given), the server now presents {swap.then}") in run.err, run.err
    assert "is not trusted" not in run.err and "then pin it" not in run.err


@pytest.mark.parametrize("flag, password_env", [("--nsx", "NIC_ADVISOR_NSX_PASSWORD"),
                                                ("--vcenter", "NIC_ADVISOR_VCENTER_PASSWORD")])
def test_a_tls_pin_store_that_is_not_utf8_is_one_sentence(cli, xdg, swap, flag, password_env):
    """Issue 29 §13: it printed a whole traceback as the cause."""
    store = xdg / "xdg_config_home" / "nic-advisor" / "tls_pins"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"# pins\n127.0.0.1:1 AA\xff\xfe\n")
    run = cli("audit", "--no-history", "--quiet", flag, swap.url, "--user", "auditor", "--timeout", "5",
              env={password_env: "not-a-real-secret"})
    assert run.code == 2
    assert f"the TLS pin store {store} is damaged: line 2 is not UTF-8 text; correct or remove that line" in run.err
    assert "Traceback" not in run.err and "UnicodeDecodeError" not in run.err
    assert store.read_bytes() == b"# pins\n127.0.0.1:1 AA\xff\xfe\n"
