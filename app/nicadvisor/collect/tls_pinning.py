"""TLS trust for live connections (vCenter / ESXi): verified by default, self-signed only when pinned.

Policy:

* **Default**: the server certificate must verify against the system CA store (and its host name);
  :func:`ssl_context_for` probes the server once, and an unverifiable certificate raises
  :class:`UntrustedCertificateError` whose message shows the SHA-256 thumbprint, so the user can check
  it out of band and pin it.
* **Pinned** (``thumbprint="AA:BB:…"``, SHA-256 of the DER certificate, as vCenter shows it): the peer
  certificate is fetched, its SHA-256 digest compared with the pin in constant time
  (:func:`hmac.compare_digest`), and the returned context trusts exactly that certificate (loaded as
  ``cadata``; the pin, not the name, identifies the server, so the host-name check is off). A
  different certificate raises :class:`ThumbprintMismatchError` showing expected and actual
  thumbprints. Because the context trusts only the pinned certificate, a server that swaps its
  certificate between the check and the connection fails the handshake.
* **Stored pin** (``pins``, a :class:`~nicadvisor.collect.tls_pins.TlsPins` store): without an explicit
  thumbprint, the pin saved for ``host:port`` after an earlier successful connection is applied the same
  way. A certificate that differs from it raises :class:`PinChangedError`, whose message shows the stored
  and the presented thumbprints and how to re-pin (``--thumbprint host:port=<new>`` after checking it).
  Precedence: explicit thumbprint > stored pin > insecure opt-in > system CA store.
* **Insecure** (explicit opt-in): whatever certificate the server presents is pinned for this
  session only (trust on first use); the caller must log and mark the result. Verification is never
  switched off in this module.

No pyVmomi here; plain :mod:`ssl`/:mod:`socket`. Every network call takes a timeout in seconds. The pin store, the
thumbprint format (``normalize_thumbprint``) and :class:`~nicadvisor.collect.tls_pins.TrustDecision` are in
:mod:`nicadvisor.collect.tls_pins`, which imports nothing from here.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import socket
import ssl

from nicadvisor.collect.tls_pins import TlsPins, TrustDecision, normalize_thumbprint


class TlsTrustError(ssl.SSLError):
    """Base of the trust errors below (an :class:`ssl.SSLError`, so callers catching that see it)."""

    def __str__(self) -> str:  # ssl.SSLError.__str__ prints the args tuple; show the message only
        return self.args[0] if self.args else super().__str__()


class UntrustedCertificateError(TlsTrustError):
    """The server's certificate does not verify against the system CA store and no thumbprint is pinned.

    ``thumbprint`` is the SHA-256 thumbprint of the certificate presented (``"AA:BB:…"``) or None when
    it could not be fetched; ``reason`` is the verification error (``self-signed certificate``).
    """

    def __init__(self, host: str, port: int, thumbprint: str | None, reason: str) -> None:
        self.host, self.port, self.thumbprint, self.reason = host, port, thumbprint, reason
        shown = thumbprint or "(could not be read)"
        super().__init__(
            f"{host}:{port}: the TLS certificate is not trusted by {trust_store()[1]} ({reason}). Its SHA-256 "
            "thumbprint is "
            f"{shown}. Check it against the one shown by the server console or vCenter, then pin it "
            f"(--thumbprint {shown}) to connect.")


class ThumbprintMismatchError(TlsTrustError):
    """The certificate presented does not match the pinned SHA-256 thumbprint (``expected``/``actual``)."""

    def __init__(self, host: str, port: int, expected: str, actual: str, message: str | None = None) -> None:
        self.host, self.port, self.expected, self.actual = host, port, expected, actual
        super().__init__(message or (
            f"{host}:{port}: certificate thumbprint mismatch: expected SHA-256 {expected}, the server "
            f"presented {actual}. The certificate changed or another server answers; connection refused."))


class PinChangedError(ThumbprintMismatchError):
    """The certificate differs from the pin STORED for this server (``expected`` = stored thumbprint,
    ``actual`` = presented, ``store_path`` = the pin file): refused; the message says how to re-pin."""

    def __init__(self, host: str, port: int, stored: str, actual: str, store_path: str) -> None:
        self.store_path = store_path
        super().__init__(host, port, stored, actual, (
            f"{host}:{port}: the TLS certificate has CHANGED since it was pinned: stored SHA-256 {stored} "
            f"(in {store_path}), the server now presents {actual}. The connection was refused (a replaced "
            f"certificate, or another server answering in its place). If the certificate was replaced on "
            f"purpose, check the new thumbprint against the server console or vCenter, then re-pin it with "
            f"--thumbprint {host}:{port}={actual} (or accept it again in the app)."))


def thumbprint_of(der: bytes) -> str:
    """SHA-256 thumbprint ``"AA:BB:…"`` of a DER-encoded certificate."""
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def fetch_certificate(host: str, port: int = 443, timeout: float = 10.0) -> bytes:
    """The DER certificate the server presents (not verified: only to show or compare it).

    Raises OSError (connection refused, timeout) or ssl.SSLError (no TLS on that port).
    """
    pem = ssl.get_server_certificate((host, port), timeout=timeout)
    return ssl.PEM_cert_to_DER_cert(pem)


def fetch_thumbprint(host: str, port: int = 443, timeout: float = 10.0) -> str:
    """SHA-256 thumbprint (``"AA:BB:…"``) of the certificate ``host:port`` presents, for the UI's trust
    dialog. Raises OSError / ssl.SSLError as :func:`fetch_certificate`."""
    return thumbprint_of(fetch_certificate(host, port, timeout))


def pinned_context(der: bytes) -> ssl.SSLContext:
    """A client context that trusts exactly the certificate ``der`` (and nothing from the system store).

    Partial-chain verification is on so a CA-issued leaf can be pinned too; the host-name check is
    off because the pin identifies the server. Verification itself stays required.
    """
    ctx = ssl.create_default_context(cadata=ssl.DER_cert_to_PEM_cert(der))
    ctx.check_hostname = False
    ctx.verify_flags |= getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
    ctx.verify_flags &= ~getattr(ssl, "VERIFY_X509_STRICT", 0)
    return ctx


def _probe(host: str, port: int, ctx: ssl.SSLContext, timeout: float) -> None:
    """One TLS handshake with ``ctx``; raises ssl.SSLCertVerificationError when it does not verify."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        with ctx.wrap_socket(sock, server_hostname=host):
            return


