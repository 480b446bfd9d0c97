"""HTTPS trust for the requests-based clients (NSX Manager, a server's BMC over Redfish): the adapter that applies
the policy of :mod:`nicadvisor.collect.tls_pinning` to a ``requests`` session, and the messages of a certificate that
is not trusted or has changed. Verified by default (``ca_bundle`` or the system CA store, host name checked); a
self-signed certificate only when its SHA-256 thumbprint is pinned (given, or stored for ``host:port``); never
switched off."""
from __future__ import annotations

import ssl

from requests.adapters import HTTPAdapter

from nicadvisor.collect.deadline import VerifiedAdapter, bounded
from nicadvisor.collect.tls_pinning import (
    ThumbprintMismatchError,
    TlsTrustError,
    TrustDecision,
    UntrustedCertificateError,
    fetch_thumbprint,
    normalize_thumbprint,
    pin_broken,
    ssl_context_for,
    stored_pin,
)
from nicadvisor.collect.tls_pins import TlsPins


class TrustSetupError(Exception):
    """The trust of a server could not be set up (bad or mismatching pin, unreadable pin store, certificate not
    readable): the message is for the user."""


class PinnedAdapter(HTTPAdapter):
    """HTTPS adapter that trusts exactly one certificate: ``ssl_context`` holds only the pinned
    certificate, urllib3 checks the peer certificate's SHA-256 digest (``assert_fingerprint``) on
    every connection, and no CA bundle is added (the pin, not a name, identifies the server)."""

    def __init__(self, context: ssl.SSLContext, fingerprint: str) -> None:
        self._context, self._fingerprint = context, fingerprint
        super().__init__(max_retries=0)

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):  # noqa: ANN001 - requests' signature
        pool_kwargs.update(ssl_context=self._context, assert_fingerprint=self._fingerprint, assert_hostname=False)
        super().init_poolmanager(connections, maxsize, block=block, **pool_kwargs)

    def cert_verify(self, conn, url, verify, cert):  # noqa: ANN001 - requests' signature
        conn.cert_reqs = "CERT_REQUIRED"
        conn.ca_certs = None
        conn.ca_cert_dir = None



def trusted_adapter(host: str, port: int, thumbprint: str | None, ca_bundle: str | None, timeout_s: float,
                    pins: TlsPins | None, adapters: tuple[type, type] = (PinnedAdapter, VerifiedAdapter)
                    ) -> tuple[HTTPAdapter, TrustDecision]:
    """The HTTPS adapter for ``host:port`` and how its certificate is trusted: an explicit ``thumbprint`` > the pin
    stored in ``pins`` > ``ca_bundle`` or the system CA store. ``adapters``: the (pinned, verified) adapter classes
    (subclasses of :class:`PinnedAdapter` / :class:`~nicadvisor.collect.deadline.VerifiedAdapter`). The decision's
    ``mode`` is ``pinned`` or ``ca``. Raises :class:`TrustSetupError`."""
    netloc = host if port == 443 else f"{host}:{port}"
    try:  # explicit pin > pin stored for this server > CA
        saved = None if thumbprint else stored_pin(pins, host, port)
    except TlsTrustError as exc:
        raise TrustSetupError(str(exc)) from exc
    if thumbprint or saved:
        try:
            fingerprint = normalize_thumbprint(thumbprint) if thumbprint else None
            ctx, trust = ssl_context_for(host, port, thumbprint=fingerprint, timeout=timeout_s, pins=pins)
        except ValueError as exc:
            raise TrustSetupError(f"{netloc}: bad thumbprint: {exc}") from exc
        except ThumbprintMismatchError as exc:
            raise TrustSetupError(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            raise TrustSetupError(f"{netloc}: cannot read the TLS certificate: {reason(exc)}") from exc
        if trust.mode == "pinned" and trust.thumbprint:
            return adapters[0](bounded(ctx), trust.thumbprint), trust
    return adapters[1](ca_bundle), TrustDecision("ca", None)


def untrusted_message(host: str, port: int, trust: TrustDecision | None, timeout_s: float, pins: TlsPins | None,
                      ca_bundle: str | None, exc: BaseException) -> str:
    """The message of a handshake whose certificate did not verify: with a pin, the certificate has CHANGED
    (:func:`~nicadvisor.collect.tls_pinning.pin_broken`); else it is not trusted, with its thumbprint to check and
    pin."""
    if trust is not None and trust.mode == "pinned":  # the pinned certificate was replaced
        return str(pin_broken(host, port, trust, timeout_s, pins))
    try:
        shown: str | None = fetch_thumbprint(host, port, timeout_s)
    except (OSError, ssl.SSLError):
        shown = None
    where = f"the CA bundle {ca_bundle}" if ca_bundle else "the system CA store"
    return str(UntrustedCertificateError(host, port, shown, f"{reason(exc)}; not signed by {where}"))


def is_verify_failure(exc: BaseException) -> bool:
    """Whether a certificate verification failure is in the chain of ``exc``."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(e):
            return True
        e = e.__cause__ or e.__context__ or (e.args[0] if e.args and isinstance(e.args[0], BaseException) else None)
    return False


def reason(exc: BaseException) -> str:
    """A short reason from a requests/urllib3 exception chain (the innermost readable message)."""
    e: BaseException = exc
    for _ in range(6):
        inner = getattr(e, "reason", None) or (e.args[0] if e.args and isinstance(e.args[0], BaseException) else None)
        if not isinstance(inner, BaseException):
            break
        e = inner
    if isinstance(e, ssl.SSLCertVerificationError) and e.verify_message:
        return e.verify_message
    return str(e) or type(e).__name__
