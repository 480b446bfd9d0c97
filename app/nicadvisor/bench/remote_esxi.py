"""The ESXi end of a benchmark between hosts (:class:`nicadvisor.bench.remote.RemoteBench`): its part of the plan and
its steps of the run. What ESXi offers and how each change is made and put back: :mod:`nicadvisor.bench.esxi`.

Plan (:func:`plan_pair`, for a pair with an ESXi end): the stream tests iperf3 runs (TCP_STREAM, UDP_STREAM; ESXi has
no netperf, so TCP_RR, its payload sweep and TCP_CRR are "not measurable" there and the plan says so); the ESXi
server is the run's copy of the vSAN iperf3 (``-s -1 -B <vmknic address> -p <port>``), the ESXi client the original;
the firewall opening of each ESXi end (:func:`nicadvisor.bench.esxi_firewall.plan_opening`: inbound to a server,
outbound from a client, TCP and for UDP_STREAM UDP too) picks the port; a pair no ruleset fits is not planned and the
plan says why and what still works. Nothing changes before the user confirmed the plan.

Run (:func:`run_one`): once per run and host, the firewall changes then the copy (:func:`ready_host`), each journaled
before it is made; the ESXi processes start through a pseudo-terminal (:class:`EsxiStarted`) and are stopped by what
``ps -c -J`` shows; a server whose port is taken tries the next ports of its range; a copy ESXi refuses to run
(execInstalledOnly) puts back every change on that host at once and its tests say why (:data:`nicadvisor.bench.esxi
.EXEC_REFUSED`). Everything else left is put back at the end of the run, or at the next start after a crash.
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol

from . import BenchError, Cancelled, iperf3
from .catalogue import TestSpec, why_not
from .esxi import (
    EXEC_REFUSED, IPERF3, NO_RULESET, copy_path, exec_refused, listening_port, open_firewall, port_in_use,
)
from .esxi_firewall import Opening, plan_opening
from .journal import Journal
from .remote_process import PlannedTest, Session, StartedProcess, pidfile_path, wait_channel

if TYPE_CHECKING:
    import threading

    from .journal import Entry
    from .results import BenchResult


# What this module uses of the run above it (nicadvisor.bench.remote, which imports this module: these protocols keep
# the import one way, also for type checking).

class ProbedHost(Protocol):
    """A probed host as a pair's plan reads it (:class:`nicadvisor.bench.remote.HostProbe`)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def address(self) -> str | None: ...


class PairRequest(Protocol):
    """What the user asked for, as a pair's plan reads it (:class:`nicadvisor.bench.remote.RemoteRequest`):
    ``duration_s`` per test (s), the server's TCP ``port``."""

    @property
    def duration_s(self) -> float: ...

    @property
    def port(self) -> int: ...


class RunPlan(Protocol):
    """The confirmed plan as the ESXi steps read it (:class:`nicadvisor.bench.remote.RemotePlan`): each host's
    temporary folder, each ESXi host's changes, the default test ``duration_s`` (s)."""

    @property
    def duration_s(self) -> float: ...

    @property
    def esxi(self) -> Mapping[str, "EsxiHostPlan"]: ...

    @property
    def folders(self) -> Mapping[str, str]: ...


class BenchRun(Protocol):
    """The running benchmark as the ESXi steps use it (:class:`nicadvisor.bench.remote.RemoteBench`): its cancel
    event, its probed hosts, each host's SSH session, its undo backend, the wait for a listening server and the
    result of one test."""

    @property
    def cancel(self) -> "threading.Event": ...

    @property
    def probes(self) -> Mapping[str, ProbedHost]: ...

    def _conn(self, name: str) -> Session: ...

    def _undoer(self, lost_sentence: Callable[["Entry", Exception | None], str]
                ) -> Callable[["Entry"], tuple[bool, str]]: ...

    def _wait_listening(self, conn: Session, srv: StartedProcess, pt: PlannedTest) -> None: ...

    def _result(self, pt: PlannedTest, rc: int | None, out: str, err: str, server_out: str) -> "BenchResult": ...

#: How many ports of a ruleset's range a server tries when the first is taken.
PORT_TRIES = 4
READY_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class EsxiHostPlan:
    """An ESXi host's changes for the run: ``copy`` (the iperf3 copy's path, when it serves a test) and ``openings``
    (each firewall :class:`~nicadvisor.bench.esxi_firewall.Opening` with the peers it lets through)."""

    host: str
    copy: str | None = None
    openings: tuple[tuple[Opening, tuple[str, ...]], ...] = ()

    def lines(self) -> list[str]:
        """The host's changes in words (the plan's "Changes on HOST")."""
        out = []
        for opening, peers in self.openings:
            out += opening.lines(self.host, ", ".join(peers))
        if self.copy:
            out.append(f"copy {IPERF3} to {self.copy} (ESXi's own iperf3 refuses to listen under its name); removed "
                       "afterwards. If ESXi refuses to run the copy (its security setting execInstalledOnly, on by "
                       f"default since 8.0), every change on {self.host} is put back at once and the run says what "
                       "still works")
        return out