def pin_broken(host: str, port: int, trust: TrustDecision, timeout: float,
               pins: "TlsPins | None" = None) -> PinChangedError:
    """The error of a connection made with a pinned context (``trust``) whose handshake presented another
    certificate than the pinned one — replaced since the check, or another node of a cluster answering —: the
    certificate has CHANGED (never "not trusted … pin it", which would invite pinning the intruder's). Names the
    pinned thumbprint and the one presented now (fetched again; ``(could not be read)`` when it cannot be)."""
    try:
        shown = fetch_thumbprint(host, port, timeout)
    except (OSError, ssl.SSLError):
        shown = "(could not be read)"
    where = str(pins.path) if trust.stored and pins is not None else "the --thumbprint given"
    return PinChangedError(host, port, trust.thumbprint or "(unknown)", shown, where)


def stored_pin(pins: "TlsPins | None", host: str, port: int) -> str | None:
    """The pin stored for ``host:port`` in ``pins`` (None without a store or a pin). Raises
    :class:`TlsTrustError` when the store file exists but cannot be read (fail closed: the connection
    is not made rather than made without the pin)."""
    if pins is None:
        return None
    try:
        return pins.get(host, port)
    except OSError as exc:
        raise TlsTrustError(f"{host}:{port}: cannot read the pinned certificates in {pins.path}: "
                            f"{exc.strerror or exc}") from exc


#: The variables naming a CA bundle to verify with, in the order they count: SSL_CERT_FILE (OpenSSL's, honoured
#: before), then REQUESTS_CA_BUNDLE (requests'). Both are honoured the same way by every connection (issue 29 §15).
CA_BUNDLE_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


def trust_store() -> tuple[str | None, str]:
    """``(CA file, words)``: the CA bundle certificates are verified with when nothing is pinned —
    ``$SSL_CERT_FILE``, else ``$REQUESTS_CA_BUNDLE`` (that file alone), else None for OpenSSL's default store —
    and how to name it in a message (``the CA bundle /etc/ca.pem ($REQUESTS_CA_BUNDLE)``, ``the system CA store
    (/usr/lib/ssl/certs)``)."""
    for var in CA_BUNDLE_VARIABLES:
        value = os.environ.get(var)
        if value:
            return value, f"the CA bundle {value} (${var})"
    paths = ssl.get_default_verify_paths()
    where = paths.openssl_cafile if os.path.exists(paths.openssl_cafile) else paths.openssl_capath
    return None, f"the system CA store ({where})"


def ssl_context_for(host: str, port: int = 443, thumbprint: str | None = None, insecure: bool = False,
                    timeout: float = 30.0, pins: "TlsPins | None" = None) -> tuple[ssl.SSLContext, TrustDecision]:
    """The SSLContext to reach ``host:port`` under the policy of this module, and how it was trusted.

    ``pins`` is the pin store (:class:`~nicadvisor.collect.tls_pins.TlsPins`); it is only read here (the
    caller saves an explicit pin after its connection succeeded, :meth:`TlsPins.remember`). Precedence:
    ``thumbprint`` > the stored pin > ``insecure`` > system CA store.

    Raises ThumbprintMismatchError (pin given, different certificate), PinChangedError (its subclass:
    certificate differs from the stored pin), UntrustedCertificateError (no pin, certificate does not
    verify; message shows its thumbprint), TlsTrustError (pin store unreadable), ValueError (malformed
    pin), OSError (unreachable, timeout) or ssl.SSLError (TLS failure).
    """
    saved = None if thumbprint else stored_pin(pins, host, port)
    if thumbprint or saved:
        expected = normalize_thumbprint(thumbprint or saved or "")
        der = fetch_certificate(host, port, timeout)
        actual = thumbprint_of(der)
        if not hmac.compare_digest(expected.encode(), actual.encode()):
            if saved and pins is not None:
                raise PinChangedError(host, port, expected, actual, str(pins.path))
            raise ThumbprintMismatchError(host, port, expected, actual)
        return pinned_context(der), TrustDecision("pinned", actual, stored=bool(saved))
    if insecure:
        der = fetch_certificate(host, port, timeout)
        return pinned_context(der), TrustDecision("insecure", thumbprint_of(der))
    ctx = ssl.create_default_context(cafile=trust_store()[0])  # the same store every connection names
    try:
        _probe(host, port, ctx, timeout)
    except ssl.SSLCertVerificationError as exc:
        reason = exc.verify_message or str(exc)
        try:
            shown: str | None = fetch_thumbprint(host, port, timeout)
        except (OSError, ssl.SSLError):
            shown = None
        raise UntrustedCertificateError(host, port, shown, reason) from exc
    return ctx, TrustDecision("ca", None)
