"""Fixtures of the NSX stand-in's certificates (helpers in nsx_certs.py)."""
from __future__ import annotations

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from nsx_certs import ServerCert, self_signed, thumb
from nsx_responder import server_context


@pytest.fixture(scope="session")
def trusted_cert(tmp_path_factory) -> ServerCert:
    tmp = tmp_path_factory.mktemp("trustme")
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    ctx = server_context(b"".join(b.bytes() for b in leaf.cert_chain_pems), leaf.private_key_pem.bytes(), tmp)
    bundle = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    der = x509.load_pem_x509_certificate(leaf.cert_chain_pems[0].bytes()).public_bytes(serialization.Encoding.DER)
    return ServerCert(ctx, thumb(der), str(bundle))


@pytest.fixture(scope="session")
def self_signed_cert(tmp_path_factory) -> ServerCert:
    """Self-signed for ``nsxmgr.lab`` (not 127.0.0.1): only a pin can make it trusted."""
    cert_pem, key_pem, der = self_signed("nsxmgr.lab")
    ctx = server_context(cert_pem, key_pem, tmp_path_factory.mktemp("selfsigned"))
    return ServerCert(ctx, thumb(der), None)


@pytest.fixture(scope="session")
def other_cert_thumbprint() -> str:
    return thumb(self_signed("other.lab")[2])
