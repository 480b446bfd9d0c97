"""An ESXi host as a benchmark endpoint over SSH, every change planned, journaled and put back.

What ESXi offers and how it is used (shared/design/research/esxi-public/, each output there with its source):

* **iperf3** is part of ESXi (``/usr/lib/vmware/vsan/bin/iperf3``, 2_iperf3_on_esxi.md §2.1, §2.5), but under its own
  name it refuses to listen ("iperf3: error - unable to start listener for connections: Operation not permitted").
  The server is a copy under a name of this run (:func:`copy_path`, ``iperf3.nicadv-<16 hex>`` beside the original,
  as the public how-tos copy it to ``iperf3.copy``; a copy of that name that ESXi itself ships is left alone), started
  through a pseudo-terminal so that it ends when the SSH session ends, serving one test (``-1``), bound to the test
  vmknic's address and a port the firewall lets through; the copy is removed afterwards. As a client the original
  runs (no copy).
* **ESXi 8.0's execInstalledOnly** (on by default) refuses to run a program no VIB installed: the shell prints
  ``-sh: PATH: Operation not permitted`` (2.2, an rsync; no capture of an iperf3 copy is public). Then every change
  is put back and the run says that this security setting blocks a copied program, that NIC Advisor does not change
  security settings, and what still works (:data:`EXEC_REFUSED`).
* **Processes** are found and stopped only by what ESXi's ``ps -c -J`` shows (3_process_list_kill.md §3.2: world id,
  cartel id, name and command line, the tree drawn in VT100 glyphs): the command line this run started (the copy's
  path holds the run's token), never a pid remembered from before; stopped with ``kill`` of the cartel id just read
  (as Intel's mfd-connect does), ``-TERM`` then ``-KILL``, until ``ps`` no longer shows it.
* **The firewall** (:mod:`nicadvisor.bench.esxi_firewall`): a ruleset enabled, the peer added to its allowed-IP list,
  each journaled before it is made with what was there, and put back exactly (enabled state, allowed-all flag, the
  list) after success, cancel, SIGTERM, or at the next start after a ``kill -9``; the firewall as a whole is never
  disabled.

Commands (:func:`check_esxi`, called by :func:`nicadvisor.bench.remote.check_remote`): ``test -f`` of the vSAN iperf3,
the firewall's ``get``/``ruleset list``/``rule list``/``allowedip list`` and the ``ruleset set``/``allowedip add|remove``
of a valid ruleset name and address, ``cp``/``rm -f`` of a copy path only, ``ps -c -J``, and iperf3 (the original as a
client, the copy as a server) with the options of :data:`IPERF3_OPTIONS`. Never ``esxcli network firewall set``.
"""
from __future__ import annotations

import ipaddress
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from . import BenchError
from .esxi_firewall import (
    AllowedIps, FirewallState, Rule, Ruleset, parse_allowedip_list, parse_firewall_get, parse_rule_list,
    parse_ruleset_list, refused, ruleset_name_ok,
)

VSAN_BIN = "/usr/lib/vmware/vsan/bin"
IPERF3 = f"{VSAN_BIN}/iperf3"
COPY_PREFIX = f"{IPERF3}.nicadv-"
COPY_RE = re.compile(r"^/usr/lib/vmware/vsan/bin/iperf3\.nicadv-[0-9a-f]{16}\Z")
FIREWALL = ("esxcli", "network", "firewall")
#: iperf3 options an ESXi endpoint may be given (a server: ``-s -1 -B -p``; a client: the test's), never one that
#: writes a file or detaches (``--logfile``, ``-F``, ``-I``, ``-D``).
IPERF3_OPTIONS = frozenset({"-s", "-c", "-1", "-B", "-p", "-t", "-J", "-u", "-b", "-l", "-P", "-R", "-w", "-N", "-Z",
                            "--bidir", "--get-server-output"})
