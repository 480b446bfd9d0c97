"""Cancel and connection loss of a live vSphere audit against a vcsim that hangs (paused with SIGSTOP).

* A cancel interrupts the call in flight at once (the cancel watcher shuts the session's sockets down),
  on the raw-XML path and on pyVmomi's path, instead of waiting for the socket timeout; no
  DestroyView/Logout is then sent to the hung server.
* After a timeout the cleanup calls are skipped too: the audit ends after ONE ``timeout_s``, not three.
* Every call of a session is sent from its worker thread (no page-prefetch thread).
"""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from nicadvisor.cancel import Cancelled
from nicadvisor.collect import vsphere
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere, list_inventory
from vcsimtools import PASSWORD, USER


@pytest.fixture
def pausable(vcsim_factory):
    """A vcsim of its own (1 cluster of 2 hosts) with ``pause()``; resumed and stopped at teardown."""
    sim = vcsim_factory("-cluster", "1", "-host", "2", "-standalone-host", "0", "-vm", "0")
    paused = []

    def pause() -> None:
        os.kill(sim.proc.pid, signal.SIGSTOP)
        paused.append(True)

    sim.pause = pause
    yield sim
    if paused:
        os.kill(sim.proc.pid, signal.SIGCONT)
    sim.stop()


def _target(sim, **kw) -> VsphereTarget:
    return VsphereTarget(host="127.0.0.1", port=sim.port, user=USER, password=PASSWORD,
                         thumbprint=fetch_thumbprint("127.0.0.1", sim.port, 10), **kw)


def _pause_at_first_retrieval(monkeypatch, sim, then=None) -> None:
    """Pause ``sim`` just before the first PropertyCollector retrieval of a session (the VDS one: raw-XML
    reader or pyVmomi, per the target), then call ``then()``."""
    real = vsphere._VcenterAudit._pages
    done: list[bool] = []

    def paused_pages(self, first, follow, what):
        if not done:
            done.append(True)
            sim.pause()
            if then is not None:
                then()
        return real(self, first, follow, what)

    monkeypatch.setattr(vsphere._VcenterAudit, "_pages", paused_pages)


@pytest.mark.parametrize("raw_xml", [True, False], ids=["raw-xml", "pyvmomi"])
def test_cancel_interrupts_a_call_to_a_hung_vcenter(pausable, monkeypatch, raw_xml):
    cancel = threading.Event()
    cancelled_at: list[float] = []

    def set_cancel() -> None:
        cancelled_at.append(time.monotonic())
        cancel.set()

    timer = threading.Timer(1.0, set_cancel)
    stages: list[str] = []
    _pause_at_first_retrieval(monkeypatch, pausable, timer.start)
    real_abort = vsphere._VcenterAudit._abort

    def abort(self):
        stages.append(self.stage)
        real_abort(self)

    monkeypatch.setattr(vsphere._VcenterAudit, "_abort", abort)
    t = _target(pausable, timeout_s=20, raw_xml=raw_xml)
    start = time.monotonic()
    try:
        with pytest.raises(Cancelled):
            collect_vsphere([t], cancel=cancel)
    finally:
        timer.cancel()
    ended = time.monotonic()
    assert cancelled_at, "the audit ended before the cancel"
    assert ended - cancelled_at[0] < 3.0, f"Cancelled {ended - cancelled_at[0]:.1f} s after the cancel"
    assert ended - start < 5.0
    assert stages[0] == "reading distributed switches (page 1)"  # the blocked call was the retrieval


def test_no_logout_after_a_timeout(pausable, monkeypatch):
    """A hung server: the VDS retrieval times out after ``timeout_s``; DestroyView/Logout are not tried
    (each would wait ``timeout_s`` again)."""
    _pause_at_first_retrieval(monkeypatch, pausable)
    col = collect_vsphere([_target(pausable, timeout_s=2)])
    (p,) = col.problems
    assert "no answer within 2 s" in p.message and "reading distributed switches (page 1)" in p.message
    assert col.hosts == [] and col.sessions[0].error == p.message
    assert col.sessions[0].elapsed_s < 3.5  # one timeout, not three (DestroyView, Logout)


def test_list_inventory_cancel_before_the_tree(pausable, monkeypatch):
    """``list_inventory`` (the wizard's "Browse hosts"): a cancel during the blocked retrieval is Cancelled, and it
    is the cancel watcher that ends the call — it shuts the session's sockets while the vcsim stays paused — not the
    socket timeout. Asserted on what happened, not on how long it took (the login before the retrieval is slow
    under load: a wall-clock bound failed once)."""
    cancel = threading.Event()
    timer = threading.Timer(1.0, cancel.set)
    _pause_at_first_retrieval(monkeypatch, pausable, timer.start)
    ended: list[BaseException] = []
    aborted_in: list[str] = []
    real_retrieve, real_abort = vsphere._VcenterAudit._retrieve, vsphere._VcenterAudit._abort

    def recording_retrieve(self, *args):
        try:
            yield from real_retrieve(self, *args)
        except BaseException as exc:
            ended.append(exc)
            raise

    def recording_abort(self):
        aborted_in.append(self.stage)
        real_abort(self)

    monkeypatch.setattr(vsphere._VcenterAudit, "_retrieve", recording_retrieve)
    monkeypatch.setattr(vsphere._VcenterAudit, "_abort", recording_abort)
    try:
        with pytest.raises(Cancelled):
            list_inventory(_target(pausable, timeout_s=60), cancel)
    finally:
        timer.cancel()
    assert aborted_in and aborted_in[0].startswith("reading the inventory tree")
    assert len(ended) == 1 and not isinstance(ended[0], TimeoutError), ended  # the abort ended it, not a timeout


def test_every_call_of_a_session_is_sent_from_its_worker_thread(vcsim, monkeypatch):
    """Pages included (page_size=1 over 4 hosts: ContinueRetrievePropertiesEx several times)."""
    threads: set[str] = set()
    real = vsphere._AbortableStub.GetConnection

    def recording(self):
        threads.add(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(vsphere._AbortableStub, "GetConnection", recording)
    col = collect_vsphere([_target(vcsim, timeout_s=10, page_size=1, modules=False, network_hints=False)])
    assert sorted(h.name for h in col.hosts) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2", "DC0_H0"]
    assert len(threads) == 1 and next(iter(threads)).startswith("vsphere"), threads
