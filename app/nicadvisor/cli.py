"""``nic-advisor``: the command line. Everything the wizard does also runs headless here.

Exit codes of ``audit`` and ``history ID`` follow the verdict (:mod:`nicadvisor.model.verdict`):
0 = READY, 1 = NOT READY (at least one finding of error severity), 2 = NOT RATED (nothing or not enough could
be read, an input yielded no host, the audit was interrupted) or an input/usage error (bad arguments, a report
that cannot be written). ``demo`` exits 0 once it ran and printed its verdict (the demo lab is NOT READY by design:
a newcomer's ``setup && nic-advisor demo`` must not look failed), 2 when its reports cannot be written.
Options that take several values (``--capture A B``) also accumulate when repeated (``--capture A --capture B``).
``bench`` exits 0 when tests ran and none is below its expected band (FAIL), 1 when one is (``--mtu-check``: when
a size did not pass), 2 when none could run or the input is wrong. ``verify --against ID`` exits 0 when every
target of the approved plan is done, 1 when one is not done or changed differently, 2 when none is known undone
but one could not be re-read, or the input is wrong. Every command exits :data:`EXIT_INTERNAL` (3) on
an internal error (a bug): one sentence on stderr, never a verdict, the reports already written kept; and
:data:`EXIT_INTERRUPTED` (130) after Ctrl-C (a benchmark cancelled by SIGTERM: 143). A benchmark that could not put
back a change on a host exits :data:`EXIT_HOST_CHANGED` (4), whatever its results, and ends with ``HOST left changed:``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

EXIT_READY, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2
#: Exit code of an internal error (a bug, not a verdict): distinct from every verdict and from refused input.
EXIT_INTERNAL = 3
#: Exit code after Ctrl-C (128 + SIGINT, as a shell reports it), a benchmark's too; a benchmark cancelled by SIGTERM
#: exits 128 + SIGTERM = 143.
EXIT_INTERRUPTED = 130
#: Exit code of a benchmark that could not put back a change it made on a host (an ESXi firewall ruleset left open):
#: its last lines say ``HOST left changed: …`` with the command to undo it by hand (issue 29 §4).
EXIT_HOST_CHANGED = 4


#: Most causes, findings and inputs not understood the summary prints (all are in the JSON); ``--quiet`` prints fewer.
CAUSES_SHOWN, FINDINGS_SHOWN, PROBLEMS_SHOWN = 10, 50, 40
QUIET_SHOWN = 5
#: Longest list of a group's member names on one summary line (characters; the host index of the PDF/HTML names all).
NAMES_CHARS = 160


def _print_audit(audit, out=None, quiet: bool = False) -> None:
    """The audit's summary on ``out`` (default stdout), its inputs not understood on stderr (each name and message
    escaped on its line by :class:`_TerminalSafe`). Alike hosts are reported once per group
    (:func:`nicadvisor.report.fleet.host_groups`), and inputs not understood once per group and file
    (:func:`nicadvisor.report.fleet.grouped_problems`). ``quiet``: the verdict, its changes and one line per group
    only (the per-host detail is in the reports): at most about 60 lines for a fleet of 500 hosts of ten kinds."""
    from nicadvisor.model import Severity
    from nicadvisor.model.entities import findings_by_host
    from nicadvisor.model.verdict import coverage_of
    from nicadvisor.model.text import plural
    from nicadvisor.report.decision import verdict_lines
    from nicadvisor.report.fleet import compact_names, grouped_problems, host_groups
    from nicadvisor.vcg.builds import release_text

    out = out or sys.stdout
    verdict = audit.verdict
    print(f"Verdict: {verdict.symbol} {verdict.headline}", file=out)
    shown = QUIET_SHOWN if quiet else CAUSES_SHOWN
    for cause in verdict.causes[:shown]:
        print(f"  cause: {cause}", file=out)
    if len(verdict.causes) > shown:
        print(f"  … and {len(verdict.causes) - shown} more causes (JSON verdict.causes)", file=out)
    for heading, line in verdict_lines(verdict):
        print(f"  {heading.lower() or '…'}: {line}" if heading else f"  {line}", file=out)
    print(coverage_of(audit, verdict).text, file=out)
    host_verdicts = {hv.host: hv for hv in verdict.hosts}
    by_host = findings_by_host(list(audit.findings))
    groups = host_groups(audit, by_host, host_verdicts)
    for n, group in enumerate(groups, start=1):
        host = group.host
        phys = [p for p in host.pnics if p.is_physical is not False]
        release = release_text(host)
        names = compact_names(group.hosts)
        if len(names) > NAMES_CHARS:
            names = names[:NAMES_CHARS].rsplit(", ", 1)[0] + ", … (every host: the reports' host index)"
        who = host.name if group.size == 1 else f"{group.size} alike hosts: {names}"
        hv = host_verdicts.get(host.name)
        if quiet:
            print(f"{n}. {who} ({host.kind or 'unknown kind'}{', ESXi release ' + release if release else ''}): "
                  f"{plural(len(phys), 'pNIC')}{' each' if group.size > 1 else ''}; {hv.label + ': ' + hv.reason if hv else '?'}",
                  file=out)
            continue
        print(f"{n}. {who} ({host.kind or 'unknown kind'}{', ESXi release ' + release if release else ''}): "
              + plural(len(phys), "pNIC") + (f" each (the first, {host.name}, shown)" if group.size > 1 else ""), file=out)
        for p in phys:
            speed = f"{p.link_speed_mbps / 1000:g} Gbit/s" if p.link_speed_mbps else ("link down" if p.link_up is False else "speed unknown")
            ids = ":".join(x or "????" for x in (p.vid, p.did, p.svid, p.ssid))
            print(f"  {p.name:<10} {p.driver or '?':<12} {speed:<14} MTU {p.mtu or '?':<5} PCI {ids}", file=out)
        _print_finish(hv, out)
        _print_not_run(host, out)
        _print_conflicts(host, out)
        _print_not_on_host(phys, out)
    differ = [h for h in audit.hosts if h.conflicts]
    if differ:  # issue 24 §3: said in the summary too (each host's pair in its block and in the reports)
        unknown = sum(1 for h in differ for c in h.conflicts if not c.order_known)
        print(f"Evidence from different times: {sum(len(h.conflicts) for h in differ)} fact(s) on {len(differ)} "
              f"host(s) stated differently by two captures ({unknown} of unknown order: neither preferred; the "
              "newer used otherwise; JSON hosts[].conflicts)", file=out)
    _print_attestations(audit, out)
    counts = {s: sum(1 for f in audit.findings if f.severity is s) for s in Severity}
    print(f"Findings: {counts[Severity.ERROR]} error, {counts[Severity.WARNING]} warning, {counts[Severity.INFO]} info", file=out)
    if not quiet:
        listed = sorted((f for f in audit.findings if f.severity is not Severity.INFO), key=lambda f: f.severity.rank)
        for f in listed[:FINDINGS_SHOWN]:
            print(f"  [{f.severity.value}] {f.target}: {f.title}", file=out)
        if len(listed) > FINDINGS_SHOWN:
            print(f"  … and {len(listed) - FINDINGS_SHOWN} more (JSON findings; the plan groups them by rule)", file=out)
    problems = grouped_problems(audit, groups)
    limit = QUIET_SHOWN if quiet else PROBLEMS_SHOWN
    for p in problems[:limit]:
        where = p.source if len(p.hosts) <= 1 else (
            f"{p.source.rsplit('/', 1)[-1]} on {len(p.hosts)} hosts of group {p.group} ({compact_names(p.hosts)[:NAMES_CHARS]})")
        print(f"input {where}: {p.message}", file=sys.stderr)
    if len(problems) > limit:
        print(f"… and {len(problems) - limit} more inputs not understood (JSON inputs_not_understood)", file=sys.stderr)


def _print_not_on_host(pnics, out) -> None:
    """The values of ``pnics`` not read on the host, one line per pNIC and origin: ``enp2s0 from the server's BMC
    (Redfish): pcie speed gts 5, pcie width 4`` / ``enp2s0 attested by alice on 2026-11-30: mtu 9000``."""
    from nicadvisor.model.capabilities import CATALOGUE_ORIGIN, origin_of

    for p in pnics:
        by_origin: dict[str, list[str]] = {}
        for name, ev in p.evidence.items():
            origin = origin_of(ev)
            if origin and origin != CATALOGUE_ORIGIN and getattr(p, name, None) is not None:
                value = getattr(p, name)
                shown = ("yes" if value else "no") if isinstance(value, bool) else f"{value:g}" if isinstance(
                    value, float) else str(value)
                by_origin.setdefault(origin, []).append(f"{name.replace('_', ' ')} {shown}")
        for origin, facts in by_origin.items():
            print(f"  {p.name} {origin}: {', '.join(facts)}", file=out)


def _print_attestations(audit, out) -> None:
    """What people checked by hand and what became of it (decided, agrees, overruled by the host, not applied)."""
    if not audit.attestations:
        return
    print(f"Attested by hand ({len(audit.attestations)}; a reading on the host wins):", file=out)
    for o in audit.attestations:
        a = o.attestation
        where = f"{a.host}/{a.pnic}" if a.pnic else a.host
        print(f"  {where} {a.check}: {a.value_text()} — {a.label} ({a.how}): {o.status}"
              + (f", {o.note}" if o.note else ""), file=out)


def _print_finish(hv, out) -> None:
    """A host's verdict and, unless READY, its "Finish this audit" block: the read-only commands still needed."""
    if hv is None:
        return
    print(f"  verdict: {hv.label}: {hv.reason}", file=out)
    if hv.finish:
        print("  Finish this audit (read-only; run on the host, then audit again with the outputs):", file=out)
        for command in hv.finish:
            print(f"    {command}", file=out)