_VALUE_RE = re.compile(r"^[A-Za-z0-9_.:/][A-Za-z0-9_.:/-]{0,99}\Z")
_PID_RE = re.compile(r"^(?:[2-9]|[1-9][0-9]{1,9})\Z")
#: The shell's refusal to run a program (execInstalledOnly): ``-sh: PATH: Operation not permitted``.
_EXEC_REFUSED_RE = re.compile(r"^-?(?:ba)?sh: [^\n]{1,1024}: Operation not permitted\s*$", re.M)
_LISTENING_RE = re.compile(r"Server listening on (\d{1,5})")
_IN_USE_RE = re.compile(r"unable to start listener[^\n]*Address already in use", re.I)
_SO_SI_RE = re.compile(r"\x0e[^\x0f\n]{0,16}\x0f")
_PS_ROW_RE = re.compile(r"^[\s\x0e\x0fmtxq]*?(\d{1,10})\s+(\d{1,10})\s+(\S{1,64})\s+(.*)$")

EXEC_REFUSED = ("ESXi refused to run the copy of its iperf3 ({line}): the security setting execInstalledOnly (on by "
                "default since ESXi 8.0) lets only programs installed from a VIB run, so a copied program is blocked. "
                "NIC Advisor does not change security settings; every change it made on {host} was put back. What "
                "still works: {host} as the client with its own iperf3 against a Linux server (name {host} before "
                "the Linux host: --between {host} LINUX), or the TEP mesh alone (--mtu-check).")
"""The sentence when the copy is refused (``line``: what the shell printed, ``host``)."""
NO_RULESET = ("{why}. Nothing is changed on {host}'s firewall and the tests with {host} as the server do not run. What "
              "still works: {host} as the client with its own iperf3 against a Linux server (name {host} before the "
              "Linux host), or the TEP mesh alone (--mtu-check).")


def copy_path(token: str) -> str:
    """``/usr/lib/vmware/vsan/bin/iperf3.nicadv-<token>`` (``token``: 16 hex digits). Raises ValueError."""
    path = COPY_PREFIX + token
    if not COPY_RE.match(path):
        raise ValueError(f"not a run token of 16 hex digits: {token!r}")
    return path


def _address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return "%" not in text


def _iperf3_ok(words: tuple[str, ...]) -> bool:
    return all(w in IPERF3_OPTIONS or _VALUE_RE.match(w) for w in words)


def check_esxi(argv: tuple[str, ...]) -> bool:
    """True when ``argv`` is one of the ESXi endpoint's commands (module docstring), every value checked."""
    n = len(argv)
    if argv == ("test", "-f", IPERF3) or argv == ("ps", "-c", "-J"):
        return True
    if n >= 4 and argv[:3] == FIREWALL:
        rest = argv[3:]
        if rest in (("get",), ("ruleset", "list"), ("ruleset", "rule", "list")):
            return True
        if (len(rest) == 4 and rest[:3] == ("ruleset", "list", "-r")) or \
                (len(rest) == 5 and rest[:4] == ("ruleset", "rule", "list", "-r")):
            return ruleset_name_ok(rest[-1])
        if len(rest) == 5 and rest[:4] == ("ruleset", "allowedip", "list", "--ruleset-id"):
            return ruleset_name_ok(rest[4])
        if len(rest) == 6 and rest[:2] == ("ruleset", "set") and rest[2] == "-r" and rest[4] == "-e":
            return ruleset_name_ok(rest[3]) and rest[5] in ("true", "false")
        if len(rest) == 6 and rest[:3] == ("ruleset", "set", "--ruleset-id") and rest[4] == "--allowed-all":
            return ruleset_name_ok(rest[3]) and rest[5] in ("true", "false")
        if len(rest) == 7 and rest[:2] == ("ruleset", "allowedip") and rest[2] in ("add", "remove") \
                and rest[3] == "--ruleset-id" and rest[5] == "--ip-address":
            return ruleset_name_ok(rest[4]) and _address(rest[6])
        return False
    if n == 3 and argv[0] == "cp":
        return argv[1] == IPERF3 and bool(COPY_RE.match(argv[2]))
    if n == 3 and argv[:2] == ("rm", "-f"):
        return bool(COPY_RE.match(argv[2]))
    if n >= 2 and argv[0] == IPERF3:
        return "-c" in argv and "-s" not in argv and _iperf3_ok(argv[1:])
    if n >= 2 and COPY_RE.match(argv[0]):
        return "-s" in argv and "-c" not in argv and _iperf3_ok(argv[1:])
    return False


