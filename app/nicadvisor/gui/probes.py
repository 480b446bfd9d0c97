"""The Connect page's live targets translated for the services: passwords, the collector targets
(:func:`nicadvisor.services.targets.build_targets`) and "Test connection" / "Browse hosts"
(:mod:`nicadvisor.services.connection`). Worker threads only (no Qt here).

* Passwords (:func:`resolve_password`): the one typed on the Connect page (kept in memory), else the
  one saved in the OS keyring (:mod:`nicadvisor.secrets`, service ids as the CLI: ``vcenter:<host>:<port>``,
  ``ssh:<host>:<port>``, ``nsx:<host>:<port>``). A typed password with "remember" ticked is saved in the
  keyring; nowhere else. No password ever appears in a message.
* Probes (:func:`probe_vcenter`, :func:`probe_ssh`, :func:`probe_nsx`) return a :class:`ProbeResult`
  and never raise for a target that fails; "Browse hosts" (:func:`browse_vcenter`) returns an
  :class:`InventoryResult` likewise; the notes of the password (saved in the keyring, read from it) are added.
"""
from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any, Callable

from nicadvisor.gui.state import NsxSpec, SshSpec, VcenterSpec

if TYPE_CHECKING:
    from nicadvisor.services import targets
    from nicadvisor.services.connection import InventoryResult, ProbeResult
    from nicadvisor.services.targets import LiveTargets

AskFn = Callable[[str, int, str, str], bool]
__all__ = ["InventoryResult", "LiveTargets", "PasswordMissing", "ProbeResult", "browse_vcenter", "build_targets",
           "probe_nsx", "probe_ssh", "probe_vcenter", "resolve_password", "snapshot", "stored_host_keys",
           "vsphere_target"]

#: Imported on first use, on a worker (the collectors behind them load paramiko, pyVmomi and requests: about a second
#: of a cold start, which the wizard's first page does not need).
_LAZY = {"InventoryResult": "nicadvisor.services.connection", "ProbeResult": "nicadvisor.services.connection",
         "LiveTargets": "nicadvisor.services.targets"}


def __getattr__(name: str) -> Any:  # PEP 562: probes.LiveTargets and the result types, imported when first asked for
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _targets() -> Any:
    from nicadvisor.services import targets

    return targets


def _connection() -> Any:
    from nicadvisor.services import connection

    return connection


class PasswordMissing(ValueError):
    """No password typed and none saved in the OS keyring (the message says which target)."""


def snapshot(spec: Any) -> Any:
    """A copy of a target spec for a worker (the GUI thread may edit the original meanwhile)."""
    return dataclasses.replace(spec)


def resolve_password(spec: VcenterSpec | SshSpec | NsxSpec, user: str) -> tuple[str, list[str]]:
    """(password, notes) for ``spec``: the typed one (saved in the keyring when ``spec.remember``), else the
    one saved in the keyring. Raises :class:`PasswordMissing` when there is neither."""
    from nicadvisor.secrets import SecretStoreUnavailable, get_password, store_password

    notes: list[str] = []
    if spec.password:
        if spec.remember:
            try:
                store_password(spec.service_id, user, spec.password)
                notes.append("password saved in the OS keyring")
            except SecretStoreUnavailable as exc:
                notes.append(f"password not saved: {exc}")
        return spec.password, notes
    why = ""
    try:
        saved = get_password(spec.service_id, user)
    except SecretStoreUnavailable as exc:
        saved, why = None, f" ({exc})"
    if saved is None:
        raise PasswordMissing(f"{spec.kind_label} {spec.label}: no password entered for {user} and none saved in "
                              f"the OS keyring{why}; enter it on the Connect page")
    notes.append("password read from the OS keyring")
    return saved, notes


# --- translation for the services -----------------------------------------------------------------

def entry_of(spec: VcenterSpec | SshSpec | NsxSpec) -> Any:
    """The :mod:`nicadvisor.services.targets` entry of a Connect page spec (no password: see :func:`passwords_of`)."""
    targets = _targets()
    if isinstance(spec, VcenterSpec):
        return targets.VcenterEntry(url=spec.url, user=spec.user, thumbprint=spec.thumbprint or None,
                                    datacenter=spec.datacenter or None, cluster=spec.cluster or None,
                                    host_names=tuple(spec.host_names), esxcli=bool(spec.esxcli))
    if isinstance(spec, SshSpec):
        return targets.SshEntry(spec=spec.spec, kind=spec.kind, key_file=spec.key_file or None,
                                trusted_fingerprint=spec.trusted_fingerprint or None)
    return targets.NsxEntry(url=spec.url, user=spec.user, thumbprint=spec.thumbprint or None)