def _merge(plans: dict[str, EsxiHostPlan], host: str, opening: Opening, peer: str) -> None:
    hp = plans.get(host) or EsxiHostPlan(host)
    openings = list(hp.openings)
    for i, (o, peers) in enumerate(openings):
        if (o.ruleset, o.direction, o.protocol) == (opening.ruleset, opening.direction, opening.protocol):
            openings[i] = (o, tuple(dict.fromkeys((*peers, peer))))
            break
    else:
        openings.append((opening, (peer,)))
    plans[host] = EsxiHostPlan(host, hp.copy, tuple(openings))


def plan_pair(request: PairRequest, c: ProbedHost, s: ProbedHost, item: Any, tokens: dict[str, str],
              plans: dict[str, EsxiHostPlan], notes: list[str]) -> "PlannedTest | None":
    """The test ``item`` (a :class:`~nicadvisor.bench.catalogue.TestSpec` or a test name) from ``c`` to ``s`` when one
    of them is ESXi, or None with the reason in ``notes``. ``tokens``: each ESXi host's run token (names its copy);
    ``plans``: the ESXi hosts' changes, filled in. Pure."""

    spec = item if isinstance(item, TestSpec) else None
    test = spec.test if spec is not None else str(item)
    label = f"{spec.name if spec is not None else test} {c.name}→{s.name}"
    if test not in iperf3.TESTS:
        notes.append(f"{label}: an ESXi host runs only its own iperf3, which measures streams: {test} is not "
                     "measurable with it (ESXi has no netperf)")
        return None
    why = why_not(spec, "iperf3") if spec is not None else ""
    if why or (spec is not None and spec.direction == "bidirectional"):
        notes.append(f"{label}: {why or 'the bidirectional test runs with netperf only, which ESXi has not'}")
        return None
    missing = [h.name for h in (c, s) if "iperf3" not in h.tools]
    if missing:
        notes.append(f"{label}: iperf3 is not on {', '.join(missing)}"
                     + (f" (ESXi's is {IPERF3})" if any(h.kind == "esxi" and h.name in missing for h in (c, s))
                        else ""))
        return None
    protocols = ("TCP", "UDP") if test == "UDP_STREAM" else ("TCP",)
    port = request.port
    chosen: list[tuple[str, Opening, str]] = []
    for host, direction, peer in ((s, "Inbound", c.address), (c, "Outbound", s.address)):
        if host.kind != "esxi":
            continue
        fw = host.firewall
        if fw is None:
            notes.append(f"{label}: the firewall of {host.name} could not be read; nothing is planned on it")
            return None
        for proto in protocols:
            got = plan_opening(fw.state, fw.rulesets, list(fw.rules), fw.allowed, direction, proto, peer or "",
                               wanted=port)
            if isinstance(got, str):
                notes.append(f"{label}: " + NO_RULESET.format(why=got[0].upper() + got[1:], host=host.name))
                return None
            if direction == "Inbound" and proto == "TCP":
                port = got.port
            if not got.first <= port <= got.last:
                notes.append(f"{label}: port {port} is outside what ruleset {got.ruleset} of {host.name} opens "
                             f"({direction.lower()} {proto} {got.first}-{got.last}); not planned")
                return None
            chosen.append((host.name, got, peer or ""))
    for host, opening, peer in chosen:
        _merge(plans, host, opening, peer)
    secs = spec.duration_s if spec is not None else request.duration_s
    payload = spec.payload if spec is not None else None
    client = iperf3.client_argv(test, s.address or "", port, secs, payload=payload,
                                streams=spec.streams if spec is not None else 1) + ["-B", c.address or ""]
    if c.kind == "esxi":
        client[0] = IPERF3
    if s.kind == "esxi":
        hp = plans.get(s.name) or EsxiHostPlan(s.name)
        path = hp.copy or copy_path(tokens[s.name])
        plans[s.name] = EsxiHostPlan(s.name, path, hp.openings)
        server = [path, "-s", "-1", "-B", s.address or "", "-p", str(port)]
    else:
        server = iperf3.server_argv(s.address or "", port)
    return PlannedTest(client=c.name, server=s.name, test=test, tool="iperf3", client_addr=c.address or "",
                       server_addr=s.address or "", server_argv=tuple(server), client_argv=tuple(client), ports=(port,),
                       spec=spec)


