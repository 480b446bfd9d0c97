"""Read-only NSX Manager client: transport nodes, their state, uplink profiles, global MTU, version.

Only ``GET`` requests are sent (plus ``POST /api/session/create`` to log in). What is read, and how,
follows ``shared/design/research/nsx-api.md``:

* **Authentication** (§3): session by default — ``POST /api/session/create`` with
  ``j_username``/``j_password`` (form), then the ``JSESSIONID`` cookie and the ``X-XSRF-TOKEN`` header
  on every request; when the session expires NSX answers ``403`` with ``error_code`` 98, and the client
  logs in again once and repeats the request. ``auth="basic"`` sends HTTP Basic on every request. The
  password is never logged, never put in a message, and not shown by ``repr``.
* **TLS**: verified by default, against ``ca_bundle`` when given, else the system CA store (host name
  checked). A self-signed NSX certificate is accepted **only** when its SHA-256 thumbprint is pinned
  (``thumbprint``): the session then trusts exactly that certificate (context from
  :mod:`nicadvisor.collect.tls_pinning`) and urllib3 compares the peer certificate's SHA-256 digest on
  every connection. An untrusted certificate is refused with its thumbprint in the message so the
  user can check it and pin it. Verification is never switched off.
* **Paging** (§4): list calls follow ``cursor`` until a page has none.
* **Requests**: ``timeout_s`` bounds every one as a whole — connect, TLS, request and the complete answer
  (:mod:`nicadvisor.collect.deadline`: a manager sending one byte every 3 s cannot hold it longer);
  ``429``/``503`` are retried twice after a short back-off;
  ``Cancelled`` (:mod:`nicadvisor.cancel`) is raised between requests when ``cancel`` is set.

Endpoints read: ``/api/v1/node/version``, ``/api/v1/transport-nodes`` (edges kept out),
``/api/v1/transport-nodes/<id>/state`` per host, ``/api/v1/host-switch-profiles`` (with
``include_system_owned=true``; referenced profiles missing from the list are read by id),
``/api/v1/global-configs/SwitchingGlobalConfig`` (falling back to the ``/api/v1/global-configs``
list), ``/api/v1/transport-zones``. The facts come from the pure parser
:mod:`nicadvisor.parsers.api.nsx`.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from nicadvisor.cancel import check
from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.collect.deadline import deadline
from nicadvisor.collect.https_trust import TrustSetupError, is_verify_failure as _is_verify_failure
from nicadvisor.collect.https_trust import reason as _reason, trusted_adapter, untrusted_message
from nicadvisor.collect.tls_pinning import TrustDecision
from nicadvisor.collect.tls_pins import TlsPins
from nicadvisor.model import InputProblem
from nicadvisor.parsers.api.nsx import (
    NsxInventory,
    build_inventory,
    host_results,
    load_json,
    parse_transport_nodes,
    parse_uplink_profiles,
)

SESSION_EXPIRED_ERROR_CODE = 98  # "Bad or expired XSRF token" (vmware-nsxlib, nsx-api.md §3)
_RETRY_STATUSES = (429, 503)
_RETRIES = 2
_MAX_PAGES = 1000


@dataclass(frozen=True)
class NsxTarget:
    """An NSX Manager to read.

    ``url`` is ``https://host[:port]`` (a path prefix is kept; ``http`` is refused); ``user`` /
    ``password`` (never logged, hidden from ``repr``); ``thumbprint`` pins a self-signed certificate by
    its SHA-256 (``"AA:BB:…"``, any case/separator); ``ca_bundle`` is a PEM file of CAs to trust instead
    of the system store; ``timeout_s`` bounds each request (connect and read), in seconds; ``auth`` is
    ``"session"`` (default) or ``"basic"``. ``pins`` is the TLS pin store
    (:class:`~nicadvisor.collect.tls_pins.TlsPins`): its pin for this manager is used when ``thumbprint``
    is not given, and an explicit ``thumbprint`` is saved in it after the login succeeded; None (default)
    reads and writes no store.
    """

    url: str
    user: str
    password: str = field(repr=False)
    thumbprint: str | None = None
    ca_bundle: str | None = None
    timeout_s: float = 15.0
    auth: str = "session"
    pins: TlsPins | None = field(default=None, repr=False, compare=False)


@dataclass
class NsxCollection:
    """What :func:`collect_nsx` read: the :class:`~nicadvisor.parsers.api.nsx.NsxInventory`, one
    :class:`HostInputs` per host transport node (``name`` = NSX host name, ``kind`` ``esxi``,
    ``parsed`` = (Capture of the JSON response, ParseResult) pairs, ``problems`` about that host),
    ``aliases`` (host name → every name NSX knows the host by, for joining with other sources),
    ``problems`` about the manager itself (login, TLS, unreachable, responses not understood), and
    ``trust`` (how the certificate was trusted; None when no connection was made)."""

    inventory: NsxInventory
    hosts: list[HostInputs] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    trust: TrustDecision | None = None


class NsxError(Exception):
    """A request that failed: ``message`` is for the user (no secrets), ``status`` the HTTP status or None."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NsxAuthError(NsxError):
    """The manager refused the credentials (or the session could not be created)."""