# --- ps ------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EsxiProcess:
    """One row of ESXi's ``ps -c -J``: world id, cartel id (what ``kill`` takes), name, command line."""

    wid: int
    cid: int
    name: str
    cmdline: str


def parse_ps(text: str) -> list[EsxiProcess]:
    """The rows of ``ps -c -J`` (VT100 line-drawing glyphs of the tree removed; a header or other line is left out).
    Reads at most 1 MiB. Pure; never raises."""
    out = []
    for line in text[:1 << 20].splitlines():
        m = _PS_ROW_RE.match(_SO_SI_RE.sub(" ", line))
        if m:
            out.append(EsxiProcess(int(m.group(1)), int(m.group(2)), m.group(3), m.group(4).rstrip()))
    return out


def started_by(rows: list[EsxiProcess], argv: list[str] | tuple[str, ...]) -> list[EsxiProcess]:
    """The rows whose command line is ``argv`` (the program as started, then its arguments): what this run started,
    found by what ``ps`` shows."""
    want = " ".join(argv)
    return [r for r in rows if r.cmdline == want or r.cmdline.startswith(want + " ")
            or r.cmdline.rstrip("'") == want]


# --- probing (read-only) -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FirewallRead:
    """What the probe read of an ESXi host's firewall: ``state``, ``rulesets``, the ``rules`` read, the ``allowed``
    lists read; ``notes``: what could not be read."""

    state: FirewallState
    rulesets: dict[str, Ruleset]
    rules: tuple[Rule, ...]
    allowed: dict[str, AllowedIps]
    notes: tuple[str, ...] = ()


Run = Callable[[tuple[str, ...]], Any]
"""``run(argv)`` → an object with ``rc``, ``out``, ``err`` (:class:`nicadvisor.bench.remote.CmdOut`)."""