def test_lines(pt: "PlannedTest", esxi_hosts: set[str], duration_s: float) -> dict[str, list[str]]:
    """The plan's lines of one test with an ESXi end: what starts on which host and how it ends."""
    out: dict[str, list[str]] = {}
    name = pt.spec.name if pt.spec is not None else pt.test
    runs = f", {pt.repetitions} times" if pt.repetitions > 1 else ""
    secs = pt.duration_s or duration_s
    if pt.server in esxi_hosts:
        out[pt.server] = [f"start `{shlex.join(pt.server_argv)}` through a pseudo-terminal (it ends with the SSH "
                          f"session) listening on {pt.server_addr} TCP {pt.ports[0]} for {name}{runs}, one test each "
                          "(-1); if ps -c -J still shows it afterwards, it is stopped"]
    else:
        out[pt.server] = [f"start `{shlex.join(pt.server_argv)}` listening on {pt.server_addr} TCP {pt.ports[0]} for "
                          f"{name}{runs}; stopped after the test (no firewall rule is changed)"]
    how = " through a pseudo-terminal" if pt.client in esxi_hosts else ""
    out[pt.client] = [f"start `{shlex.join(pt.client_argv)}`{how} for about {secs:g} s{runs} (traffic only to "
                      f"{pt.server_addr} on {pt.server})"]
    return out


# --- the run -------------------------------------------------------------------------------------------------------

@dataclass
class EsxiRunState:
    """Per run: the ESXi hosts made ready (firewall opened, copy made) and those refused, with the sentence."""

    ready: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(default_factory=dict)


def _runner(rb: BenchRun, host: str) -> Callable[[tuple[str, ...]], Any]:
    conn = rb._conn(host)
    return lambda argv: conn.run(argv, cancel=rb.cancel)


def _give_up(rb: BenchRun, journal: Journal, host: str, state: EsxiRunState, sentence: str) -> BenchError:
    """Put back every change of this run on ``host`` now, remember why its tests do not run."""
    source = rb._conn(host).target.source
    got = journal.undo_all(rb._undoer(lambda e, exc: f"could not put back {e.kind} on {host}: {exc}"), host=source)
    sentence += (f"; every change on {host} was put back" if not got.failed else
                 f"; not every change on {host} could be put back ({'; '.join(got.failed)})")
    state.refused[host] = sentence
    state.ready.discard(host)
    return BenchError(sentence)


def ready_host(rb: BenchRun, journal: Journal, plan: RunPlan, host: str, state: EsxiRunState) -> None:
    """Once per run and ESXi host: the firewall changes of its plan, then the copy of iperf3, each journaled before it
    is made. Raises :class:`BenchError` (ESXi refused a change: what was done is put back at once)."""
    if host in state.refused:
        raise BenchError(state.refused[host])
    if host in state.ready:
        return
    hp = plan.esxi.get(host) or EsxiHostPlan(host)
    run, source = _runner(rb, host), rb._conn(host).target.source
    try:
        for opening, peers in hp.openings:
            if opening.changes and opening.ruleset:
                open_firewall(run, journal, source, host, opening.ruleset, enable=opening.enable,
                              restrict=opening.restrict, add_peers=peers if (opening.restrict or opening.add_peer)
                              else ())
        if hp.copy:
            journal.record("esxi-file", host=source, path=hp.copy)
            got = run(("cp", IPERF3, hp.copy))
            if got.rc != 0:
                first = next((ln.strip() for ln in (got.err + got.out).splitlines() if ln.strip()), "")
                raise BenchError(f"could not copy {IPERF3} on {host}: {first or f'exit status {got.rc}'}")
    except BenchError as exc:
        raise _give_up(rb, journal, host, state, str(exc)) from None
    state.ready.add(host)


class EsxiStarted(StartedProcess):
    """A process started on ESXi through a pseudo-terminal, journaled (``esxi-process``: its command line, by which
    ``ps -c -J`` finds it). Context manager: leaving it stops what ``ps`` still shows (the journal's undo of the row,
    :func:`nicadvisor.bench.esxi.undo_esxi_entry`) and closes the channel."""

    def __init__(self, rb: BenchRun, journal: Journal, host: str, argv: tuple[str, ...]) -> None:
        super().__init__(rb._conn(host), journal, argv, "")
        self.text = ""

    def __enter__(self) -> "EsxiStarted":
        self.entry = self.journal.record("esxi-process", host=self.conn.target.source, argv=list(self.argv))
        try:
            self.chan = self.conn.open(self.argv, pty=True)
        except BaseException:
            self.__exit__()
            raise
        return self

    def read(self) -> str:
        """What the process printed so far (a pseudo-terminal merges stdout and stderr), without waiting."""
        self.text += self.output()
        return self.text