class _Client:
    """One NSX Manager connection (a ``requests.Session``); see the module docstring for the policy."""

    def __init__(self, target: NsxTarget, cancel: threading.Event | None) -> None:
        parts = urlsplit(target.url.strip() if "://" in target.url else f"https://{target.url.strip()}")
        if parts.scheme.lower() != "https":
            raise NsxError(f"{target.url}: only https is supported (the credentials would travel in clear text)")
        if not parts.hostname:
            raise NsxError(f"{target.url}: no host name in the URL")
        if target.auth not in ("session", "basic"):
            raise NsxError(f"unknown authentication method {target.auth!r} (use 'session' or 'basic')")
        self.target, self.cancel = target, cancel
        self.host, self.port = parts.hostname, parts.port or 443
        self.netloc = self.host if self.port == 443 else f"{self.host}:{self.port}"
        self.base = f"https://{self.host}:{self.port}{parts.path.rstrip('/')}"
        self.timeout = (target.timeout_s, target.timeout_s)
        self.session = requests.Session()
        self.session.trust_env = False  # no proxy / netrc / CA bundle from the environment
        self.session.headers.update({"Accept": "application/json"})
        self.trust: TrustDecision | None = None
        self.requests_sent: list[tuple[str, str]] = []

    # --- TLS ---------------------------------------------------------------------------------
    def setup_tls(self) -> None:
        """Decide how the certificate is trusted; raises NsxError (with the thumbprint when untrusted)."""
        t = self.target
        try:
            adapter, self.trust = trusted_adapter(self.host, self.port, t.thumbprint, t.ca_bundle, t.timeout_s, t.pins)
        except TrustSetupError as exc:
            raise NsxError(str(exc)) from exc
        self.session.mount(f"https://{self.host}:{self.port}" if self.trust.mode == "pinned" else "https://", adapter)

    def _untrusted(self, exc: Exception) -> NsxError:
        t = self.target
        return NsxError(untrusted_message(self.host, self.port, self.trust, t.timeout_s, t.pins, t.ca_bundle, exc))

    # --- HTTP ---------------------------------------------------------------------------------
    def _send(self, method: str, path: str, **kw: Any) -> requests.Response:
        check(self.cancel)
        url = self.base + path
        self.requests_sent.append((method, path))
        try:
            with deadline(self.target.timeout_s):  # connect, request and the whole answer (module doc)
                return self.session.request(method, url, timeout=self.timeout, verify=True,
                                            allow_redirects=False, **kw)
        except requests.exceptions.SSLError as exc:
            if _is_verify_failure(exc):
                raise self._untrusted(exc) from exc
            raise NsxError(f"{self.netloc}: TLS failure on {path}: {_reason(exc)}") from exc
        except requests.exceptions.Timeout as exc:
            raise NsxError(f"{self.netloc}: no answer to {method} {path} within {self.target.timeout_s:g} s "
                           "(timeout)") from exc
        except requests.exceptions.ConnectionError as exc:
            raise NsxError(f"{self.netloc}: cannot connect: {_reason(exc)}") from exc
        except requests.exceptions.RequestException as exc:
            raise NsxError(f"{self.netloc}: request {path} failed: {_reason(exc)}") from exc

    def login(self) -> None:
        """Create a session (or set Basic auth). Raises NsxAuthError when the credentials are refused."""
        t = self.target
        self.session.cookies.clear()
        self.session.headers.pop("X-XSRF-TOKEN", None)
        if t.auth == "basic":
            self.session.auth = (t.user, t.password)
            return
        r = self._send("POST", "/api/session/create", data={"j_username": t.user, "j_password": t.password},
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        if r.status_code not in (200, 201):
            raise NsxAuthError(f"{self.netloc}: login refused for user {t.user!r} (HTTP {r.status_code}"
                               f"{_error_text(r)}); check the user name and password, and that the account is not "
                               "locked", r.status_code)
        token = r.headers.get("X-XSRF-TOKEN")
        if token:
            self.session.headers["X-XSRF-TOKEN"] = token
        if "JSESSIONID" not in self.session.cookies:
            raise NsxAuthError(f"{self.netloc}: login for user {t.user!r} returned no session cookie "
                               "(JSESSIONID)", r.status_code)

    def get(self, path: str, params: dict[str, str] | None = None) -> str:
        """GET ``path``: the response text. Logs in again once on an expired session (403, error_code
        98) and retries 429/503 twice. Raises NsxAuthError (401, 403 on login), NsxError otherwise
        (``status`` 404 for a missing object)."""
        relogged = False
        attempt = 0
        while True:
            r = self._send("GET", path, params=params)
            if r.status_code == 403 and _error_code(r) == SESSION_EXPIRED_ERROR_CODE and not relogged \
                    and self.target.auth == "session":
                relogged = True
                self.login()
                continue
            if r.status_code in _RETRY_STATUSES and attempt < _RETRIES:
                attempt += 1
                _sleep(_retry_after(r, attempt), self.cancel)
                continue
            break
        if r.status_code == 200:
            return r.text
        if r.status_code == 401 or (r.status_code == 403 and _error_code(r) == SESSION_EXPIRED_ERROR_CODE):
            raise NsxAuthError(f"{self.netloc}: GET {path}: not authenticated (HTTP {r.status_code}"
                               f"{_error_text(r)}) for user {self.target.user!r}", r.status_code)
        if r.status_code == 403:
            raise NsxError(denied_message(self.netloc, path, self.target.user, _error_text(r)), 403)
        raise NsxError(f"{self.netloc}: GET {path}: HTTP {r.status_code}{_error_text(r)}", r.status_code)

    def get_pages(self, path: str, params: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
        """Every page of a list call (following ``cursor``): (page texts, notes)."""
        texts: list[str] = []
        notes: list[str] = []
        query = dict(params or {})
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            text = self.get(path, query)
            texts.append(text)
            value, n = load_json(text)
            notes.extend(n)
            cursor = value.get("cursor") if isinstance(value, dict) else None
            if not cursor or not isinstance(cursor, str) or cursor in seen:
                return texts, notes
            seen.add(cursor)
            query["cursor"] = cursor
        notes.append(f"{path}: stopped after {_MAX_PAGES} pages")
        return texts, notes

    def close(self) -> None:
        self.session.close()


def denied_message(netloc: str, path: str, user: str, error_text: str = "") -> str:
    """The problem for an HTTP 403 that is not an expired session (``error_code`` other than 98): the user
    logged in but its NSX role does not allow reading ``path``.

    ``error_text`` is :func:`_error_text` of the answer (``", error_code N: message"`` or ``""``). The advice
    follows Broadcom KB 390631 / 435871: Manager API features (``/api/v1/...``, e.g. transport nodes: feature
    ``nodes_transport_nodes``) can only be granted by the built-in system roles, not by custom roles.
    """
    return (f"{netloc}: no permission to read GET {path} as user {user!r} (HTTP 403{error_text}): the account "
            "needs an NSX role with read access to it, e.g. the built-in Auditor role (read-only); custom roles "
            "cannot grant Manager API access")


def _error_code(r: requests.Response) -> int | None:
    """``error_code`` of an NSX ApiError body (an integer, also when sent as a string such as ``"269"``)."""
    try:
        body = r.json()
    except ValueError:
        return None
    code = body.get("error_code") if isinstance(body, dict) else None
    if isinstance(code, str) and code.strip().isdigit():
        return int(code.strip())
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _error_text(r: requests.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return ""
    if isinstance(body, dict):
        msg = body.get("error_message") or body.get("details")
        code = body.get("error_code")
        parts = [f"error_code {code}" if code is not None else "", str(msg) if msg else ""]
        text = ": ".join(p for p in parts if p)
        return f", {text}" if text else ""
    return ""


def _retry_after(r: requests.Response, attempt: int) -> float:
    value = r.headers.get("Retry-After", "")
    delay = float(value) if value.strip().isdigit() else 0.5 * attempt
    return min(delay, 5.0)


def _sleep(seconds: float, cancel: threading.Event | None) -> None:
    if cancel is not None:
        cancel.wait(seconds)
        check(cancel)
    else:
        time.sleep(seconds)


# --- the collection ------------------------------------------------------------------------------

def collect_nsx(target: NsxTarget, progress: Callable[[str], None] | None = None,
                cancel: threading.Event | None = None) -> NsxCollection:
    """Read the host transport nodes of one NSX Manager, read-only, and return their facts.

    ``progress`` receives short messages (``"transport nodes"``, ``"esx03.lab: state"``). A failure that
    stops everything (URL, TLS trust, login refused, manager unreachable or too slow) is one
    ``problems`` entry naming the manager and an empty host list; a failure on one endpoint or host
    (missing profile, state not readable) is a problem and the rest is still read. Never raises for
    network or server errors. Raises :class:`nicadvisor.cancel.Cancelled` when ``cancel`` is set.
    """
    say = progress or (lambda _m: None)
    source = f"nsx://{_netloc_of(target.url)}"
    inventory = NsxInventory(manager=_netloc_of(target.url))
    out = NsxCollection(inventory=inventory)
    try:
        client = _Client(target, cancel)
    except NsxError as exc:
        out.problems.append(InputProblem(source, str(exc)))
        return out
    try:
        say(f"connecting to {client.netloc}")
        client.setup_tls()
        out.trust = client.trust
        client.login()
        if target.pins is not None:  # the explicit pin worked: stored for the next runs
            target.pins.remember(client.host, client.port, client.trust)
        _collect(client, out, say)
    except NsxError as exc:
        out.problems.append(InputProblem(source, str(exc)))
    finally:
        client.close()
    return out


def _netloc_of(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"https://{url}")
    return parts.netloc.rsplit("@", 1)[-1] or url


def _collect(client: _Client, out: NsxCollection, say: Callable[[str], None]) -> None:
    source = f"nsx://{client.netloc}"
    problems = out.problems

    def optional(path: str, what: str, params: dict[str, str] | None = None) -> str | None:
        try:
            return client.get(path, params)
        except NsxAuthError:
            raise
        except NsxError as exc:
            problems.append(InputProblem(source + path, f"{what} not read: {exc}", f"NSX API GET {path}"))
            return None

    say("NSX version")
    version_text = optional("/api/v1/node/version", "NSX version")
    say("transport nodes")
    tn_pages, notes = client.get_pages("/api/v1/transport-nodes")
    _note(problems, source + "/api/v1/transport-nodes", notes)
    nodes = [tn for page in tn_pages for tn in parse_transport_nodes(page)[0]]
    hosts = [tn for tn in nodes if tn.is_host]
    say(f"{len(hosts)} host transport node(s), {len(nodes) - len(hosts)} edge(s)")

    say("transport zones")
    tz_pages: list[str] = []
    try:
        tz_pages, notes = client.get_pages("/api/v1/transport-zones")
        _note(problems, source + "/api/v1/transport-zones", notes)
    except NsxAuthError:
        raise
    except NsxError as exc:
        problems.append(InputProblem(source + "/api/v1/transport-zones", f"transport zones not read: {exc}"))

    say("uplink profiles")
    profile_texts: list[str] = []
    try:
        profile_texts, notes = client.get_pages("/api/v1/host-switch-profiles", {
            "include_system_owned": "true", "hostswitch_profile_type": "UplinkHostSwitchProfile"})
        _note(problems, source + "/api/v1/host-switch-profiles", notes)
    except NsxAuthError:
        raise
    except NsxError as exc:
        problems.append(InputProblem(source + "/api/v1/host-switch-profiles", f"uplink profile list not read: {exc}"))
    known = {p.id for t in profile_texts for p in parse_uplink_profiles(t)[0]}
    wanted = {hs.uplink_profile_id for tn in hosts for hs in tn.host_switches if hs.uplink_profile_id}
    for ref in sorted(wanted):
        pid = ref.rsplit("/", 1)[-1]
        if pid in known or ref in known:
            continue
        text = optional(f"/api/v1/host-switch-profiles/{pid}", f"uplink profile {pid}")
        if text is not None:
            profile_texts.append(text)

    say("global MTU (SwitchingGlobalConfig)")
    global_text: str | None = None
    try:
        global_text = client.get("/api/v1/global-configs/SwitchingGlobalConfig")
    except NsxAuthError:
        raise
    except NsxError as exc:
        if exc.status != 404:
            problems.append(InputProblem(source + "/api/v1/global-configs/SwitchingGlobalConfig",
                                         f"global MTU not read: {exc}"))
        else:
            global_text = optional("/api/v1/global-configs", "global configs (physical_uplink_mtu)")

    states: dict[str, str] = {}
    for tn in hosts:
        say(f"{tn.host_name}: state")
        text = optional(f"/api/v1/transport-nodes/{tn.id}/state", f"state of transport node {tn.host_name}")
        if text is not None:
            states[tn.id] = text

    inv = build_inventory(client.netloc, transport_nodes=tn_pages, states=states, uplink_profiles=profile_texts,
                          transport_zones=tz_pages, switching_config=global_text, version=version_text)
    out.inventory = inv
    for note in inv.notes:
        problems.append(InputProblem(source, f"partly understood: {note}"))
    for hf in host_results(inv):
        group = HostInputs(name=hf.name, kind=hf.kind or "esxi")
        for rf in hf.responses:
            cap = Capture(source=f"{source}{rf.path}", command=rf.command, text=rf.text, host=hf.name,
                          origin=f"NSX Manager {client.netloc}")
            group.parsed.append((cap, rf.result))
        group.problems.extend(InputProblem(f"{source}/api/v1/transport-nodes/{hf.transport_node_id}", p,
                                           "NSX API GET /api/v1/transport-nodes") for p in hf.problems)
        out.hosts.append(group)
        out.aliases[hf.name] = list(hf.aliases)
    say(f"read {len(out.hosts)} host(s) from NSX Manager {client.netloc}")


def _note(problems: list[InputProblem], source: str, notes: list[str]) -> None:
    for n in notes:
        problems.append(InputProblem(source, f"partly understood: {n}"))



def check_login(target: NsxTarget, cancel: threading.Event | None = None) -> None:
    """Set up TLS (pinning as configured) and log in once, read-only ("Test connection").

    Raises :class:`nicadvisor.collect.ConnectionCheckError` with the reason.
    """
    from nicadvisor.collect import ConnectionCheckError

    try:
        client = _Client(target, cancel)
    except NsxError as exc:
        raise ConnectionCheckError(str(exc)) from exc
    try:
        client.setup_tls()
        client.login()
        if target.pins is not None:  # the explicit pin worked: stored for the next runs
            target.pins.remember(client.host, client.port, client.trust)
    except NsxError as exc:
        raise ConnectionCheckError(str(exc)) from exc
    finally:
        client.close()
