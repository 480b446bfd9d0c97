"""Read-only Redfish client for a server's BMC: its PCIe devices, their link and their functions.

The HTTP client is DMTF's ``redfish`` library (python-redfish-library, ``redfish.redfish_client``); this module
only gives it the TLS adapter and walks the resources. Only ``GET`` requests are sent; the credentials go as HTTP
Basic on each request (no session is created on the BMC, nothing is left behind).

* **TLS** — the rules of the vCenter and NSX clients (:mod:`nicadvisor.collect.tls_pinning`): verified by default
  against ``ca_bundle`` or the system CA store (host name checked); a self-signed certificate only when its
  SHA-256 thumbprint is pinned (``thumbprint``, or the pin stored for ``host:port`` in ``pins``): the session then
  trusts exactly that certificate and urllib3 compares its digest on every connection; a certificate that differs
  from the pin is refused (``PinChangedError``'s message: both thumbprints, how to re-pin). The library's own
  ``verify`` switch (off unless it is given a CA file) is overridden by the adapters: verification is never off.
* **Size** — an answer larger than :data:`MAX_ANSWER_BYTES` is refused while it is read.
* **Time** — every request is bounded as a whole by ``timeout_s`` (:func:`nicadvisor.collect.deadline.deadline`:
  connect, TLS, request and the complete answer) and the library retries nothing (``max_retry=0``); the whole walk
  by :data:`READ_BUDGET_TIMEOUTS` × ``timeout_s`` (a BMC answering each of 2,000 resources just within the timeout
  would hold the audit for hours): past it the walk stops with a note and what was read is used.
* **Where** — only the BMC: a link (``@odata.id``) is followed only when it is a path on the BMC (``/…``; the
  library puts it after ``https://host:port``, so ``@other:443/…`` would name another server), and a redirect only
  to the same scheme, host and port; anything else is a note. Each resource is asked for once, however often it is
  linked (a link loop costs one request).
* **What is read** — ``/redfish/v1`` → ``Chassis`` → each chassis' ``PCIeDevices`` → each device → its
  ``PCIeFunctions`` (or ``Links.PCIeFunctions``) → each function; and each ``Systems`` member's ``PCIeDevices``
  array (ComputerSystem v1.x lists them there). A collection split into pages is read page after page
  (``Members@odata.nextLink``, DSP0266 "Resource collections"; a page linking back ends the chain with a note).
  At most :data:`MAX_RESOURCES` resources.

The payloads are read by the pure parser :mod:`nicadvisor.parsers.api.redfish`.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from nicadvisor.cancel import check
from nicadvisor.collect.deadline import VerifiedAdapter, deadline
from nicadvisor.collect.https_trust import (
    PinnedAdapter,
    TrustSetupError,
    is_verify_failure,
    reason,
    trusted_adapter,
    untrusted_message,
)
from nicadvisor.collect.tls_pinning import TrustDecision
from nicadvisor.collect.tls_pins import TlsPins
from nicadvisor.model.entities import clip
from nicadvisor.model.text import one_line
from nicadvisor.parsers.api.redfish import RedfishPcieDevice, links, load_payload, parse_device, parse_function

#: Most resources read from one BMC (a server lists tens of PCIe devices; bounded work on a hostile service).
MAX_RESOURCES = 2000
#: Largest answer read (bytes): a Redfish resource is a few kB; a larger one is refused while it is read.
MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: The whole walk of one BMC takes at most this many request timeouts (300 s at the default 15 s).
READ_BUDGET_TIMEOUTS = 20
#: Longest link (``@odata.id``) followed: a Redfish URI is a short path.
MAX_LINK_CHARS = 1024
#: Longest message of a failed read (the library quotes a whole answer that is not JSON in its exception).
MAX_MESSAGE_CHARS = 300

# The library logs a service root that is not JSON whole, as it came (escape sequences included), at ERROR: with no
# handler of its own Python's last-resort handler would print it on stderr. What went wrong is in RedfishError.
logging.getLogger("redfish").addHandler(logging.NullHandler())


class RedfishError(Exception):
    """The BMC could not be read: the message is for the user (no secrets)."""


class _NotFollowed(RedfishError):
    """One resource not read (a redirect to another server): a note, the walk goes on."""


@dataclass(frozen=True)
class RedfishTarget:
    """A BMC to read for ``for_host`` (the audited host, by the name the audit knows it).

    ``url`` is ``https://bmc[:port]`` (``http`` is refused: the credentials would travel in clear text); ``user`` /
    ``password`` (never logged, hidden from ``repr``); ``thumbprint`` pins a self-signed certificate (SHA-256, any
    case/separator); ``ca_bundle`` a PEM file of CAs instead of the system store; ``timeout_s`` bounds each request
    as a whole, in seconds; ``pins`` the TLS pin store (its pin for this BMC applies when ``thumbprint`` is not
    given; an explicit one is saved after a successful read)."""

    url: str
    for_host: str
    user: str
    password: str = field(repr=False)
    thumbprint: str | None = None
    ca_bundle: str | None = None
    timeout_s: float = 15.0
    pins: TlsPins | None = field(default=None, repr=False, compare=False)

    @property
    def source(self) -> str:
        """How reports name this BMC: ``redfish://host[:port]`` (never a user or password)."""
        parts = urlsplit(self.url if "://" in self.url else f"https://{self.url}")
        port = parts.port or 443
        return f"redfish://{parts.hostname}" + ("" if port == 443 else f":{port}")