def _with_port(argv: tuple[str, ...], port: int) -> tuple[str, ...]:
    out = list(argv)
    out[out.index("-p") + 1] = str(port)
    return tuple(out)


def _start_server(rb: BenchRun, journal: Journal, plan: RunPlan, pt: "PlannedTest",
                  state: EsxiRunState) -> tuple[EsxiStarted, "PlannedTest"]:
    """Start the ESXi server of ``pt`` (its copy of iperf3) and wait for ``Server listening on PORT``; a taken port
    moves to the next ports of the ruleset's range. Returns the started process (entered) and the test with its
    port. Raises :class:`BenchError` (the copy refused: every change on the host is put back)."""
    from dataclasses import replace as _replace

    hp = plan.esxi.get(pt.server)
    last = next((o.last for o, _p in (hp.openings if hp else ()) if o.direction == "Inbound" and o.protocol == "TCP"),
                pt.ports[0])
    port = pt.ports[0]
    for port in range(pt.ports[0], max(pt.ports[0] + 1, min(pt.ports[0] + PORT_TRIES, last + 1))):
        trial = _replace(pt, server_argv=_with_port(pt.server_argv, port), client_argv=_with_port(pt.client_argv, port),
                         ports=(port,))
        srv = EsxiStarted(rb, journal, pt.server, trial.server_argv).__enter__()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            text = srv.read()
            refusal = exec_refused(text)
            if refusal:
                srv.__exit__()
                raise _give_up(rb, journal, pt.server, state, EXEC_REFUSED.format(line=refusal, host=pt.server))
            if listening_port(text) == port:
                return srv, trial
            if port_in_use(text) or (srv.exited() and "in use" in text):
                srv.__exit__()
                break  # the next port of the range
            if srv.exited():
                srv.__exit__()
                last_line = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
                raise BenchError(f"{trial.server_argv[0]} on {pt.server} exited (status {srv.chan.exit_status}) "
                                 f"before listening on TCP {port}" + (f": {last_line}" if last_line else ""))
            if rb.cancel.is_set():
                srv.__exit__()
                raise Cancelled()
            if time.monotonic() > deadline:
                srv.__exit__()
                raise BenchError(f"{trial.server_argv[0]} on {pt.server} did not listen on TCP {port} within "
                                 f"{READY_TIMEOUT_S:g} s")
            time.sleep(0.05)
    raise BenchError(f"TCP ports {pt.ports[0]}-{port} are in use on {pt.server}; the test was not started")


def run_one(rb: BenchRun, journal: Journal, plan: RunPlan, pt: "PlannedTest", counter: list[int],
            on_tick: Callable[[float], None], problems: list[str], state: EsxiRunState) -> Any:
    """One run of ``pt`` with an ESXi end (module docstring); returns its :class:`~nicadvisor.bench.results
    .BenchResult`. Raises :class:`BenchError`, :class:`Cancelled`, RemoteHostLost."""
    esxi = {h for h in (pt.server, pt.client) if rb.probes[h].kind == "esxi"}
    for host in sorted(esxi):
        ready_host(rb, journal, plan, host, state)
    secs = (pt.duration_s or plan.duration_s) + 20
    srv_esxi: EsxiStarted | None = None
    srv_linux: Any = None
    try:
        if pt.server in esxi:
            srv_esxi, pt = _start_server(rb, journal, plan, pt, state)
        else:
            counter[0] += 1
            srv_linux = StartedProcess(rb._conn(pt.server), journal, pt.server_argv,
                                 pidfile_path(plan.folders[pt.server], counter[0])).__enter__()
            rb._wait_listening(rb._conn(pt.server), srv_linux, pt)
        if pt.client in esxi:
            cli: StartedProcess = EsxiStarted(rb, journal, pt.client, pt.client_argv)
        else:
            counter[0] += 1
            cli = StartedProcess(rb._conn(pt.client), journal, pt.client_argv, pidfile_path(plan.folders[pt.client], counter[0]))
        try:
            with cli:
                rc, out, err = wait_channel(cli.chan, secs, rb.cancel, name=pt.client, what=shlex.join(pt.client_argv),
                                            on_tick=on_tick)
        finally:
            problems.extend(cli.problems)
        server_out = srv_esxi.read() if srv_esxi is not None else (srv_linux.output() if srv_linux.exited() else "")
    finally:
        if srv_esxi is not None:
            srv_esxi.__exit__()
            problems.extend(srv_esxi.problems)
        if srv_linux is not None:
            srv_linux.__exit__()
            problems.extend(srv_linux.problems)
    return rb._result(pt, rc, out, err, server_out)
