"""The ESXi firewall, read and planned for a benchmark: which ruleset lets the test's TCP port through, what must change
for it, and how to put back exactly what was there. PURE (parsers and the choice); :mod:`nicadvisor.bench.esxi`
runs the commands over SSH and journals each change.

Outputs read, as public recordings show them (shared/design/research/esxi-public/1_firewall.md):

* ``esxcli network firewall get``: ``Default Action: DROP`` / ``Enabled: true`` / ``Loaded: true`` (§1.3, §1.4);
* ``esxcli network firewall ruleset list [-r NAME]``: ``Name  Enabled`` (ESXi 5.x, §1.3/§1.4, whitespace collapsed
  or aligned) or, since 8.0 U2b, with ``Enable/Disable configurable`` and ``Allowed IP configurable`` (§1.1);
* ``esxcli network firewall ruleset rule list [-r NAME]``: ``Ruleset Direction Protocol Port Type Port Begin Port
  End`` (§1.2, §1.3, §1.5);
* ``esxcli network firewall ruleset allowedip list --ruleset-id NAME``: ``Ruleset  Allowed IP Addresses`` with
  ``All`` or the addresses joined by ``, `` (VMware "vSphere Command-Line Interface Concepts and Examples" 6.7,
  "Manage the ESXi firewall": ``sshServer  All``; the 5.0 edition: ``sshServer 192.XXX.10.10, 192.XXX.1.0/24``);
* the refusal ``Invalid operation requested: Can not change allowed ip list this ruleset, it is owned by system
  service.`` (§1.1, ESXi 8.0 U2b).

Rules of the choice (:func:`plan_opening`): never the firewall as a whole (``firewall set --enabled false`` is what
the public how-tos do; this tool never does); a firewall that is off or passes by default needs no change; an
enabled ruleset that opens the port to the peer (all addresses, or the peer in its list) needs none either, but
only a range of ports (a ruleset's single port belongs to its service); otherwise a disabled ruleset whose
``Enable/Disable configurable`` is true and that opens a range for the direction and protocol: enabled for the run,
its allowed-IP list restricted to the peer where ``Allowed IP configurable`` is true and the list could be read (so
that it can be put back exactly), else open to every address while the test runs — the plan says which.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

REFUSED_MARK = "owned by system service"
"""Words of ESXi's refusal to change a ruleset's allowed-IP list (1_firewall.md §1.1)."""
DEFAULT_PORT = 5201
MIN_PORT = 1024
_TRUE, _FALSE = "true", "false"
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}\Z")
_DASHES_RE = re.compile(r"^[\s\\-]*-{2,}[\s\\-]*$")


def ruleset_name_ok(name: str) -> bool:
    """True for a ruleset name as ``ruleset list`` prints them (``remoteSerialPort``, ``vsanhealth-unicasttest``)."""
    return bool(_NAME_RE.match(name or ""))


@dataclass(frozen=True)
class FirewallState:
    """``esxcli network firewall get``: ``enabled``, ``default_action`` (``DROP``/``PASS``), ``loaded`` (None when
    not printed)."""

    enabled: bool | None
    default_action: str | None
    loaded: bool | None

    @property
    def open(self) -> bool:
        """True when the firewall lets everything through (off, or passing by default): no ruleset to change."""
        return self.enabled is False or (self.default_action or "").upper() == "PASS"


@dataclass(frozen=True)
class Ruleset:
    """One ``ruleset list`` row: ``enabled``; ``configurable`` (``Enable/Disable configurable``) and
    ``ip_configurable`` (``Allowed IP configurable``), None where the listing has no such column (before 8.0 U2b)."""

    name: str
    enabled: bool | None
    configurable: bool | None = None
    ip_configurable: bool | None = None


@dataclass(frozen=True)
class Rule:
    """One ``ruleset rule list`` row: ``direction`` ``Inbound``/``Outbound``, ``protocol`` ``TCP``/``UDP``/…,
    ``port_type`` ``Dst``/``Src``, ports ``begin``..``end``."""

    ruleset: str
    direction: str
    protocol: str
    port_type: str
    begin: int
    end: int

    def covers(self, direction: str, protocol: str) -> bool:
        return (self.direction.lower() == direction.lower() and self.protocol.upper() == protocol.upper()
                and self.port_type.lower() == "dst")


@dataclass(frozen=True)
class AllowedIps:
    """One ``allowedip list`` row: ``all`` (the allowed-all flag: ``All``), else the ``addresses`` listed."""

    ruleset: str
    all: bool
    addresses: tuple[str, ...] = ()

    def admits(self, address: str) -> bool:
        """True when ``address`` may pass: all addresses, or it (or a network holding it) is listed."""
        if self.all:
            return True
        for a in self.addresses:
            try:
                if ipaddress.ip_address(address) in ipaddress.ip_network(a, strict=False):
                    return True
            except ValueError:
                continue
        return False


def _bool(word: str) -> bool | None:
    return True if word.lower() == _TRUE else False if word.lower() == _FALSE else None


def _rows(text: str, header_start: str) -> tuple[list[str], list[list[str]]]:
    """(header words, the split rows after it) of an esxcli table whose header line starts with ``header_start``;
    a dashes line (also the ``\\---`` of a blog export) is skipped. Reads at most 256 KiB."""
    lines = text[:262144].splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith(header_start)), None)
    if start is None:
        return [], []
    rows = []
    for ln in lines[start + 1:]:
        if not ln.strip() or _DASHES_RE.match(ln.strip()):
            continue
        rows.append(ln.split())
    return lines[start].split(), rows


def parse_firewall_get(text: str) -> FirewallState:
    """``Default Action: DROP`` / ``Enabled: true`` / ``Loaded: true`` → :class:`FirewallState` (None for what is
    not printed). Never raises."""
    found: dict[str, str] = {}
    for ln in text[:65536].splitlines():
        key, sep, value = ln.strip().partition(":")
        if sep:
            found[key.strip().lower()] = value.strip()
    return FirewallState(enabled=_bool(found.get("enabled", "")), default_action=found.get("default action") or None,
                         loaded=_bool(found.get("loaded", "")))


def parse_ruleset_list(text: str) -> dict[str, Ruleset]:
    """``ruleset list`` (2 or 4 columns, aligned or collapsed) → ``{name: Ruleset}``. A row whose values are not
    booleans is left out. Never raises."""
    header, rows = _rows(text, "Name")
    four = "configurable" in " ".join(header)
    out: dict[str, Ruleset] = {}
    for words in rows:
        if not words or not ruleset_name_ok(words[0]):
            continue
        values = [_bool(w) for w in words[1:]]
        if four and len(values) == 3 and None not in values:
            out[words[0]] = Ruleset(words[0], values[0], values[1], values[2])
        elif not four and len(values) == 1 and values[0] is not None:
            out[words[0]] = Ruleset(words[0], values[0])
    return out


def parse_rule_list(text: str) -> list[Rule]:
    """``ruleset rule list`` → its rows (``Ruleset Direction Protocol Port-Type Port-Begin Port-End``); rows that do
    not read as such are left out. Never raises."""
    _header, rows = _rows(text, "Ruleset")
    out = []
    for words in rows:
        if (len(words) == 6 and ruleset_name_ok(words[0]) and words[1] in ("Inbound", "Outbound")
                and words[4].isdigit() and words[5].isdigit() and int(words[4]) <= int(words[5]) <= 65535):
            out.append(Rule(words[0], words[1], words[2], words[3], int(words[4]), int(words[5])))
    return out


def parse_allowedip_list(text: str) -> dict[str, AllowedIps]:
    """``allowedip list`` → ``{ruleset: AllowedIps}`` (``All``, or the addresses joined by ``, ``). Never raises."""
    _header, rows = _rows(text, "Ruleset")
    out = {}
    for words in rows:
        if not words or not ruleset_name_ok(words[0]):
            continue
        rest = " ".join(words[1:])
        if rest == "All":
            out[words[0]] = AllowedIps(words[0], True)
        else:
            out[words[0]] = AllowedIps(words[0], False, tuple(a.strip() for a in rest.split(",") if a.strip()))
    return out


def refused(text: str) -> bool:
    """True when ESXi refused a change of the allowed-IP list (``… it is owned by system service.``)."""
    return REFUSED_MARK in text


@dataclass(frozen=True)
class Opening:
    """How the test's traffic gets through the ESXi firewall.

    ``ruleset``: the ruleset used (None: the firewall is off or passes by default); ``direction``/``protocol`` of the
    traffic (``Inbound`` TCP to an ESXi server, ``Outbound`` TCP from an ESXi client); ``first``..``last`` the port
    range it opens and ``port`` the one the test uses first; ``enable``: the ruleset is disabled and is enabled for
    the run; ``restrict``: its allowed-IP list is set to the peer only for the run (else, with ``enable``, the range
    is open to every address while the test runs); ``add_peer``: the peer is added to an enabled ruleset's list;
    ``why``: the choice in words; ``before``: the ruleset as read (enabled, and its allowed-IP list when read)."""

    ruleset: str | None
    direction: str
    protocol: str
    first: int
    last: int
    port: int
    enable: bool = False
    restrict: bool = False
    add_peer: bool = False
    why: str = ""
    allowed: AllowedIps | None = None

    @property
    def changes(self) -> bool:
        """True when a ruleset is changed for the run."""
        return self.enable or self.restrict or self.add_peer

    def lines(self, host: str, peer: str) -> list[str]:
        """What changes on ``host``'s firewall, in words, for the plan (``[]`` when nothing does)."""
        if not self.changes:
            return []
        out = []
        if self.enable:
            reason = self.why.rpartition("; ")[2]
            whom = (f"allowed IP list restricted to {peer} for the run" if self.restrict else
                    f"open to every address while the test runs ({reason})")
            out.append(f"firewall: enable ruleset {self.ruleset} ({self.direction.lower()} {self.protocol} "
                       f"{self.first}-{self.last}), {whom}; put back as it was afterwards (disabled"
                       + (", allowed IP: all" if self.restrict and self.allowed and self.allowed.all else "")
                       + "); the firewall itself stays on")
        elif self.add_peer:
            out.append(f"firewall: add {peer} to the allowed IP list of ruleset {self.ruleset} (enabled, "
                       f"{self.direction.lower()} {self.protocol} {self.first}-{self.last}); removed afterwards")
        return out