@dataclass
class RedfishReading:
    """What one BMC gave: its PCIe ``devices`` (with their functions), ``notes`` about resources not read,
    ``trust`` (how the certificate was trusted) and ``requests`` (the paths read, in order)."""

    target: RedfishTarget
    devices: list[RedfishPcieDevice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trust: TrustDecision | None = None
    requests: list[str] = field(default_factory=list)


def _capped(response, *_args, **_kwargs):  # noqa: ANN001 - a requests response hook
    """Read the body of ``response`` here, at most :data:`MAX_ANSWER_BYTES` (requests would read all of it)."""
    data = bytearray()
    for chunk in response.iter_content(65536):
        data += chunk
        if len(data) > MAX_ANSWER_BYTES:
            response.close()
            raise RedfishError(f"the answer to GET {response.request.path_url} is larger than {MAX_ANSWER_BYTES} "
                               "bytes: not a Redfish resource, not read")
    response._content = bytes(data)  # what requests keeps once it read the body itself
    return response


def _origin(url: str) -> tuple[str, str | None, int | None, str | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else None)
    except ValueError:  # a port that is no number
        port = -1
    return parts.scheme.lower(), parts.hostname, port, parts.username


def _same_server(response, *_args, **_kwargs):  # noqa: ANN001 - a requests response hook
    """Refuse a redirect to another scheme, host or port than the BMC's (requests would follow it, in clear text
    for ``http``): a BMC answers for itself."""
    if response.is_redirect:
        target = urljoin(response.url, response.headers.get("location", ""))
        if _origin(target) != _origin(response.url):
            shown = clip(_origin(target)[1] or target, 200)
            port = _origin(target)[2]
            response.close()
            raise _NotFollowed(f"GET {clip(response.request.path_url, 200)}: redirected to another server "
                               f"({shown}{f':{port}' if port else ''}): not followed")
    return response


def link_problem(path: str, host: str, port: int) -> str | None:
    """Why the link ``path`` (an ``@odata.id``) is not followed on the BMC ``host:port``, None when it is a path on
    it. The library requests ``https://host:port`` + ``path``."""
    if not path.startswith("/") or len(path) > MAX_LINK_CHARS or not path.isprintable() or not path.isascii() \
            or " " in path:
        return "not a path on this BMC"
    if _origin(f"https://{host}:{port}{path.replace('//', '/')}") != ("https", host.lower(), port, None):
        return "not a path on this BMC"
    return None


class _AlwaysVerify:
    """Mixin for the adapters: the pool is built verifying whatever ``verify`` the library passes (it passes
    ``False`` without a CA file); trust comes from the adapter's context alone."""

    def build_connection_pool_key_attributes(self, request, verify, cert=None):  # noqa: ANN001 - requests' signature
        return super().build_connection_pool_key_attributes(request, True, cert)  # type: ignore[misc]


class _Verified(_AlwaysVerify, VerifiedAdapter):
    pass


class _Pinned(_AlwaysVerify, PinnedAdapter):
    pass


def _failure(target: RedfishTarget, host: str, port: int, trust: TrustDecision, exc: BaseException) -> RedfishError:
    cause = exc.__cause__ or exc
    if isinstance(cause, RedfishError):
        return RedfishError(f"{host}:{port}: {cause}")
    if isinstance(cause, RecursionError):  # the library's service root parser
        return RedfishError(f"{host}:{port}: the service root is JSON nested deeper than Python's recursion limit: "
                            "not a Redfish service")
    if is_verify_failure(cause):
        return RedfishError(untrusted_message(host, port, trust, target.timeout_s, target.pins, target.ca_bundle,
                                              cause))
    if isinstance(cause, TimeoutError) or "timed out" in str(cause).lower():
        return RedfishError(f"{host}:{port}: no answer within {target.timeout_s:g} s (timeout)")
    first = (reason(cause).strip().splitlines() or [type(cause).__name__])[0]  # not the answer the library quotes
    return RedfishError(f"{host}:{port}: cannot read the BMC: {clip(one_line(first), MAX_MESSAGE_CHARS)}")


def read_bmc(target: RedfishTarget, cancel: threading.Event | None = None) -> RedfishReading:
    """Read the PCIe devices of the BMC ``target`` (see the module docstring). Raises RedfishError (unreachable,
    certificate not trusted or changed, credentials refused, no service root); a resource that cannot be read
    becomes a note and the walk goes on. Raises :class:`nicadvisor.cancel.Cancelled` when ``cancel`` is set."""
    import redfish
    from redfish.rest.v1 import AuthMethod, InvalidCredentialsError

    parts = urlsplit(target.url.strip() if "://" in target.url else f"https://{target.url.strip()}")
    if parts.scheme.lower() != "https":
        raise RedfishError(f"{target.url}: only https is supported (the credentials would travel in clear text)")
    if not parts.hostname:
        raise RedfishError(f"{target.url}: no host name in the URL")
    host, port = parts.hostname, parts.port or 443
    try:
        adapter, trust = trusted_adapter(host, port, target.thumbprint, target.ca_bundle, target.timeout_s,
                                         target.pins, (_Pinned, _Verified))
    except TrustSetupError as exc:
        raise RedfishError(str(exc)) from exc
    reading = RedfishReading(target, trust=trust)
    client = redfish.redfish_client(base_url=f"https://{host}:{port}", username=target.user,
                                    password=target.password, timeout=target.timeout_s, max_retry=0,
                                    check_connectivity=False, https_adapter=adapter)
    client._session.trust_env = False  # no proxy / netrc / CA bundle from the environment
    client._session.hooks["response"] += [_same_server, _capped]  # only the BMC; bounded memory, whatever it sends
    read: dict[str, dict | None] = {}  # path → payload: each resource once, however often it is linked
    capped: list[bool] = []

    budget_ends = time.monotonic() + READ_BUDGET_TIMEOUTS * target.timeout_s

    def get(path: str) -> dict | None:
        check(cancel)
        if path in read:
            return read[path]
        over_time = time.monotonic() > budget_ends
        if len(reading.requests) >= MAX_RESOURCES or over_time:
            if not capped:
                capped.append(True)
                reading.notes.append(f"stopped after {len(reading.requests)} resources" + (
                    f" and {READ_BUDGET_TIMEOUTS * target.timeout_s:g} s (the BMC answers slowly)" if over_time
                    else ""))
            return None
        read[path] = None
        if (why := link_problem(path, host, port)) is not None:
            reading.notes.append(f"link {clip(path, 200)!r}: {why}: not followed")
            return None
        reading.requests.append(path)
        try:
            with deadline(target.timeout_s):
                resp = client.get(path)
        except Exception as exc:  # noqa: BLE001 - the library wraps every transport error (RetriesExhaustedError)
            if isinstance(exc.__cause__, _NotFollowed):
                reading.notes.append(str(exc.__cause__))  # this resource only: the walk goes on
                return None
            raise _failure(target, host, port, trust, exc) from None
        if resp.status == 401:
            raise RedfishError(f"{host}:{port}: GET {path}: not authenticated (HTTP 401) for user {target.user!r}")
        if resp.status != 200:
            reading.notes.append(f"GET {path}: HTTP {resp.status}")
            return None
        value, why = load_payload(resp.text)
        if why:
            reading.notes.append(f"GET {path}: {why}")
        read[path] = value
        return value

    def members(path: str) -> list[str]:
        # A collection's member links, page after page: a service may split a long collection and link the next
        # page in "Members@odata.nextLink" (DMTF DSP0266, Redfish Specification, "Resource collections"). A page
        # already read ends the chain (a link loop), and get()'s budget bounds how many pages are read.
        found: list[str] = []
        pages: set[str] = set()
        page: str | None = path
        while page is not None and page not in pages:
            pages.add(page)
            payload = get(page) or {}
            found += links(payload, "Members")
            following = payload.get("Members@odata.nextLink")
            page = following if isinstance(following, str) and following else None
        if page is not None:
            reading.notes.append(f"{clip(path, 200)}: its pages link back to {clip(page, 200)!r}: not followed again")
        return found

    try:
        try:
            with deadline(target.timeout_s):
                client.get_root_object()
                client.login(auth=AuthMethod.BASIC)
        except InvalidCredentialsError:
            raise RedfishError(f"{host}:{port}: the BMC refused the credentials of user {target.user!r} "
                               "(HTTP 401)") from None
        except RedfishError:
            raise
        except Exception as exc:  # noqa: BLE001 - see get()
            raise _failure(target, host, port, trust, exc) from None
        root = get("/redfish/v1") or {}
        device_paths: list[str] = []
        for coll in links(root, "Chassis"):
            for chassis in members(coll):
                for devices in links(get(chassis) or {}, "PCIeDevices"):
                    device_paths += members(devices)
        for coll in links(root, "Systems"):
            for system in members(coll):
                payload = get(system) or {}
                value = payload.get("PCIeDevices")
                if isinstance(value, list):
                    device_paths += links(payload, "PCIeDevices")
                else:  # a collection link (newer services)
                    for devices in links(payload, "PCIeDevices"):
                        device_paths += members(devices)
        for path in dict.fromkeys(device_paths):
            payload = get(path)
            if payload is None:
                continue
            fpaths = [m for c in links(payload, "PCIeFunctions") for m in members(c)]
            fpaths += links(payload.get("Links") if isinstance(payload.get("Links"), dict) else {}, "PCIeFunctions")
            functions = [parse_function(f) for f in (get(p) for p in dict.fromkeys(fpaths)) if f is not None]
            device = parse_device(payload, functions)
            device.odata_id = device.odata_id or path
            reading.devices.append(device)
    finally:
        client._session.close()
    if target.pins is not None:
        target.pins.remember(host, port, trust)  # an explicit pin, once the read succeeded (never raises)
    return reading
