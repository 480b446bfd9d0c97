"""The use-cases the wizard calls, gathered in one injectable object.

:meth:`Backend.real` binds the real services (imported lazily, so the GUI modules import even when a
service is being reworked); tests may pass a Backend of their own. Every callable here is blocking and
is only ever called from a worker thread (:mod:`nicadvisor.gui.tasks`), ``open_store`` included (the
wizard opens the history on a worker at start-up).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from nicadvisor.gui import probes

ProgressFn = Callable[[float, str], None]


@dataclass(frozen=True)
class Backend:
    """Callables of the service layer.

    Attributes:
        audit(demo, capture_paths, local, progress, cancel, vsphere=(), ssh=(), nsx=(), known_hosts=None,
              ask_host_key=None, store=None) -> nicadvisor.model.Audit
            (``nicadvisor.services.audit.run_audit``; raises a ``Cancelled`` when cancel is set; with a
            ``store`` the audit is written to the history as it runs and ``audit.history_id`` is set).
        bench(path, duration_s, progress, cancel, rate_mbit=None, profile=None) -> BenchReport(results, problems)
            (``nicadvisor.services.bench.run_quick_bench``; path "loopback" or "netns"; seconds; ``rate_mbit``:
            shape the netns veth with tc tbf to this many Mbit/s, which gives TCP_STREAM its expected value;
            ``profile``: ``"quick"``/``"full"``, the test catalogue instead of TCP_STREAM and TCP_RR).
        export(audit, pdf, json, csv, html, store) -> list[Path] (``store``: the history, for earlier benchmark runs)
            (``nicadvisor.services.export.export_audit``; paths may be None).
        open_store() -> (AuditStore | None, problem: str)
            (``nicadvisor.store.AuditStore`` at its default path; on failure None and why).
        probe_vcenter(spec, cancel) / probe_nsx(spec, cancel) / probe_ssh(spec, known_hosts, ask, cancel)
            -> :class:`nicadvisor.gui.probes.ProbeResult` (Test connection; never raise).
        browse_vcenter(spec, cancel) -> :class:`nicadvisor.gui.probes.InventoryResult` (Browse hosts: the
            datacenter → cluster → host tree; never raises but ``Cancelled``).
        remote_prepare(ssh_specs, interfaces, duration_s, progress, cancel, ask_host_key=None, profile=None,
                       mtu_check=False, run_tests=True) -> :class:`~nicadvisor.services.between.PreparedBetween`
            (connect to and probe the audited hosts read-only, :func:`nicadvisor.services.between.prepare_between`;
            ``interfaces`` maps an SSH spec's ``source`` to the interface to test from; ``profile``:
            ``"quick"``/``"full"`` of the test catalogue, ``duration_s`` seconds each; ``mtu_check``: check the MTU
            path first; ``problems``: targets that could not be built (no password); raises ValueError for an
            invalid request, ``Cancelled``).
        remote_run(prepared, audit, progress, cancel, store=None) -> :class:`~nicadvisor.services.between.BetweenOutcome`
            (:func:`nicadvisor.services.between.run_between`, the one call the CLI makes too: the MTU check, then
            the confirmed plan, every change undone, the connections closed; each result compared with the band of
            its path from ``audit``'s facts; results and MTU outcome added to a copy of ``audit``, stored in
            ``store`` when the audit is in it). remote_close(prepared): close without running (the user declined).
    """

    audit: Callable[..., Any]
    bench: Callable[..., Any]
    export: Callable[..., list[Path]]
    open_store: Callable[[], tuple[Any, str]] = lambda: _real_open_store()
    probe_vcenter: Callable[..., Any] = probes.probe_vcenter
    probe_ssh: Callable[..., Any] = probes.probe_ssh
    probe_nsx: Callable[..., Any] = probes.probe_nsx
    browse_vcenter: Callable[..., Any] = probes.browse_vcenter
    remote_prepare: Callable[..., Any] = lambda *a, **k: _real_remote_prepare(*a, **k)
    remote_run: Callable[..., Any] = lambda *a, **k: _real_remote_run(*a, **k)
    remote_close: Callable[[Any], None] = lambda prepared: prepared.close()

    @classmethod
    def real(cls) -> "Backend":
        """The backend bound to :mod:`nicadvisor.services`."""
        return cls(audit=_real_audit, bench=_real_bench, export=_real_export)


def _real_audit(demo: bool, capture_paths: tuple[str, ...], local: bool, progress: ProgressFn,
                cancel: threading.Event, vsphere: tuple = (), ssh: tuple = (), nsx: tuple = (),
                known_hosts: Any = None, ask_host_key: Callable[[str, int, str, str], bool] | None = None,
                store: Any = None, redfish: tuple = (), attestations: tuple = (),
                target_nsx: str | None = None) -> Any:
    from nicadvisor.services.audit import AuditRequest, run_audit

    request = AuditRequest(demo=demo, capture_paths=tuple(capture_paths), local=local, vsphere=tuple(vsphere),
                           ssh=tuple(ssh), nsx=tuple(nsx), known_hosts=known_hosts, ask_host_key=ask_host_key,
                           redfish=tuple(redfish), attestations=tuple(attestations),
                           target_nsx=target_nsx)
    return run_audit(request, progress=progress, cancel=cancel, store=store)


def _real_bench(path: str, duration_s: float, progress: ProgressFn, cancel: threading.Event,
                rate_mbit: int | None = None, profile: str | None = None) -> Any:
    from nicadvisor.services.bench import BenchRequest, run_quick_bench

    request = BenchRequest(path=path, duration_s=duration_s, rate_mbit=rate_mbit, profile=profile)
    return run_quick_bench(request, progress, cancel)


def _real_remote_prepare(ssh_specs: list[Any], interfaces: dict[str, str], duration_s: float, progress: ProgressFn,
                         cancel: threading.Event, ask_host_key: Callable[[str, int, str, str], bool] | None = None,
                         profile: str | None = None, mtu_check: bool = False, run_tests: bool = True) -> Any:
    from nicadvisor.services.between import BetweenRequest, prepare_between

    built = probes.build_targets([], list(ssh_specs), [])
    request = BetweenRequest(hosts=built.ssh, interfaces=dict(interfaces), duration_s=duration_s, profile=profile,
                             mtu_check=mtu_check, run_tests=run_tests)
    prepared = prepare_between(request, progress, cancel, ask_host_key=ask_host_key)
    prepared.problems += [f"{p.source}: {p.message}" for p in built.problems]
    return prepared


def _real_remote_run(prepared: Any, audit: Any, progress: ProgressFn, cancel: threading.Event,
                     store: Any = None) -> Any:
    from nicadvisor.services.between import run_between

    return run_between(prepared, progress, cancel, audit=audit, store=store)


def _real_export(audit: Any, pdf: Path | None = None, json: Path | None = None, csv: Path | None = None,
                 html: Path | None = None, store: Any = None) -> list[Path]:
    from nicadvisor.services.export import export_audit

    return export_audit(audit, pdf=pdf, json=json, csv=csv, html=html, store=store)


def _real_open_store(path: Path | str | None = None) -> tuple[Any, str]:
    """(AuditStore, "") or (None, why it could not be opened): :func:`nicadvisor.services.history.open_history`."""
    from nicadvisor.services.history import open_history

    return open_history(path)