def _print_conflicts(host, out) -> None:
    """Facts two captures of ``host`` state differently (issue 24 §3): both values, files and capture dates, and
    which one is used (the newer) or that neither is preferred (order unknown)."""
    for c in host.conflicts:
        print(f"  evidence from different times: {c.text()}", file=out)


#: At most this many commands a host could not run are printed in the summary (all are in the JSON ``not_run``).
NOT_RUN_SHOWN = 8


def _print_not_run(host, out) -> None:
    """The catalogue commands a collector could not run on ``host`` (or ran only partly), by reason, with what the
    host said; at most :data:`NOT_RUN_SHOWN`."""
    from nicadvisor.model.entities import not_run_groups

    if not host.not_run:
        return
    print(f"  Commands that could not run ({len(host.not_run)}):", file=out)
    shown = 0
    for label, items in not_run_groups(host.not_run):
        print(f"    {label} ({len(items)}):", file=out)
        for n in items:
            if shown == NOT_RUN_SHOWN:
                break
            print(f"      {n.command}" + (f"  [{n.detail}]" if n.detail else ""), file=out)
            shown += 1
    if len(host.not_run) > shown:
        print(f"    … and {len(host.not_run) - shown} more (JSON: hosts[].not_run)", file=out)


def _exit_code(audit) -> int:
    """The exit code of the audit's verdict: 0 READY, 1 NOT READY, 2 NOT RATED."""
    return audit.verdict.exit_code


