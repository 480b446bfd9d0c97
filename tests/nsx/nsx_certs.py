"""Certificates for the local NSX stand-in (shared by tests/nsx, tests/e2e, tests/faults): a trustme CA issuing a 127.0.0.1 certificate (trusted via
``ca_bundle``), and a self-signed certificate for another name, as NSX ships by default."""
from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID



@dataclass(frozen=True)
class ServerCert:
    """A server certificate: ``ctx`` (server SSLContext), ``thumbprint`` (SHA-256 ``AA:BB:…`` of the
    leaf), ``ca_bundle`` (PEM file that trusts it, None for a self-signed one not to be trusted)."""

    ctx: object
    thumbprint: str
    ca_bundle: str | None


def thumb(der: bytes) -> str:
    h = hashlib.sha256(der).hexdigest().upper()
    return ":".join(h[i:i + 2] for i in range(0, 64, 2))


def self_signed(name: str) -> tuple[bytes, bytes, bytes]:
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