def _port_in(first: int, last: int, wanted: int) -> int | None:
    low = max(first, MIN_PORT)
    if low > last:
        return None
    return wanted if low <= wanted <= last else low


def plan_opening(state: FirewallState, rulesets: dict[str, Ruleset], rules: list[Rule],
                 allowed: dict[str, AllowedIps], direction: str, protocol: str, peer: str,
                 wanted: int = DEFAULT_PORT) -> Opening | str:
    """The :class:`Opening` for ``protocol`` traffic in ``direction`` between the host and ``peer`` (see the module
    docstring), or a sentence saying why no ruleset fits (nothing is changed then). ``allowed``: the allowed-IP lists
    read (a ruleset missing here: its list could not be read). Pure."""
    if state.open:
        why = "the firewall is off" if state.enabled is False else "the firewall passes by default"
        return Opening(None, direction, protocol, MIN_PORT, 65535, wanted, why=why)
    ranges = [r for r in rules if r.covers(direction, protocol) and r.end > r.begin and _port_in(r.begin, r.end,
                                                                                               wanted)]
    # an enabled ruleset that already lets the peer through: nothing changes
    for r in ranges:
        rs = rulesets.get(r.ruleset)
        if rs is None or not rs.enabled:
            continue
        listed = allowed.get(r.ruleset)
        port = _port_in(r.begin, r.end, wanted) or wanted
        if listed is not None and listed.admits(peer):
            return Opening(r.ruleset, direction, protocol, r.begin, r.end, port, allowed=listed,
                           why=f"ruleset {r.ruleset} is enabled and lets {peer} through")
        if listed is not None and rs.ip_configurable:
            return Opening(r.ruleset, direction, protocol, r.begin, r.end, port, add_peer=True, allowed=listed,
                           why=f"ruleset {r.ruleset} is enabled; {peer} is added to its allowed IP list")
    # a disabled ruleset that may be enabled
    candidates = sorted((r for r in ranges if (rulesets.get(r.ruleset) or Ruleset(r.ruleset, None)).enabled is False
                         and rulesets[r.ruleset].configurable is not False),
                        key=lambda r: (rulesets[r.ruleset].configurable is not True, -(r.end - r.begin), r.ruleset))
    for r in candidates:
        rs = rulesets[r.ruleset]
        listed = allowed.get(r.ruleset)
        port = _port_in(r.begin, r.end, wanted) or wanted
        restrict = bool(rs.ip_configurable) and listed is not None
        why = ("its allowed IP list is restricted to the peer for the run" if restrict else
               "its allowed IP list is not configurable" if rs.ip_configurable is False else
               "its allowed IP list could not be read, so it cannot be put back exactly: it is left as it is")
        return Opening(r.ruleset, direction, protocol, r.begin, r.end, port, enable=True, restrict=restrict,
                       allowed=listed, why=f"ruleset {r.ruleset} is disabled and may be enabled; {why}")
    configurable = sum(1 for rs in rulesets.values() if rs.configurable)
    return (f"no ruleset of the ESXi firewall opens a range of {direction.lower()} {protocol} ports that may be used: "
            f"none of the {configurable} rulesets that may be enabled or disabled has such a range in the rules read")