def passwords_of(specs: list[Any], notes: list[str] | None = None) -> targets.Passwords:
    """The :class:`~nicadvisor.services.targets.Passwords` of the Connect page: each spec's typed password
    (saved in the keyring when "remember" is ticked), else the keyring's (:func:`resolve_password`); an SSH host with
    a key file gets only a typed one. ``notes`` collects what was saved or read."""
    by_id = {}
    for spec in specs:
        try:
            by_id[(spec.service_id, spec.user)] = spec
        except ValueError:
            continue  # a malformed spec: the service reports it before it asks

    def get(service_id: str, user: str, label: str, *, required: bool) -> str | None:
        spec = by_id.get((service_id, user))
        if spec is None:
            raise PasswordMissing(f"{label}: no password entered for {user}")
        if not required and not spec.password:
            return None
        password, said = resolve_password(spec, user)
        if notes is not None:
            notes.extend(said)
        return password
    return get


def vsphere_target(spec: VcenterSpec, password: str) -> Any:
    """The ``VsphereTarget`` of ``spec`` (``esxcli=spec.esxcli``: esxcli through the vSphere API too), pins in the
    app's store. Raises ValueError for a bad URL."""
    targets = _targets()
    return targets.vsphere_target(entry_of(spec), password, pins=targets.app_pins())


def build_targets(vcenters: list[VcenterSpec], ssh_hosts: list[SshSpec], nsx_managers: list[NsxSpec]) -> LiveTargets:
    """Collector targets of spec snapshots (:func:`nicadvisor.services.targets.build_targets`), passwords resolved
    from the keyring where none was typed (worker thread: the keyring may block). Never raises: a target that
    cannot be built is a problem."""
    targets = _targets()
    request = targets.TargetsRequest(vcenter=tuple(entry_of(s) for s in vcenters),
                                     ssh=tuple(entry_of(s) for s in ssh_hosts),
                                     nsx=tuple(entry_of(s) for s in nsx_managers))
    return targets.build_targets(request, passwords_of([*vcenters, *ssh_hosts, *nsx_managers]))


def _with_notes(result: Any, notes: list[str]) -> Any:
    return dataclasses.replace(result, notes=tuple(notes) + result.notes) if notes else result


def probe_vcenter(spec: VcenterSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> ProbeResult:
    """Test connection of a vCenter (:func:`nicadvisor.services._connection().check_vcenter`). Never raises."""
    notes: list[str] = []
    return _with_notes(_connection().check_vcenter(entry_of(spec), passwords_of([spec], notes), cancel, timeout), notes)


def browse_vcenter(spec: VcenterSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> InventoryResult:
    """Browse hosts of a vCenter (:func:`nicadvisor.services.connection.browse_vcenter`). Never raises, except
    ``Cancelled`` when ``cancel`` is set."""
    return _connection().browse_vcenter(entry_of(spec), passwords_of([spec]), cancel, timeout)


def probe_ssh(spec: SshSpec, known_hosts: Any, ask: AskFn | None, cancel: threading.Event | None = None,
              timeout: float = 10.0) -> ProbeResult:
    """Test connection of an SSH host (:func:`nicadvisor.services._connection().check_ssh`). Never raises."""
    notes: list[str] = []
    try:
        entry = entry_of(spec)
        passwords = passwords_of([spec], notes)
    except ValueError as exc:
        return _connection().ProbeResult(False, str(exc))
    return _with_notes(_connection().check_ssh(entry, passwords, known_hosts, ask, cancel, timeout), notes)


def stored_host_keys(ssh_hosts: list[SshSpec], known_hosts: Any) -> dict[str, str]:
    """``{spec.source: "ssh-ed25519 SHA256:…"}`` of the hosts whose key NIC Advisor's known_hosts holds (after an
    audit accepted one; :func:`nicadvisor.services.connection.stored_host_keys`); a spec that does not parse is
    left out. Worker thread only. Never raises."""
    parts = []
    for spec in ssh_hosts:
        try:
            _user, host, port = spec.parts()
        except ValueError:
            continue
        parts.append((spec.source, host, port))
    return _connection().stored_host_keys(parts, known_hosts)


def probe_nsx(spec: NsxSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> ProbeResult:
    """Test connection of an NSX Manager (:func:`nicadvisor.services._connection().check_nsx`). Never raises."""
    notes: list[str] = []
    return _with_notes(_connection().check_nsx(entry_of(spec), passwords_of([spec], notes), cancel, timeout), notes)
