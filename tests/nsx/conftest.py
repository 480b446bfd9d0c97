"""Certificates for the local NSX stand-in: a trustme CA issuing a 127.0.0.1 certificate (trusted via
``ca_bundle``), and a self-signed certificate for another name, as NSX ships by default."""
from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from nsx_responder import server_context


@dataclass(frozen=True)
class ServerCert:
    """A server certificate: ``ctx`` (server SSLContext), ``thumbprint`` (SHA-256 ``AA:BB:…`` of the
    leaf), ``ca_bundle`` (PEM file that trusts it, None for a self-signed one not to be trusted)."""

    ctx: object
    thumbprint: str
    ca_bundle: str | None


def _thumb(der: bytes) -> str:
    h = hashlib.sha256(der).hexdigest().upper()
    return ":".join(h[i:i + 2] for i in range(0, 64, 2))


@pytest.fixture(scope="session")
def trusted_cert(tmp_path_factory) -> ServerCert:
    tmp = tmp_path_factory.mktemp("trustme")
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    ctx = server_context(b"".join(b.bytes() for b in leaf.cert_chain_pems), leaf.private_key_pem.bytes(), tmp)
    bundle = tmp / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    der = x509.load_pem_x509_certificate(leaf.cert_chain_pems[0].bytes()).public_bytes(serialization.Encoding.DER)
    return ServerCert(ctx, _thumb(der), str(bundle))


def _self_signed(name: str) -> tuple[bytes, bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem, cert.public_bytes(serialization.Encoding.DER)


@pytest.fixture(scope="session")
def self_signed_cert(tmp_path_factory) -> ServerCert:
    """Self-signed for ``nsxmgr.lab`` (not 127.0.0.1): only a pin can make it trusted."""
    cert_pem, key_pem, der = _self_signed("nsxmgr.lab")
    ctx = server_context(cert_pem, key_pem, tmp_path_factory.mktemp("selfsigned"))
    return ServerCert(ctx, _thumb(der), None)


@pytest.fixture(scope="session")
def other_cert_thumbprint() -> str:
    return _thumb(_self_signed("other.lab")[2])