def _first(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def read_firewall(run: Run, host: str) -> FirewallRead:
    """Read the firewall of ``host`` (read-only): ``firewall get``, ``ruleset list``, the rules (the whole ``rule list``,
    else ``rule list -r`` of each ruleset that may be enabled or disabled) and the allowed-IP list of each ruleset with
    a range of ports. Raises what ``run`` raises (a lost session)."""
    notes = []
    got = run(FIREWALL + ("get",))
    state = parse_firewall_get(got.out) if got.rc == 0 else FirewallState(None, None, None)
    if got.rc != 0:
        notes.append(f"esxcli network firewall get failed on {host}: {_first(got.err) or got.rc}")
    got = run(FIREWALL + ("ruleset", "list"))
    rulesets = parse_ruleset_list(got.out) if got.rc == 0 else {}
    if not rulesets:
        notes.append(f"esxcli network firewall ruleset list gave no ruleset on {host}"
                     + (f": {_first(got.err)}" if got.rc else ""))
    got = run(FIREWALL + ("ruleset", "rule", "list"))
    rules = parse_rule_list(got.out) if got.rc == 0 else []
    if not rules:
        for name, rs in rulesets.items():
            if rs.configurable:
                one = run(FIREWALL + ("ruleset", "rule", "list", "-r", name))
                if one.rc == 0:
                    rules += parse_rule_list(one.out)
    allowed: dict[str, AllowedIps] = {}
    for name in dict.fromkeys(r.ruleset for r in rules if r.end > r.begin and r.port_type.lower() == "dst"):
        got = run(FIREWALL + ("ruleset", "allowedip", "list", "--ruleset-id", name))
        if got.rc == 0:
            allowed.update({k: v for k, v in parse_allowedip_list(got.out).items() if k == name})
        if name not in allowed:
            notes.append(f"the allowed IP list of ruleset {name} on {host} could not be read"
                         + (f" ({_first(got.err)})" if _first(got.err) else ""))
    return FirewallRead(state, rulesets, tuple(rules), allowed, tuple(notes))


# --- the firewall change, journaled --------------------------------------------------------------------------------

def _ruleset_enabled(run: Run, name: str) -> bool | None:
    got = run(FIREWALL + ("ruleset", "list", "-r", name))
    rs = parse_ruleset_list(got.out).get(name) if got.rc == 0 else None
    return rs.enabled if rs is not None else None


def _allowed(run: Run, name: str) -> AllowedIps | None:
    got = run(FIREWALL + ("ruleset", "allowedip", "list", "--ruleset-id", name))
    return parse_allowedip_list(got.out).get(name) if got.rc == 0 else None


def _checked(run: Run, argv: tuple[str, ...], what: str) -> None:
    got = run(argv)
    text = (got.out + got.err).strip()
    if refused(text):
        raise BenchError(f"ESXi refused to {what}: {_first(text)}")
    if got.rc != 0:
        raise BenchError(f"{' '.join(argv)} failed (exit status {got.rc}): {_first(text) or 'no output'}")


def open_firewall(run: Run, journal: Any, source: str, host: str, ruleset: str, *, enable: bool,
                  restrict: bool, add_peers: tuple[str, ...]) -> str:
    """Make the change of an :class:`~nicadvisor.bench.esxi_firewall.Opening` on ``host``: each step journaled
    (kind ``esxi-ruleset``: the ruleset as it was: enabled, the allowed-all flag and the list once read, the addresses
    about to be added) before it is made. ``restrict``: the allowed-all flag off and the list set to ``add_peers``
    (with what it held); else ``add_peers`` are added to the list of an enabled ruleset. Returns the journal row's
    id. Raises :class:`BenchError` when ESXi refuses a step (the journal then puts back what was done), OSError when
    the journal cannot be written."""
    before = _ruleset_enabled(run, ruleset)
    listed = _allowed(run, ruleset) if (restrict or add_peers) else None
    entry = journal.record("esxi-ruleset", host=source, ruleset=ruleset, enabled=before,
                           allowed_all=listed.all if listed is not None else None,
                           ips=list(listed.addresses) if listed is not None and not listed.all else None, added=[])
    if (restrict or add_peers) and listed is None:
        raise BenchError(f"the allowed IP list of ruleset {ruleset} on {host} could not be read, so it could not be "
                         "put back exactly: it is not changed")
    if restrict:
        _checked(run, FIREWALL + ("ruleset", "set", "--ruleset-id", ruleset, "--allowed-all", "false"),
                 f"restrict the allowed IP list of ruleset {ruleset} on {host}")
        listed = _allowed(run, ruleset)  # the list behind the allowed-all flag, now in force
        if listed is None:
            raise BenchError(f"the allowed IP list of ruleset {ruleset} on {host} could not be read once restricted; "
                             "it is put back")
        journal.update(entry, ips=list(listed.addresses))
    for peer in add_peers:
        if listed is not None and peer in listed.addresses:
            continue
        added = list(dict.fromkeys([*(_entry_data(journal, entry).get("added") or []), peer]))
        journal.update(entry, added=added)  # written before the change
        _checked(run, FIREWALL + ("ruleset", "allowedip", "add", "--ruleset-id", ruleset, "--ip-address", peer),
                 f"add {peer} to the allowed IP list of ruleset {ruleset} on {host}")
    if enable and before is not True:
        _checked(run, FIREWALL + ("ruleset", "set", "-r", ruleset, "-e", "true"), f"enable ruleset {ruleset} on {host}")
    return entry


def _entry_data(journal: Any, entry_id: str) -> dict:
    return next((e.data for e in journal.entries() if e.id == entry_id), {})


def restore_ruleset(run: Run, data: dict, host: str) -> tuple[bool, str]:
    """Put a ruleset back as the journal row ``data`` says it was (the addresses added removed, the allowed-all flag
    and the enabled state set back), then read it back. Returns ``(done, sentence)``."""
    name = str(data.get("ruleset", ""))
    if not ruleset_name_ok(name):
        return False, f"refused to touch ruleset {name!r} on {host}: not a ruleset name"
    steps = []
    now = _allowed(run, name)
    for ip in data.get("added") or []:
        if not _address(str(ip)) or (data.get("ips") and ip in data["ips"]):
            continue
        if now is None or ip in now.addresses:
            got = run(FIREWALL + ("ruleset", "allowedip", "remove", "--ruleset-id", name, "--ip-address", str(ip)))
            if got.rc == 0:
                steps.append(f"removed {ip} from its allowed IP list")
    if data.get("allowed_all") is True and (now is None or not now.all):
        got = run(FIREWALL + ("ruleset", "set", "--ruleset-id", name, "--allowed-all", "true"))
        if got.rc == 0:
            steps.append("allowed all addresses again")
    enabled = data.get("enabled")
    if isinstance(enabled, bool) and _ruleset_enabled(run, name) is not enabled:
        run(FIREWALL + ("ruleset", "set", "-r", name, "-e", "true" if enabled else "false"))
        steps.append("enabled it again" if enabled else "disabled it again")
    # read back: the enabled state and the allowed-all flag must be as they were
    ok = not isinstance(enabled, bool) or _ruleset_enabled(run, name) is enabled
    after = _allowed(run, name) if data.get("allowed_all") is not None or data.get("added") else None
    if data.get("allowed_all") is True and after is not None and not after.all:
        ok = False
    if after is not None and any(ip in after.addresses for ip in data.get("added") or []
                                 if ip not in (data.get("ips") or [])):
        ok = False
    what = ", ".join(steps) or "nothing to put back"
    if ok:
        return True, f"put back firewall ruleset {name} on {host} ({what}; read back: as it was)"
    return False, f"could not put back firewall ruleset {name} on {host} ({what}; read back: not as it was)"


# --- the copy and the processes ------------------------------------------------------------------------------------

def stop_started(run: Run, argv: list[str] | tuple[str, ...], host: str, wait_s: float = 3.0) -> tuple[bool, str]:
    """Stop the processes ``ps -c -J`` shows with the command line ``argv`` (none: it had ended): ``kill -TERM`` of
    each cartel id just read, then ``-KILL``, until ``ps`` no longer shows them. Returns ``(done, sentence)``."""
    what = " ".join(argv[:1])
    for sig in ("-TERM", "-KILL"):
        rows = started_by(parse_ps(run(("ps", "-c", "-J")).out), argv)
        if not rows:
            return True, (f"{what} on {host} had already ended" if sig == "-TERM" else f"stopped {what} on {host}")
        for cid in dict.fromkeys(r.cid for r in rows):
            if _PID_RE.match(str(cid)):
                run(("kill", sig, str(cid)))
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not started_by(parse_ps(run(("ps", "-c", "-J")).out), argv):
                return True, f"stopped {what} on {host} (ps shows it no longer)"
            time.sleep(0.1)
    return False, f"could not stop {what} on {host}: ps still shows it"


def exec_refused(text: str) -> str:
    """The shell's refusal line when ESXi would not run a program (execInstalledOnly), else ``""``."""
    m = _EXEC_REFUSED_RE.search(text)
    return m.group(0).strip() if m else ""


def listening_port(text: str) -> int | None:
    """The port of iperf3's ``Server listening on N`` (2_iperf3_on_esxi.md §2.1), None before it is printed."""
    m = _LISTENING_RE.search(text)
    return int(m.group(1)) if m else None


def port_in_use(text: str) -> bool:
    """True when iperf3 could not listen because the port is taken (``… Address already in use``)."""
    return bool(_IN_USE_RE.search(text))


def undo_esxi_entry(run: Run, entry: Any, host: str) -> tuple[bool, str]:
    """Undo one ESXi journal row: ``esxi-ruleset`` (:func:`restore_ruleset`), ``esxi-process`` (:func:`stop_started`,
    by what ``ps`` shows), ``esxi-file`` (``rm -f`` of a copy path only). Returns ``(done, sentence)``."""
    data = entry.data
    if entry.kind == "esxi-ruleset":
        return restore_ruleset(run, data, host)
    if entry.kind == "esxi-process":
        argv = [str(a) for a in data.get("argv") or []]
        if not argv or not (argv[0] == IPERF3 or COPY_RE.match(argv[0])):
            return False, f"refused to stop {argv[:1]} on {host}: not an iperf3 this tool starts"
        return stop_started(run, argv, host)
    if entry.kind == "esxi-file":
        path = str(data.get("path", ""))
        if not COPY_RE.match(path):
            return False, f"refused to remove {path!r} on {host}: not a copy this tool makes"
        got = run(("rm", "-f", path))
        return (got.rc == 0, f"removed {path} on {host}" if got.rc == 0 else
                f"could not remove {path} on {host}: {_first(got.err) or got.rc}")
    return False, f"unknown ESXi journal entry kind {entry.kind!r} on {host}"