def _export(audit, args, store=None) -> bool:
    """Write the requested reports (with ``store``, the audit history, the PDF/HTML show earlier benchmark runs of
    the same tests); False (with the reason on stderr) when one cannot be written."""
    from nicadvisor.services.export import ReportsNotWritten, export_audit

    try:
        for path in export_audit(audit, pdf=args.pdf, json=args.json, csv=args.csv, html=getattr(args, "html", None),
                                 store=store):
            print(f"wrote {path}")
    except ReportsNotWritten as exc:  # each report on its own: those written are said, each failure in one sentence
        for path in exc.written:
            print(f"wrote {path}")
        for sentence in exc.failures:
            print(f"nic-advisor: {sentence}", file=sys.stderr)
        return False
    except OSError as exc:
        print(f"nic-advisor: cannot write {exc.filename or 'the report'}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def cmd_audit(args) -> int:
    """``nic-advisor audit``: audit the given inputs, print a summary, write the reports. Returns the exit code."""
    from nicadvisor.services.audit import AuditRequest, HistoryWriter, run_audit

    from nicadvisor.cli_live import LiveArgsError, ask_host_key_on_terminal, build_targets

    if not (args.demo or args.capture or args.local or args.vcenter or args.ssh or args.nsx):
        print("nic-advisor audit: give --demo, --capture PATH, --local, --vcenter URL, --ssh USER@HOST or --nsx URL",
              file=sys.stderr)
        return EXIT_INPUT
    try:
        live = build_targets(args)
    except LiveArgsError as exc:
        print(f"nic-advisor audit: {exc}", file=sys.stderr)
        return EXIT_INPUT
    attested = _load_attestations(getattr(args, "attestations", None))
    if attested is None:
        return EXIT_INPUT
    live["attestations"] = attested  # what people checked by hand, with the live targets' BMCs
    request = AuditRequest(demo=args.demo, capture_paths=tuple(args.capture or ()), local=args.local,
                           ask_host_key=ask_host_key_on_terminal, save_captures=args.save_captures,
                           target_nsx=getattr(args, "target_nsx", None), **live)
    store = None if args.no_history else _open_store()
    if store is not None:
        store = HistoryWriter(store)
    try:
        audit = run_audit(request, progress=None if args.quiet else _stderr_progress, store=store)
        audit.evidence_max_age_days = getattr(args, "max_evidence_age", None)
        if args.bench:
            from nicadvisor.cancel import Cancelled

            try:
                audit.benchmarks.extend(_run_bench(_bench_request(args)).results)
            except Cancelled:  # the audit itself is kept; the benchmark's changes were undone
                print(CANCELLED, file=sys.stderr)
            except OSError as exc:  # the undo journal: the audit is kept, no benchmark ran
                print(f"nic-advisor audit: the benchmark did not run: {_journal_problem(exc)}", file=sys.stderr)
        if store is not None and audit.history_id is not None:
            if audit.benchmarks:
                store.set_benchmarks(audit.history_id, audit.benchmarks)
        if store is not None and store.problem:
            print(f"audit history not used: {store.problem}; this audit is not saved in it", file=sys.stderr)
        elif store is not None and audit.history_id is not None:
            print(f"saved as audit #{audit.history_id} in {store.path}", file=sys.stderr)
        written = _export(audit, args, store)  # the reports first: nothing printed below can lose them
        _print_audit(audit, quiet=bool(getattr(args, "quiet", False)))
        if not written:
            return EXIT_INPUT
    finally:
        if store is not None:
            store.close()
    if getattr(args, "demo_run", False):  # the demo ran and printed its verdict: that is its success
        return EXIT_READY
    if audit.verdict.status != "ready":
        print(f"nic-advisor audit: {audit.verdict.headline}", file=sys.stderr)
    return _exit_code(audit)


def _load_attestations(path) -> tuple | None:
    """The attestations of ``--attestations FILE`` (``()`` without one); None, with the reason on stderr, when the
    file cannot be used (the audit does not run on half of what a person attested)."""
    if not path:
        return ()
    from nicadvisor.services.attestations import AttestationError, load_attestations

    try:
        return tuple(load_attestations(path))
    except AttestationError as exc:
        print(f"nic-advisor audit: --attestations {exc}", file=sys.stderr)
        return None


def cmd_attest(args) -> int:
    """``nic-advisor attest``: record what a person checked by hand in an attestation file (created when missing).
    Returns 0, or 2 when the attestation or the file is not valid (nothing written)."""
    from nicadvisor.model.attestations import HOST_CHECKS, Attestation
    from nicadvisor.services.attestations import AttestationError, add_attestation, parse_value

    try:
        if args.check not in HOST_CHECKS and not args.pnic:
            raise AttestationError(f"the check {args.check!r} is about a pNIC: give --pnic")
        value = dict(parse_value(args.check, v) for v in args.value)
        import datetime as _dt

        when = args.when or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
        attestation = Attestation(check=args.check, host=args.host, pnic=args.pnic or "", value=value,
                                  who=args.who, when=when, how=args.how)
        path = add_attestation(args.file, attestation)
    except AttestationError as exc:
        print(f"nic-advisor attest: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        print(f"nic-advisor attest: cannot write {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    print(f"recorded in {path}: {args.host}{'/' + args.pnic if args.pnic else ''} {args.check}: "
          f"{attestation.value_text()} ({attestation.label})")
    return 0


def _open_store():
    """The audit history, or None (with a message) when it cannot be opened."""
    from nicadvisor.services.history import open_history

    store, problem = open_history()
    if store is None:
        print(f"audit history not available, continuing without it: {problem}", file=sys.stderr)
    return store


def cmd_history(args) -> int:
    """``nic-advisor history [ID]``: list past audits, or reopen one and export it again. Returns the exit code."""
    from nicadvisor.store import AuditNotFound, HistoryError

    store = _open_store()
    if store is None:
        return EXIT_INPUT
    try:
        return _history(store, args, AuditNotFound)
    except HistoryError as exc:  # damage found while reading (AuditNotFound is answered where it is met)
        print(f"nic-advisor history: {exc}", file=sys.stderr)
        return EXIT_INPUT
    finally:
        store.close()


def _nsx_version(text: str) -> str:
    """argparse type of ``--target-nsx``: an NSX version (``4.2``)."""
    from nicadvisor.vcg.nsx_interop import valid_nsx_version

    try:
        return valid_nsx_version(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _history_id(text: str) -> int | str:
    """argparse type of ``history``'s first argument: an audit id, or the word ``diff``."""
    if text == "diff":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither an audit id nor 'diff'") from None


def _history_diff(store, args, AuditNotFound) -> int:
    """``history diff BEFORE AFTER``: what changed between two stored audits (text; JSON with --json, PDF with --pdf)."""
    from nicadvisor.model.diff import diff_lines
    from nicadvisor.services.history import compare_audits

    if len(args.ids) != 2:
        print("nic-advisor history diff: give two audit ids, BEFORE and AFTER", file=sys.stderr)
        return EXIT_INPUT
    try:
        diff = compare_audits(store, *args.ids)
    except AuditNotFound as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT
    print(f"Audit #{args.ids[0]} → #{args.ids[1]}")
    for line in diff_lines(diff):
        print(line)
    if args.json:
        from nicadvisor.report.json_export import atomic_write

        text = json.dumps({"before_id": args.ids[0], "after_id": args.ids[1], **diff.to_dict()}, indent=2,
                          ensure_ascii=False, default=str) + "\n"
        try:
            atomic_write(args.json, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        except OSError as exc:
            print(f"nic-advisor: cannot write {exc.filename or args.json}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_INPUT
        print(f"wrote {args.json}")
    if args.pdf:
        from nicadvisor.report.pdf import write_diff_pdf

        try:
            write_diff_pdf(diff, args.pdf)
        except OSError as exc:
            print(f"nic-advisor: cannot write {exc.filename or args.pdf}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_INPUT
        print(f"wrote {args.pdf}")
    return EXIT_READY


def _history(store, args, AuditNotFound) -> int:
    from nicadvisor.model.text import plural
    if args.id == "diff":
        return _history_diff(store, args, AuditNotFound)
    if args.ids:
        print("nic-advisor history: one audit id at a time (compare two with: history diff BEFORE AFTER)",
              file=sys.stderr)
        return EXIT_INPUT
    if args.id is None:
        for a in store.list_audits():
            v = a.verdict_of()
            name = f"“{a.name}”  " if a.name else ""
            print(f"#{a.id:<5} {a.created_at}  {name}{a.display_status:<12} {v.symbol} {v.headline}  ·  {plural(a.hosts, 'host')}, {plural(a.pnics, 'pNIC')}, "
                  f"{a.errors if a.errors is not None else '?'} errors, {a.warnings if a.warnings is not None else '?'} warnings"
                  f"  {', '.join(a.inputs)}" + (f"  ·  could not be read: {', '.join(a.unread)}" if a.unread else ""))
        return EXIT_READY
    from nicadvisor.services.audit import reopen_audit

    try:
        audit = reopen_audit(store, args.id)
    except AuditNotFound as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT
    written = _export(audit, args, store)
    _print_audit(audit)
    if not written:
        return EXIT_INPUT
    return _exit_code(audit)


def _stderr_progress(fraction: float, message: str) -> None:
    print(f"[{fraction * 100:3.0f}%] {message}", file=sys.stderr)


def _bench_request(args):
    """The :class:`~nicadvisor.services.bench.BenchRequest` of ``bench``/``audit --bench`` arguments: the netns or
    loopback path, and with ``--profile`` its own seconds per test unless ``--duration`` is given. Pure."""
    from nicadvisor.services.bench import BenchRequest, duration_for

    profile = getattr(args, "profile", None)
    return BenchRequest(path="netns" if args.netns else "loopback", duration_s=duration_for(profile, args.duration),
                        tool=args.tool,
                        rate_mbit=args.rate_mbit, profile=profile, repetitions=getattr(args, "repetitions", None))


#: What ``bench`` says when a signal cancelled it (every change is undone first).
CANCELLED = "nic-advisor bench: cancelled; the running test was stopped and its changes undone"
#: Signals that cancel a running benchmark as Ctrl-C does: what is running stops and every change is undone
#: (SIGTERM comes from systemd, ``timeout`` or a CI cancel; it used to leave namespaces and a netserver behind).
CANCEL_SIGNALS = ("SIGINT", "SIGTERM")


#: The signal that last cancelled a benchmark (its number), for the exit code 128 + it.
_cancelled_by: list[int] = []


def _cancelled_exit() -> int:
    """The exit code of a benchmark cancelled by a signal: 128 + its number (Ctrl-C: :data:`EXIT_INTERRUPTED`)."""
    return 128 + _cancelled_by[-1] if _cancelled_by else EXIT_INTERRUPTED


def _on_cancel_signal(cancel: threading.Event, sig: int) -> None:
    _cancelled_by.append(sig)
    cancel.set()


@contextmanager
def _cancel_on_signals(cancel: threading.Event):
    """While inside, :data:`CANCEL_SIGNALS` set ``cancel`` instead of ending the process (main thread only)."""
    import signal

    previous = {}
    for name in CANCEL_SIGNALS:
        sig = getattr(signal, name)
        previous[sig] = signal.signal(sig, lambda sig_, _frame: _on_cancel_signal(cancel, sig_))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run_bench(request):
    from nicadvisor.services.bench import run_quick_bench

    cancel = threading.Event()
    with _cancel_on_signals(cancel):
        return run_quick_bench(request, progress=_stderr_progress, cancel=cancel)


def cmd_bench(args) -> int:
    """``nic-advisor bench``: the quick benchmark; prints Gbit/s, µs and transactions/s. With ``--between A B [C ...]``
    the tests run between those hosts over SSH (:func:`_bench_between`). Returns the exit code."""
    problem = _json_target_problem(args.json)
    if problem:
        print(f"nic-advisor bench: {problem}", file=sys.stderr)
        return EXIT_INPUT
    if args.between:
        return _bench_between(args)
    if args.tests is not None:
        print("nic-advisor bench: --tests is for --between; on this machine choose the tests with --profile",
              file=sys.stderr)
        return EXIT_INPUT
    if args.repetitions is not None and not args.profile:
        print("nic-advisor bench: --repetitions needs --profile", file=sys.stderr)
        return EXIT_INPUT
    request = _bench_request(args)
    try:
        request.validate()
    except ValueError as exc:
        print(f"nic-advisor bench: {exc}", file=sys.stderr)
        return EXIT_INPUT
    from nicadvisor.cancel import Cancelled

    try:
        report = _run_bench(request)
    except Cancelled:
        print(CANCELLED, file=sys.stderr)
        return _cancelled_exit()
    except OSError as exc:  # no change is made without its undo journal
        print(f"nic-advisor bench: {_journal_problem(exc)}", file=sys.stderr)
        return EXIT_INPUT
    return _print_bench(report, args)


def _journal_problem(exc: OSError) -> str:
    """One sentence for a benchmark that could not write its undo journal (a read-only state folder)."""
    where = f" in {exc.filename}" if exc.filename else ""
    return f"the undo journal cannot be written{where} ({exc.strerror or exc}); nothing was changed or run"


def _json_target_problem(path) -> str:
    """Why ``--json PATH`` cannot be written, checked before anything runs ("" when it can): a folder is refused;
    a missing parent folder is created, as ``history --json`` does."""
    if path is None:
        return ""
    target = Path(path)
    if target.is_dir():
        return f"--json {target}: a folder, not a file"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--json {target}: its folder cannot be made: {exc.strerror or exc}"
    return ""


def _print_results(results) -> None:
    """One block per benchmark result: measured, expected band and verdict, the comparison in words, the band's notes
    and (between hosts) its endpoints and path conditions."""
    for r in results:
        measured = (_rate_text(r.throughput_gbps) if r.throughput_gbps is not None
                    else f"{r.latency_us:.1f} µs ({r.transactions_per_s:.0f} transactions/s)"
                    if r.latency_us is not None and r.transactions_per_s else "—")
        label = r.spec or r.test
        expected = f"  expected {r.expected.text()}" if r.expected else ""
        verdict = f"  {r.verdict().upper()}" if r.verdict() else ""
        print(f"{label:<19} {r.tool:<8} {r.path:<9} {measured}{expected}{verdict}")
        print(f"    {r.comparison()}")
        for note in r.expected.notes if r.expected else ():
            print(f"    note: {note}")
        if r.path == "remote":
            print(f"    [{r.endpoints}" + (f"; {r.path_conditions}" if r.path_conditions else "") + "]")


def _write_bench_json(path, doc: dict) -> bool:
    """Write ``bench --json``; False (with the reason on stderr) when it cannot be written."""
    try:
        from nicadvisor.atomic_file import write_text

        write_text(path, json.dumps(doc, indent=2))  # never through a planted link (issue 29 §1)
    except OSError as exc:
        print(f"nic-advisor bench: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    print(f"wrote {path}")
    return True


def _print_bench(report, args) -> int:
    from nicadvisor.report.json_export import benchmark_entry

    _print_results(report.results)
    for p in report.problems:
        print(f"problem: {p}", file=sys.stderr)
    doc = {"results": [benchmark_entry(r) for r in report.results], "problems": report.problems}
    if args.json and not _write_bench_json(args.json, doc):
        return EXIT_INPUT
    if not report.results:
        return EXIT_INPUT
    return EXIT_FINDINGS if any(r.verdict() == "fail" for r in report.results) else EXIT_READY


def _rate_text(gbps: float) -> str:
    """``"9.42 Gbit/s"``, or in Mbit/s below 1 Gbit/s (``"47.9 Mbit/s"``): never ``"0.00 Gbit/s"``."""
    return f"{gbps:.2f} Gbit/s" if gbps >= 1 else f"{gbps * 1000:.3g} Mbit/s"


def _between_targets(args) -> tuple[tuple, dict[str, str]]:
    """The SSH target of each ``--between`` host, with the same target syntax, passwords and host-key trust as
    ``audit --ssh`` (:func:`nicadvisor.cli_live.build_targets`), and ``{target source: interface}`` of the
    ``--interface HOST=IF`` given (HOST as in ``--between``, its name, address or address:port); ``--kind esxi`` makes
    every host ESXi, ``--kind HOST=esxi`` one of them. Raises LiveArgsError."""
    from nicadvisor.cli_live import LiveArgsError, build_targets

    default_kind, kinds = "linux", {}
    for v in args.kind or []:
        host, sep, kind = v.rpartition("=")
        if kind not in ("esxi", "linux") or (sep and not host):
            raise LiveArgsError(f"--kind expects esxi, linux or HOST=esxi|linux, not {v!r}")
        if sep:
            kinds[host.lower()] = kind
        else:
            default_kind = kind
    live = build_targets(argparse.Namespace(
        vcenter=None, nsx=None, ssh=args.between, user=None, kind=default_kind, ssh_key=args.ssh_key, thumbprint=[],
        trust_host_key=args.trust_host_key, remember_password=args.remember_password,
        password_stdin=args.password_stdin, password_file=args.password_file, save_captures=None, datacenter=None,
        cluster=None, esxcli_over_api=False, timeout=args.timeout))
    interfaces: dict[str, str] = {}
    for v in args.interface:
        host, sep, iface = v.rpartition("=")
        if not sep or not host or not iface:
            raise LiveArgsError(f"--interface expects HOST=IF, not {v!r}")
        interfaces[host.lower()] = iface
    targets, named = [], set()
    for spec, t in zip(args.between, live["ssh"]):
        keys = [k for k in (spec.lower(), t.name.lower(), t.host.lower(), f"{t.host}:{t.port}".lower()) if k in kinds]
        named.update(keys)
        targets.append(dataclasses.replace(t, kind=kinds[keys[0]]) if keys else t)
    if set(kinds) - named:
        raise LiveArgsError(f"--kind names a host that is not in --between: {', '.join(sorted(set(kinds) - named))}")
    live["ssh"] = tuple(targets)
    chosen, used = {}, set()
    for spec, t in zip(args.between, live["ssh"]):
        keys = [k for k in (spec.lower(), t.name.lower(), t.host.lower(), f"{t.host}:{t.port}".lower()) if k in interfaces]
        used.update(keys)
        if keys:
            chosen[t.source] = interfaces[keys[0]]
    unknown = sorted(set(interfaces) - used)
    if unknown:
        raise LiveArgsError(f"--interface names a host that is not in --between: {', '.join(unknown)}")
    return live["ssh"], chosen


def _between_request(args):
    """The :class:`~nicadvisor.services.between.BetweenRequest` of ``bench --between`` arguments: the tests run when
    asked for (``--tests``, ``--profile``) or when ``--mtu-check`` is not given; the MTU check first with
    ``--mtu-check``. Raises LiveArgsError."""
    from nicadvisor.cli_live import LiveArgsError
    from nicadvisor.services.between import BetweenRequest

    if args.profile and args.tests is not None:
        raise LiveArgsError("give --tests or --profile, not both (a profile has its own tests)")
    hosts, interfaces = _between_targets(args)
    return BetweenRequest(hosts=hosts, interfaces=interfaces, tests=tuple(args.tests or ("TCP_STREAM", "TCP_RR")),
                          profile=args.profile, duration_s=args.duration, repetitions=args.repetitions,
                          tool=args.tool, port=args.port,
                          run_tests=not args.mtu_check or args.tests is not None or args.profile is not None,
                          mtu_check=args.mtu_check, audit_id=args.audit)


def _plan_confirmed(args) -> bool:
    """``--yes``, or the user said yes on the terminal; False (nothing changed, said why) otherwise."""
    if args.yes:
        return True
    if sys.stdin is None or not sys.stdin.isatty():
        print("nic-advisor bench: nothing was changed; standard input is not a terminal, so confirm the plan "
              "above with --yes", file=sys.stderr)
        return False
    if input("Make these changes and run the tests? [y/N] ").strip().lower() not in ("y", "yes"):
        print("nothing was changed", file=sys.stderr)
        return False
    return True


def _bench_between(args) -> int:
    """``bench --between``: connect and probe (read-only), print exactly what will change on which host, ask (or
    require ``--yes`` without a terminal), then run in one service call (:func:`nicadvisor.services.between
    .run_between`): the MTU check first with ``--mtu-check``, then the tests; Ctrl-C or SIGTERM cancels the running
    test and undoes every change."""
    from nicadvisor.cancel import Cancelled
    from nicadvisor.cli_live import LiveArgsError, ask_host_key_on_terminal
    from nicadvisor.services.between import audit_refusal, prepare_between, run_between

    if args.netns:
        print("nic-advisor bench: --between and --netns exclude each other", file=sys.stderr)
        return EXIT_INPUT
    try:
        request = _between_request(args)
        request.validate()
    except (LiveArgsError, ValueError) as exc:
        print(f"nic-advisor bench: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if request.audit_id is not None:
        store = _open_store()
        refused = "the audit history cannot be opened" if store is None else audit_refusal(request, store)
        if store is not None:
            store.close()
        if refused:
            print(f"nic-advisor bench: --audit {request.audit_id}: {refused}; nothing was run", file=sys.stderr)
            return EXIT_INPUT
    if args.yes and not request.run_tests:
        print("nic-advisor bench: --yes: nothing to confirm, --mtu-check alone is read-only (add --tests or --profile "
              "to run tests after it)", file=sys.stderr)
    cancel = threading.Event()
    try:
        prepared = prepare_between(request, _stderr_progress, cancel, ask_host_key=ask_host_key_on_terminal)
    except OSError as exc:
        print(f"nic-advisor bench: {exc}", file=sys.stderr)
        return EXIT_INPUT
    with prepared:
        if request.run_tests:
            for line in prepared.plan_lines():
                print(line)
            if not prepared.can_run:
                for p in prepared.reach_problems():
                    print(f"problem: {p}", file=sys.stderr)
                return EXIT_INPUT
            if prepared.needs_confirmation and not _plan_confirmed(args):
                return EXIT_INPUT
        store = None if args.no_history else _open_store()
        try:
            with _cancel_on_signals(cancel):
                outcome = run_between(prepared, _stderr_progress, cancel, store=store)
        except Cancelled:
            left = prepared.bench.left_changed
            print(CANCELLED if not left else "nic-advisor bench: cancelled; the running test was stopped, but not "
                  "every change could be put back", file=sys.stderr)
            return _say_left_changed(left) or _cancelled_exit()
        finally:
            if store is not None:
                store.close()
    return _print_between(outcome, args)


def _say_left_changed(left: list[str]) -> int:
    """Print the ``HOST left changed: …`` sentences last, on stderr; :data:`EXIT_HOST_CHANGED` when there are any,
    else 0."""
    for line in left:
        print(line, file=sys.stderr)
    return EXIT_HOST_CHANGED if left else 0


def _print_between(outcome, args) -> int:
    """Print the MTU check (one line per sender, receiver and size), the judged results, the problems and what
    happened with the audit; write ``--json`` (``mtu_paths``, ``results``, ``problems``). Exit 1 when a test FAILs
    its band or a size did not pass, 0 when everything asked gave an answer, else 2; :data:`EXIT_HOST_CHANGED` (4),
    ending with the ``HOST left changed: …`` lines, when a change on a host could not be put back."""
    from nicadvisor.model.path_tests import mesh_table
    from nicadvisor.report.json_export import benchmark_entry

    if outcome.request.mtu_check:
        print("TEP mesh (don't-fragment pings, read-only):")
        for row in mesh_table(outcome.mtu_paths):
            rtt = f", round trip {row['Round trip min/avg/max']} min/avg/max" \
                if row["Round trip min/avg/max"] != "—" else ""
            print(f"{row['Result']}  {row['From']} → {row['To']}: {row['Frame']}: {row['Cause']}{rtt}")
    results = outcome.report.results if outcome.report else []
    _print_results(results)
    for p in outcome.problems:
        print(f"problem: {p}", file=sys.stderr)
    for note in outcome.notes:
        print(f"nic-advisor bench: {note}", file=sys.stderr)
    doc: dict = {}
    if outcome.request.mtu_check:
        doc["mtu_paths"] = [r.to_dict() for r in outcome.mtu_paths]
    if outcome.request.run_tests:
        doc["results"] = [benchmark_entry(r) for r in results]
    doc["problems"] = outcome.problems
    left = outcome.report.left_changed if outcome.report else []
    if left:
        doc["left_changed"] = left
    if args.json and not _write_bench_json(args.json, doc):
        return _say_left_changed(left) or EXIT_INPUT
    if left:
        return _say_left_changed(left)
    if outcome.failed:
        return EXIT_FINDINGS
    return EXIT_READY if outcome.complete else EXIT_INPUT


def _stored_live(inputs, args) -> dict:
    """The live targets of the approved audit's stored inputs (``verify`` without new inputs), built with the same
    password and trust rules as ``audit`` (:func:`nicadvisor.cli_live.build_targets`), one build per SSH kind.
    Raises LiveArgsError."""
    from nicadvisor.cli_live import LiveArgsError, build_targets

    if (inputs.vcenter or inputs.nsx) and not args.user:
        raise LiveArgsError(f"the approved audit read {', '.join(inputs.vcenter + inputs.nsx)}: give --user")
    live: dict = {"vsphere": (), "ssh": (), "nsx": ()}
    kinds = sorted({kind for _spec, kind in inputs.ssh}) or ["esxi"]
    for i, kind in enumerate(kinds):
        built = build_targets(argparse.Namespace(**{
            **vars(args), "vcenter": list(inputs.vcenter) if i == 0 else None,
            "nsx": list(inputs.nsx) if i == 0 else None, "kind": kind,
            "ssh": [spec for spec, k in inputs.ssh if k == kind]}))
        for key, value in built.items():
            live[key] = tuple(live.get(key, ())) + tuple(value)
    return live


def cmd_verify(args) -> int:
    """``nic-advisor verify --against ID``: audit the approved audit's targets again (or the new inputs given), run
    its TEP mesh again, and say per plan item done / not done / changed differently / not re-read; write the
    post-change record (``--json``, ``--pdf``). Exit 0 all done, 1 something not done or changed differently, 2
    something not re-read (and nothing known undone) or a usage error."""
    from nicadvisor.cancel import Cancelled
    from nicadvisor.cli_live import LiveArgsError, ask_host_key_on_terminal, build_targets
    from nicadvisor.services.audit import AuditRequest
    from nicadvisor.services.verify import load_approved, stored_inputs, verify_plan, write_record
    from nicadvisor.store import AuditNotFound

    if args.bench and not args.yes:
        print("nic-advisor verify: --bench changes the hosts while it runs (every change undone after): confirm "
              "with --yes", file=sys.stderr)
        return EXIT_INPUT
    store = _open_store()
    if store is None:
        return EXIT_INPUT
    try:
        try:
            approved = load_approved(store, args.against)
        except AuditNotFound as exc:
            print(f"nic-advisor verify: {exc} (list them with: nic-advisor history)", file=sys.stderr)
            return EXIT_INPUT
        given = args.demo or args.capture or args.local or args.vcenter or args.ssh or args.nsx
        try:
            if given:
                live = build_targets(args)
                request = AuditRequest(demo=args.demo, capture_paths=tuple(args.capture or ()), local=args.local,
                                       ask_host_key=ask_host_key_on_terminal, **live)
            else:
                inputs = stored_inputs(approved[0])
                live = _stored_live(inputs, args) if inputs.live else {}
                request = AuditRequest(capture_paths=inputs.capture_paths, local=inputs.local,
                                       ask_host_key=ask_host_key_on_terminal, **live)
        except LiveArgsError as exc:
            print(f"nic-advisor verify: {exc}", file=sys.stderr)
            return EXIT_INPUT
        if not (request.capture_paths or request.local or request.live_targets or request.demo):
            print(f"nic-advisor verify: audit #{args.against} names no input to read again: give --capture, "
                  "--local, --ssh, --vcenter or --nsx", file=sys.stderr)
            return EXIT_INPUT
        cancel = threading.Event()
        try:
            with _cancel_on_signals(cancel):
                outcome = verify_plan(store, args.against, request, progress=None if args.quiet else _stderr_progress,
                                      cancel=cancel, rerun_bench=args.bench, approved=approved)
        except Cancelled:
            print("nic-advisor verify: cancelled; no record was written", file=sys.stderr)
            return EXIT_INTERRUPTED
    finally:
        store.close()
    from nicadvisor.report.plan_check import check_lines

    check = outcome.check
    lines = check_lines(check)
    for line in lines[:-1]:
        print(line)
    for note in check.notes:
        print(f"nic-advisor verify: {note}", file=sys.stderr)
    for p in outcome.audit.inputs_not_understood:
        print(f"input {p.source}: {p.message}", file=sys.stderr)
    print(lines[-1])
    try:
        for path in write_record(check, json_path=args.json, pdf_path=args.pdf):
            print(f"wrote {path}")
    except OSError as exc:
        print(f"nic-advisor: cannot write {exc.filename or 'the record'}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    return check.exit_code


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def cmd_demo(args) -> int:
    """The main job on the demo lab: the wizard when there is a display, else PDF + JSON + CSV + HTML. Exits 0 once the
    audit ran and its verdict was printed (whatever the verdict), 2 when a report cannot be written."""
    if _has_display() and not args.headless:
        return cmd_gui(argparse.Namespace(capture=None))
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"nic-advisor demo: cannot make the folder {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    args.demo, args.capture, args.local, args.bench, args.quiet, args.no_history = True, None, False, False, False, False
    args.vcenter = args.ssh = args.nsx = args.user = args.ssh_key = args.save_captures = None
    args.thumbprint, args.trust_host_key, args.remember_password, args.kind = [], [], False, "esxi"
    args.datacenter = args.cluster = None
    args.esxcli_over_api = False
    args.timeout = 30.0
    args.pdf, args.json, args.csv = out / "nic-advisor-demo.pdf", out / "nic-advisor-demo.json", out / "nic-advisor-demo.csv"
    args.html = out / "nic-advisor-demo.html"
    args.demo_run = True
    return cmd_audit(args)


def cmd_gui(args) -> int:
    """``nic-advisor gui``: open the wizard (blocks until it is closed). Returns its exit code."""
    from nicadvisor.gui.app import main as gui_main

    argv = []
    for p in args.capture or []:
        argv += ["--capture", p]
    return gui_main(argv)


def cmd_rules(args) -> int:
    """``nic-advisor rules``: load, validate and list the rules (shipped and the user's own);
    ``nic-advisor rules check FILE...``: validate rule files. Returns 2 when a rule file is invalid."""
    from nicadvisor.rules_engine import RuleError, load_rules
    from nicadvisor.rules_engine.loader import check_rule_files, user_rules_dir

    try:
        if args.action == "check":
            if not args.files:
                print("nic-advisor rules check: name one or more rule files", file=sys.stderr)
                return EXIT_INPUT
            rules = check_rule_files([Path(f) for f in args.files])
            print(f"{len(rules)} rule(s) valid in {len(args.files)} file(s)")
            return EXIT_READY
        rules = load_rules(Path(args.dir) if args.dir else None)
    except RuleError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        print(f"nic-advisor rules: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if not args.dir:
        print(f"# shipped rules, then the user's rules in {user_rules_dir()}", file=sys.stderr)
    for r in rules:
        print(f"{r.id:<32} {r.severity.value:<8} {r.applies_to:<7} {r.title}")
    return EXIT_READY


def cmd_vcg(args) -> int:
    """``nic-advisor vcg import FILE... [--dry-run] [--replace]`` / ``vcg status`` / ``vcg export FILE`` /
    ``vcg fetch`` (download the public vSAN HCL into a temporary folder, removed afterwards, then import it as with
    ``import``): the compatibility guide the user imports (:mod:`nicadvisor.vcg.guide_store`). Import prints what
    it read (with the date of the data, or that none is stated), the warnings, the diff and its notes, and applies
    it atomically (``--dry-run``: only the diff; an import that changes nothing writes nothing). Returns 0, or 2 for
    a file that cannot be imported or an import that would make the stored guide too large (nothing changes)."""
    from nicadvisor.services.guide import GuideFetchError, plan_download
    from nicadvisor.vcg.guide_formats import GuideFormatError, write_exchange_csv, write_exchange_json
    from nicadvisor.vcg.guide_store import (GuideStoreError, apply_import, guide_dir, load_dataset, plan_import,
                                            staleness)

    def run_import(plan) -> int:
        for f in plan.read:
            date = (f"data of {f.data_date.date().isoformat()}" if f.data_date else
                    "date of the data not stated (its age is counted from the import date)")
            print(f"read {f.path}: {f.format}, {len(f.listings)} listing(s), {date}, sha256 {f.sha256}")
        for w in plan.warnings:
            print(f"  warning: {w}")
        for line in plan.diff.lines():
            print(line)
        if plan.unchanged:
            print(f"nothing to change: the imported guide stays version {plan.current_version}")
            return EXIT_READY
        if args.dry_run:
            print("dry run: nothing was changed")
            return EXIT_READY
        path = apply_import(plan)
        print(f"imported as version {plan.new.version}: {path}")
        return EXIT_READY

    try:
        if args.action in ("import", "fetch"):
            if args.action == "fetch":
                if args.files:
                    print("nic-advisor vcg fetch: takes no file (use --url)", file=sys.stderr)
                    return EXIT_INPUT
                print(f"downloading {args.url} (timeout {args.timeout:g} s"
                      + (f", proxy {args.proxy}" if args.proxy else "") + ")", file=sys.stderr)
                return run_import(plan_download(args.url, timeout_s=args.timeout, proxy=args.proxy,
                                                ca_file=args.ca_file, replace=args.replace, companion=args.companion))
            if not args.files:
                print("nic-advisor vcg import: name one or more guide files", file=sys.stderr)
                return EXIT_INPUT
            return run_import(plan_import(args.files, replace=args.replace, companion=args.companion))
        data = load_dataset()
        if args.action == "export":
            if not args.files or len(args.files) != 1:
                print("nic-advisor vcg export: name one file (.json or .csv)", file=sys.stderr)
                return EXIT_INPUT
            if data is None:
                print("nic-advisor vcg export: no compatibility guide was imported", file=sys.stderr)
                return EXIT_INPUT
            out = Path(args.files[0])
            # the export carries the data's own age (the oldest date the guide is aged from), not the export time
            if out.suffix.lower() == ".csv":
                write_exchange_csv(data.listings, out, data_date=data.data_date())
            else:
                write_exchange_json(data.listings, out, source_note=data.describe(), data_date=data.data_date())
            print(f"wrote {len(data.listings)} listing(s) to {out}")
            return EXIT_READY
        if data is None:
            print(f"no compatibility guide imported ({guide_dir()}); import one with nic-advisor vcg import FILE")
            return EXIT_READY
        devices = {(g.vid, g.did, g.svid, g.ssid) for g in data.listings}
        print(f"compatibility guide version {data.version}: {len(devices)} device(s), {len(data.listings)} listing(s)")
        for f in data.files:
            print(f"  {f.name}: {f.format}, {f.date_text()}, first imported {f.imported_at}, {f.listings} "
                  f"listing(s), sha256 {f.sha256}")
        stale = staleness(data)
        if stale:
            print(f"{stale[0]}: {stale[1]}")
        return EXIT_READY
    except (GuideFormatError, GuideStoreError, GuideFetchError, ValueError, OSError) as exc:
        print(f"nic-advisor vcg {args.action}: {exc}", file=sys.stderr)
        return EXIT_INPUT


def cmd_collect_script(args: argparse.Namespace) -> int:
    """``nic-advisor collect-script --kind esxi|linux [-o FILE]``: the collector script on stdout or in FILE; exits
    0, or 2 when FILE cannot be written."""
    from nicadvisor.services.collect_script import collect_script, write_collect_script

    if args.output is None:
        out = sys.stdout  # a document (the script itself), not lines of the CLI's: written as it is, not escaped
        (out.write_document if isinstance(out, _TerminalSafe) else out.write)(collect_script(args.kind))
        return EXIT_READY
    try:
        path = write_collect_script(args.kind, args.output)
    except OSError as exc:
        print(f"nic-advisor collect-script: cannot write {args.output}: {exc}", file=sys.stderr)
        return EXIT_INPUT
    for line in (f"wrote {path}: copy it to the host and run it there (read-only):",  # one print a line: each is
                 f"  sh {path.name} [-o DIR]            a folder of capture files, or",  # escaped on its own
                 f"  sh {path.name} --stdout > HOST.txt  one collection file",
                 f"  (or from here: ssh USER@HOST sh -s -- --stdout < {path} > HOST.txt)",
                 "then: nic-advisor audit --capture DIR-or-HOST.txt"):
        print(line, file=sys.stderr)
    return EXIT_READY


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of every sub-command."""
    # --help is plain text, not reST: the docstring's ``literal`` marks showed raw
    parser = argparse.ArgumentParser(prog="nic-advisor", description=__doc__.splitlines()[0].replace("``", ""))
    sub = parser.add_subparsers(dest="command", required=True)

    a = sub.add_parser("audit", help="audit hosts from captures, vm-support bundles, sosreports, the demo lab or this machine")
    src = a.add_argument_group("inputs (at least one)")
    src.add_argument("--demo", action="store_true", help="the bundled demo lab")
    src.add_argument("--capture", nargs="+", action="extend", metavar="PATH",
                     help="capture folder(s), file(s), vm-support bundle(s) or sosreport(s); repeatable")
    src.add_argument("--local", action="store_true", help="this machine's interfaces (read-only)")
    for name in ("json", "pdf", "csv", "html"):
        a.add_argument(f"--{name}", type=Path, metavar="FILE", help=f"write the {name.upper()} report")
    a.add_argument("--bench", action="store_true", help="also run the quick benchmark on loopback")
    a.add_argument("--quiet", action="store_true",
                   help="no progress lines; print the verdict and one line per group of alike hosts (details: the reports)")
    a.add_argument("--no-history", action="store_true", help="do not save the audit in the audit history")
    a.add_argument("--target-nsx", metavar="VERSION", type=_nsx_version,
                   help="the NSX version the rollout targets (4.2): each host's ESXi release is checked against it")
    a.add_argument("--max-evidence-age", type=int, metavar="DAYS", default=None,
                   help="flag evidence captured more than DAYS before the audit (default 365)")
    _bench_args(a)
    from nicadvisor.cli_live import add_arguments

    add_arguments(a)
    a.set_defaults(func=cmd_audit)
    a.add_argument("--attestations", type=Path, metavar="FILE",
                   help="what people checked by hand (YAML/JSON, written by 'nic-advisor attest'): each decides a "
                        "value the host did not tell, marked 'attested by WHO on DATE'; a reading on the host wins")

    from nicadvisor.model.attestations import CHECK_FACTS

    t = sub.add_parser("attest", help="record a value a person checked by hand (an attestation) for 'audit "
                                      "--attestations FILE'")
    t.add_argument("--file", type=Path, required=True, metavar="FILE", help="the attestation file (created if missing)")
    t.add_argument("--check", required=True, choices=tuple(CHECK_FACTS), help="the decisive check")
    t.add_argument("--host", required=True, help="the host, as the audit names it")
    t.add_argument("--pnic", help="the pNIC (vmnic0, ens1f0); not for --check release")
    t.add_argument("--value", action="append", required=True, metavar="FACT=VALUE",
                   help="a value seen, e.g. pcie_speed_gts=8, pcie_width=8, mtu=9000, geneve_offload=yes; repeatable")
    t.add_argument("--who", required=True, help="who checked it")
    t.add_argument("--when", help="when (ISO date, default today)")
    t.add_argument("--how", required=True, help="how: an evidence file path or a sentence")
    t.set_defaults(func=cmd_attest)

    b = sub.add_parser("bench", help="quick benchmark: netperf TCP_STREAM and TCP_RR (iperf3 / built-in agent fallback)")
    b.add_argument("--local", action="store_true", default=True, help="between endpoints on this machine (default)")
    b.add_argument("--json", type=Path, metavar="FILE")
    _bench_args(b)
    b.add_argument("--profile", choices=("quick", "full"),
                   help="the test catalogue as the references run it (on this machine or --between hosts): quick "
                        "(TCP_STREAM, TCP_RR, "
                        "TCP_CRR, UDP_STREAM 1400 B, 10 s each) or full (1 and 4 streams, the TCP_RR payload sweep "
                        "1-8192 B, TCP_CRR, UDP_STREAM 64/1400 B, bidirectional; 30 s each, 3 runs averaged)")
    b.add_argument("--repetitions", type=int, metavar="N",
                   help="with --profile: runs averaged per test (default: the profile's, quick 1, full 3)")
    from nicadvisor.bench import TESTS

    rb = b.add_argument_group("between audited hosts over SSH (the plan of every change is shown first)")
    rb.add_argument("--between", nargs="+", action="extend", metavar="USER@HOST[:PORT]",
                    help="run the tests between these hosts (every pair, the first of a pair sends); repeatable")
    rb.add_argument("--interface", action="append", default=[], metavar="HOST=IF",
                    help="the interface whose IPv4 address a host tests from (default: its SSH address)")
    rb.add_argument("--tests", nargs="+", action="extend", choices=TESTS, default=None, metavar="TEST",
                    help=f"tests to run, of {', '.join(TESTS)} (default TCP_STREAM TCP_RR)")
    rb.add_argument("--port", type=int, metavar="PORT",
                    help="TCP port the servers listen on; netperf also uses the next one (default 5201, iperf3's own)")
    rb.add_argument("--yes", action="store_true", help="make the planned changes without asking (needed without a terminal)")
    rb.add_argument("--kind", action="append", default=[], metavar="[HOST=]esxi|linux",
                    help="what the hosts are (default linux); HOST=esxi for one of them; repeatable")
    rb.add_argument("--ssh-key", metavar="FILE", help="private key (else a password)")
    rb.add_argument("--trust-host-key", action="append", default=[], metavar="[HOST[:PORT]=]SHA256:...",
                    help="trust this SSH host key on first contact (else you are asked)")
    rb.add_argument("--remember-password", action="store_true", help="save prompted passwords in the OS keyring")
    way = rb.add_mutually_exclusive_group()
    way.add_argument("--password-stdin", action="store_true", help="read the password from the first line of standard input")
    way.add_argument("--password-file", metavar="FILE", help="read the password from FILE (readable only by you)")
    rb.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per SSH command (default 30)")
    which = rb.add_mutually_exclusive_group()
    which.add_argument("--audit", type=int, metavar="ID",
                       help="the stored audit of these hosts, whose facts set the expected values (default: the newest "
                            "that holds them); the results are added to it. An audit that holds none of them is "
                            "refused before anything runs")
    rb.add_argument("--mtu-check", action="store_true",
                    help="the TEP mesh: don't-fragment pings at each sender's MTU and at 1600 bytes between every "
                         "ESXi TEP (vmkping ++netstack=vxlan -I vmkN) and Linux test address (ping -M do) of the hosts "
                         "(read-only, nothing to confirm), recorded in their audit; alone only this check runs, with "
                         "--tests or --profile it runs first, then the tests")
    which.add_argument("--no-history", action="store_true",
                       help="neither look up the hosts' audit nor store the results (expected values then come only "
                            "from a tc tbf read on a sender)")
    b.set_defaults(func=cmd_bench)

    ver = sub.add_parser("verify", help="after the change: check an approved audit's plan on the same hosts, item by "
                                        "item (done, not done, changed differently, not re-read), and write the "
                                        "post-change record")
    ver.add_argument("--against", type=int, required=True, metavar="AUDIT_ID",
                     help="the approved audit (its id in: nic-advisor history)")
    vsrc = ver.add_argument_group("new inputs (default: the approved audit's own inputs, read again)")
    vsrc.add_argument("--demo", action="store_true", help=argparse.SUPPRESS)
    vsrc.add_argument("--capture", nargs="+", action="extend", metavar="PATH", help="new capture folders/files")
    vsrc.add_argument("--local", action="store_true", help="this machine's interfaces (read-only)")
    ver.add_argument("--json", type=Path, metavar="FILE", help="write the post-change record as JSON")
    ver.add_argument("--pdf", type=Path, metavar="FILE", help="write the one-page post-change record as PDF")
    ver.add_argument("--bench", action="store_true",
                     help="also run the approved audit's benchmark again (it changes the hosts while it runs; every "
                          "change is undone after)")
    ver.add_argument("--yes", action="store_true", help="with --bench: make its changes without asking")
    ver.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_arguments(ver)
    ver.set_defaults(func=cmd_verify)

    c = sub.add_parser("collect-script", help="the read-only collector script (POSIX sh) for ESXi or Linux hosts: it "
                                              "runs the commands the SSH collector runs and writes their outputs for "
                                              "audit --capture")
    c.add_argument("--kind", choices=("esxi", "linux"), required=True,
                   help="esxi: for the ESXi Shell (busybox sh, no Python); linux: says which commands need root")
    c.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write it to FILE (executable) instead of standard output")
    c.set_defaults(func=cmd_collect_script)

    d = sub.add_parser("demo", help="the main job on the demo lab: the wizard, or headless PDF/JSON/CSV/HTML without a "
                                    "display; exits 0 once its verdict is printed")
    d.add_argument("--out", default="nic-advisor-demo", help="output folder when headless (default: ./nic-advisor-demo)")
    d.add_argument("--headless", action="store_true", help="write the reports even when a display is available")
    _bench_args(d)
    d.set_defaults(func=cmd_demo)

    g = sub.add_parser("gui", help="open the wizard")
    g.add_argument("--capture", nargs="+", action="extend", metavar="PATH", help="repeatable")
    g.set_defaults(func=cmd_gui)

    h = sub.add_parser("history", help="list past audits, reopen one and export it again, or compare two",
                       usage="nic-advisor history [ID [--pdf FILE] [--json FILE] [--csv FILE]] | "
                             "history diff BEFORE AFTER [--json FILE] [--pdf FILE]")
    h.add_argument("id", nargs="?", type=_history_id, help="the audit to reopen, or 'diff'")
    h.add_argument("ids", nargs="*", type=int, metavar="ID", help="with 'diff': the audits before and after")
    for name in ("json", "pdf", "csv", "html"):
        h.add_argument(f"--{name}", type=Path, metavar="FILE", help=f"write the {name.upper()} report")
    h.set_defaults(func=cmd_history)

    r = sub.add_parser("rules", help="list (and validate) the rules; 'rules check FILE...' validates rule files",
                       usage="nic-advisor rules [--dir DIR] | rules check FILE...")
    r.add_argument("action", nargs="?", choices=("list", "check"), default="list")
    r.add_argument("files", nargs="*", metavar="FILE", help="with 'check': the rule files to validate")
    r.add_argument("--dir", help="a folder of rule files to validate instead of the shipped ones")
    r.set_defaults(func=cmd_rules)

    v = sub.add_parser("vcg", help="import the compatibility guide you have (vSAN HCL all.json, saved Broadcom "
                                   "Compatibility Guide / VCG API answers, exchange CSV/JSON), show or export it",
                       usage="nic-advisor vcg status | vcg import FILE... [--dry-run] [--replace] | vcg export FILE | "
                             "vcg fetch [--url URL] [--proxy URL] [--timeout S] [--ca-file PEM] [--dry-run]")
    v.add_argument("action", nargs="?", choices=("status", "import", "export", "fetch"), default="status")
    v.add_argument("files", nargs="*", metavar="FILE")
    v.add_argument("--dry-run", action="store_true", help="with import: show what would change, change nothing")
    v.add_argument("--companion", metavar="RESULTS.json",
                   help="with import of a Broadcom guide details answer: the saved search answer that names its PCI IDs")
    v.add_argument("--replace", action="store_true",
                   help="with import: the files replace the whole imported guide (default: they update what they "
                        "name, per device, ESXi release and kind of source; a full vSAN HCL replaces the earlier one)")
    from nicadvisor.services.guide import DEFAULT_TIMEOUT_S, VSAN_HCL_URL

    v.add_argument("--url", default=VSAN_HCL_URL, help=f"with fetch: what to download (default {VSAN_HCL_URL}, "
                                                       "the public vSAN HCL; no credentials are sent)")
    v.add_argument("--proxy", metavar="URL", help="with fetch: an HTTP(S) proxy, http://host:port")
    v.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"with fetch: the most the whole download may take (default {DEFAULT_TIMEOUT_S:g})")
    v.add_argument("--ca-file", metavar="PEM", help="with fetch: CA certificates to verify TLS with (e.g. a "
                                                    "TLS-intercepting proxy's); verification is never turned off")
    v.set_defaults(func=cmd_vcg)
    return parser


def _bench_args(p: argparse.ArgumentParser) -> None:
    from nicadvisor.bench import DEFAULT_DURATION_S  # the benchmark's vocabulary: no tool is imported

    p.add_argument("--netns", action="store_true", help="between two network namespaces created for the test (root)")
    p.add_argument("--tool", choices=("auto", "netperf", "iperf3", "agent"), default="auto")
    p.add_argument("--duration", type=float, metavar="SECONDS",
                   help=f"per test (default {DEFAULT_DURATION_S:g}; with --profile the profile's: quick 10, full 30)")
    p.add_argument("--rate-mbit", type=int, metavar="MBIT", help="shape the namespace link with tc tbf")


#: Exit code after the reader of the output went away (``nic-advisor history | head``), as a shell reports SIGPIPE.
EXIT_PIPE_CLOSED = 141
#: ASCII stand-ins of the symbols the CLI prints, for a terminal whose encoding lacks them (``LC_ALL=C``,
#: ``PYTHONIOENCODING=latin-1``); anything else it cannot show becomes ``?``.
_ASCII = str.maketrans({"✔": "OK", "✖": "X", "▲": "!", "ℹ": "i", "·": "-", "→": "->", "…": "...", "—": "-",
                        "–": "-", "“": '"', "”": '"', "‘": "'", "’": "'", "µ": "u", "≥": ">=", "≤": "<=", "×": "x",
                        "\ufffd": "?"})


class _TerminalSafe:
    """A text stream for the CLI's output: each ``print`` is one line, so what it writes is escaped on that line
    (:func:`~nicadvisor.model.text.one_line`: a newline or ESC inside a name as ``\\n``/``\\x1b``, a byte of a
    file name that was not UTF-8 as ``\\xff``) and only ``print``'s own line end passes: a folder name holding a
    newline cannot print a forged ``Verdict: ✔ READY`` line, nor an ESC sequence drive the terminal. Symbols the
    stream's encoding lacks are written as ASCII stand-ins. A stream that cannot be written (``/dev/full``, closed,
    absent) is not written again: ``lost`` holds the first error, and the command goes on (its reports are files)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.lost: BaseException | None = None

    def write(self, text: str) -> int:
        from nicadvisor.model.text import one_line

        if text != "\n":  # print() writes its line end on its own
            text = one_line(text)
        if self.lost is None:
            self._guard(lambda: self._write(text))
        return len(text)

    def write_document(self, text: str) -> None:
        """Write ``text`` as it is (line ends kept, nothing escaped): a document the CLI was asked for on standard
        output (``collect-script``'s shell script), whose text the CLI made itself."""
        if self.lost is None:
            self._guard(lambda: self._write(text))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
        except UnicodeEncodeError:
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            self.stream.write(text.translate(_ASCII).encode(encoding, "replace").decode(encoding))

    def flush(self) -> None:
        if self.lost is None:
            self._guard(lambda: self.stream.flush())

    def _guard(self, call) -> None:
        try:
            call()
        except BrokenPipeError:
            raise  # the reader went away (| head): main ends quietly
        except (OSError, ValueError, AttributeError) as exc:  # ENOSPC, EIO, a closed file, no stream at all (None)
            self.lost = exc

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _quiet_at_exit(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that what is still buffered in it does not raise again
    when the interpreter exits (the Python documentation's recipe for a reader gone away)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture, None): nothing is buffered
        pass


def _internal_error(exc: BaseException) -> int:
    """Say in one sentence on stderr that ``exc`` is an internal error, not a verdict, and where its traceback was
    saved (``<user state dir>/crash-<time>-<pid>.txt``, when it can be); returns :data:`EXIT_INTERNAL`."""
    import time
    import traceback

    from nicadvisor.model.entities import clip

    saved = ""
    try:
        import platformdirs

        from nicadvisor.atomic_file import write_private_text

        folder = Path(platformdirs.user_state_dir("nic-advisor"))
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        write_private_text(path, "".join(traceback.format_exception(exc)), errors="backslashreplace")  # 0600
        os.chmod(folder, 0o700)  # a traceback holds input data: its folder is the user's alone (issue 29 §11)
        saved = f"; the details are in {path}"
    except Exception:  # noqa: BLE001 - a full disk must not hide the sentence below
        saved = "; the details could not be saved"
    print(f"nic-advisor: internal error, not a verdict ({type(exc).__name__}: {clip(str(exc), 300)})"
          f"{saved}; reports already written are kept", file=sys.stderr)
    return EXIT_INTERNAL


def main(argv: list[str] | None = None) -> int:
    """Console entry point ``nic-advisor``; returns the exit code (argparse exits 2 on a usage error).

    Device text printed on stdout/stderr has its control characters replaced (a host name may carry an ESC
    sequence), and symbols a terminal's encoding lacks are written in ASCII. When the reader of stdout goes away
    (``| head``) the command ends quietly with :data:`EXIT_PIPE_CLOSED`; when stdout cannot be written at all
    (``> /dev/full``, closed) the command still runs to its end, writes its reports and says so in one sentence
    (exit 2, a report that cannot be written). An internal error is one sentence on stderr with its traceback
    saved to a file, and exits :data:`EXIT_INTERNAL`; Ctrl-C outside a benchmark exits
    :data:`EXIT_INTERRUPTED`. ``nic-advisor agent serve|client ...`` runs the built-in benchmark agent
    (:mod:`nicadvisor.bench.agent`): the way a frozen build, which has no ``python -m``, starts it."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["agent"]:
        from nicadvisor.bench.agent import main as agent_main

        return agent_main(argv[1:])
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    safe_out, safe_err = _TerminalSafe(out), _TerminalSafe(err)
    sys.stdout, sys.stderr = safe_out, safe_err
    try:
        code = args.func(args)
        safe_out.flush()  # a reader gone away shows here, not as a traceback at interpreter exit
    except BrokenPipeError:
        _quiet_at_exit(out)
        return EXIT_PIPE_CLOSED
    except KeyboardInterrupt:
        print("nic-advisor: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes a sentence and exit code 3
        code = _internal_error(exc)
    finally:
        sys.stdout, sys.stderr = out, err
    if safe_out.lost is not None:
        _quiet_at_exit(out)
        why = getattr(safe_out.lost, "strerror", None) or "it is closed"
        print(f"nic-advisor: the standard output could not be written ({why}); reports already written are kept",
              file=safe_err)
        return code if code in (EXIT_INTERNAL, EXIT_INTERRUPTED) else EXIT_INPUT
    if safe_err.lost is not None:
        _quiet_at_exit(err)
    return code


if __name__ == "__main__":
    sys.exit(main())
