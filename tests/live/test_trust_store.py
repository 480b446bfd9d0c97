"""Issue 29 §15: ``SSL_CERT_FILE`` was trusted but ``REQUESTS_CA_BUNDLE`` ignored, and no message said which trust
store decided. Both are honoured the same way (``SSL_CERT_FILE`` first, as before) and the message of
a certificate not trusted names the store. A real TLS server on loopback (tests/tls_servers.py) whose certificate a
test CA signed."""
from __future__ import annotations

import pytest

from tls_servers import SlowServer
from nicadvisor.collect.tls_pinning import UntrustedCertificateError, ssl_context_for


@pytest.fixture
def server(tmp_path, monkeypatch):
    for var in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(var, raising=False)
    with SlowServer(tmp_path) as s:
        yield s


@pytest.mark.parametrize("var", ["REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"])
def test_either_variable_names_the_ca_bundle_that_verifies(server, monkeypatch, var):
    monkeypatch.setenv(var, server.ca_file)
    _ctx, trust = ssl_context_for("127.0.0.1", server.port, timeout=10)
    assert trust.mode == "ca"


def test_the_message_names_the_trust_store(server, monkeypatch, tmp_path):
    with pytest.raises(UntrustedCertificateError, match=r"is not trusted by the system CA store \("):
        ssl_context_for("127.0.0.1", server.port, timeout=10)
    other = tmp_path / "other-ca.pem"
    other.write_text(_another_ca())
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    with pytest.raises(UntrustedCertificateError, match=rf"not trusted by the CA bundle {other} \(\$SSL_CERT_FILE\)"):
        ssl_context_for("127.0.0.1", server.port, timeout=10)


def _another_ca() -> str:
    import trustme

    return trustme.CA().cert_pem.bytes().decode()
