"""The allowlist of read-only commands the SSH collector may send, per host kind.

Nothing reaches the wire unless :func:`check` accepts it: a command is a tuple of words that must match
one template of :data:`ESXI_TEMPLATES` word for word, where a placeholder word (``{nic}``, ``{module}``)
must match a strict regex; Linux commands are exactly those the local collector runs
(:func:`nicadvisor.collect.local_linux.allowed`: ``ethtool [-i|-k|-l|-x|-c|-g] IF``, ``ip -d -j link show``,
``ls /sys/class/net``, ``cat``/``readlink`` of a path under ``/sys/class/net/`` or ``/sys/bus/pci/devices/``,
``lldpctl -f json``, ``networkctl --no-pager --full lldp``; the tools also by the absolute paths of
:data:`LINUX_TOOL_PATHS`).
The text sent is :func:`shlex.join` of the words (each argument quoted with :func:`shlex.quote`), and the
same text is recorded as the capture's ``# command:`` header, so a saved live audit replays through the
parser registry like any capture.

The ESXi templates are the ESXi commands of the command catalogue that the collectors run
(:func:`nicadvisor.commands.collected`), in its order: per host (``esxcli network nic list`` first, the NIC
discovery), per NIC (``vmnicN``/``vusbN`` from the NIC list), per driver module (from its Driver column). The catalogue
marks those that exist only on some builds (``optional``); it names their sources (nic-data-sources.md).

No command here changes anything on the host; there are no pipes, redirections or ``;``.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from nicadvisor import commands
from nicadvisor.collect import local_linux

HOST_KINDS = ("esxi", "linux")

ESXI_NIC_ERE = commands.NAME_ERE["esxi"]["nic"]
"""An ESXi uplink name (``vmnic1000202``), as the catalogue's POSIX ERE (:data:`nicadvisor.commands.NAME_ERE`): the
same text is the pattern of :data:`ESXI_NIC_RE` and of the collector script's check (``grep -E``)."""
MODULE_ERE = commands.NAME_ERE["esxi"]["module"]
"""A VMkernel driver module name as printed in the Driver column (``ixgben``, ``icen_ens``, ``nmlx5_core``)."""
LINUX_IF_ERE = commands.NAME_ERE["linux"]["nic"]
"""A Linux interface name as listed in ``/sys/class/net`` (at most 15 characters, never starting with ``-``)."""
PCI_NUMBER_ERE = "[0-9]{1,5}"
"""One part of a PCI address in decimal (segment 0-65535, bus 0-255, slot 0-31, function 0-7), as vsish names the
nodes under ``/hardware/pci``: the ``{seg}``/``{bus}``/``{slot}``/``{func}`` placeholders (:func:`pci_numbers`)."""
ESXI_NIC_RE = commands.whole(ESXI_NIC_ERE)
MODULE_RE = commands.whole(MODULE_ERE)
LINUX_IF_RE = commands.whole(LINUX_IF_ERE)

LINUX_TOOL_PATHS = {"ethtool": ("ethtool", "/usr/sbin/ethtool", "/sbin/ethtool"),
                    "ip": ("ip", "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"),
                    "tc": ("tc", "/usr/sbin/tc", "/sbin/tc", "/usr/bin/tc"),
                    "lldpctl": ("lldpctl", "/usr/sbin/lldpctl", "/sbin/lldpctl"),
                    "networkctl": ("networkctl", "/usr/bin/networkctl", "/bin/networkctl")}
"""Where ``ethtool``/``ip``/``tc``/``lldpctl``/``networkctl`` may be called from: non-root accounts often lack ``/usr/sbin`` in ``PATH``, so
on ``command not found`` (exit 127) the collector retries these absolute paths (the parsers strip a
path prefix from the recorded command)."""


class CommandRefused(ValueError):
    """A command outside the allowlist, or an argument that fails its regex; raised before sending."""


@dataclass(frozen=True)
class Template:
    """One allowed ESXi command: ``words`` with placeholders ``{nic}``/``{module}`` (or a PCI function's
    ``{seg}``/``{bus}``/``{slot}``/``{func}``); ``scope`` is ``host``, ``nic``, ``module`` or ``function``; ``optional`` marks commands that exist only on some builds (their
    failure is informational, not a problem)."""

    words: tuple[str, ...]
    scope: str = "host"
    optional: bool = False


#: A catalogue scope → the template's (``pnic`` is ``nic`` here, as its placeholder).
_SCOPES = {"host": "host", "pnic": "nic", "module": "module", "function": "function"}

ESXI_TEMPLATES: tuple[Template, ...] = tuple(Template(c.words, _SCOPES[c.scope], c.optional)
                                             for c in commands.collected("esxi"))
"""The ESXi commands the SSH collector may send, in the order it runs them."""
ESXI_NIC_LIST = next(t for t in ESXI_TEMPLATES if t.words == ("esxcli", "network", "nic", "list"))
"""The NIC discovery, run first: its NIC and Driver columns fill the ``{nic}`` and ``{module}`` templates."""

_PCI_NUMBER_RE = commands.whole(PCI_NUMBER_ERE)
_PLACEHOLDERS = {"nic": ESXI_NIC_RE, "module": MODULE_RE, "seg": _PCI_NUMBER_RE, "bus": _PCI_NUMBER_RE,
                 "slot": _PCI_NUMBER_RE, "func": _PCI_NUMBER_RE}

VMK_RE = re.compile(r"^vmk\d{1,4}\Z")
"""A VMkernel interface name (``vmk10``)."""
NETSTACK_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}\Z")
"""A netstack name as ``esxcfg-vmknic -l`` prints it (``vxlan``, ``defaultTcpipStack``, ``nsx-overlay``)."""
SIZE_RE = re.compile(r"^(?:0|[1-9]\d{0,4})\Z")
"""A ping payload in bytes (at most 65507, checked as a number)."""

#: The path-test pings of the catalogue (the TEP mesh): ESXi vmkping (IPv4, IPv6) and Linux ping -M do.
PATH_PINGS: tuple[tuple[str, ...], ...] = tuple(
    c.words for c in commands.CATALOGUE if c.words[0] in ("vmkping", "ping") and "{size}" in c.words)


def _ip_version(text: str) -> int | None:
    """4 or 6 for an IPv4/IPv6 address without a zone index (``%eth0`` would name an interface), else None."""
    import ipaddress

    if "%" in text:
        return None
    try:
        return ipaddress.ip_address(text).version
    except ValueError:
        return None


_PING_VALUES = {"vmk": lambda v: bool(VMK_RE.match(v)), "netstack": lambda v: bool(NETSTACK_RE.match(v)),
                "size": lambda v: bool(SIZE_RE.match(v)) and int(v) <= 65507,
                "address": lambda v: _ip_version(v) is not None}


def _ping_word_ok(template: str, word: str) -> bool:
    m = re.fullmatch(r"([^{}]*)\{(\w+)\}", template)
    if m is None:
        return template == word
    return word.startswith(m.group(1)) and _PING_VALUES[m.group(2)](word[len(m.group(1)):])


def check_path_ping(argv: tuple[str, ...] | list[str]) -> str:
    """The command line of a path-test ping (:data:`PATH_PINGS`: ``vmkping ++netstack=N -I vmkN -d -s SIZE -c 3
    [-6] ADDRESS`` or ``ping -M do -c 3 -i 0.2 -W 1 -s SIZE -I ADDRESS ADDRESS``), every placeholder checked
    (:data:`VMK_RE`, :data:`NETSTACK_RE`, a size 0..65507, an IPv4/IPv6 address without zone index; ``-6`` exactly
    with an IPv6 destination, one address family per ping). Raises :class:`CommandRefused` otherwise."""
    argv = tuple(argv)
    for words in PATH_PINGS:
        if len(words) != len(argv) or not all(_ping_word_ok(tw, w) for tw, w in zip(words, argv)):
            continue
        versions = {_ip_version(w) for tw, w in zip(words, argv) if tw == "{address}"}
        if len(versions) == 1 and (words[0] != "vmkping" or (6 in versions) == ("-6" in words)):
            return shlex.join(argv)
    raise CommandRefused(f"not a path-test ping of the catalogue, not sent: {shlex.join(argv)!r}")


def _fill(words: tuple[str, ...], values: dict[str, str]) -> tuple[str, ...]:
    out = []
    for w in words:
        for name, value in values.items():
            w = w.replace("{" + name + "}", value)
        out.append(w)
    return tuple(out)


def _matches(template: Template, argv: tuple[str, ...]) -> bool:
    if len(template.words) != len(argv):
        return False
    for tw, w in zip(template.words, argv):
        names = re.findall(r"\{(\w+)\}", tw)
        if not names:
            if tw != w:
                return False
            continue
        # a placeholder inside a word (/net/pNics/{nic}/properties): literal parts must match exactly
        pattern = "".join(
            f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part)
            for part in re.split(r"(\{\w+\})", tw) if part
        )
        m = re.fullmatch(pattern, w)
        if not m or not all(_PLACEHOLDERS[n].match(m.group(n)) for n in names):
            return False
    return True


def template_for(kind: str, argv: tuple[str, ...] | list[str]) -> Template | None:
    """The ESXi template ``argv`` matches (None when none does, or for Linux commands)."""
    if kind != "esxi":
        return None
    return next((t for t in ESXI_TEMPLATES if _matches(t, tuple(argv))), None)


def check(kind: str, argv: tuple[str, ...] | list[str]) -> str:
    """The command line to send for ``argv`` (``shlex.join``: every argument quoted as needed).

    Raises :class:`CommandRefused` when ``kind`` is not ``esxi``/``linux`` or ``argv`` is not in the
    allowlist of that kind (see the module docstring); for Linux the interface name in an ``ethtool``
    command must also match :data:`LINUX_IF_RE`.
    """
    argv = tuple(argv)
    if kind not in HOST_KINDS:
        raise CommandRefused(f"unknown host kind {kind!r} (expected one of {', '.join(HOST_KINDS)})")
    if not argv or any(not isinstance(w, str) or "\x00" in w or "\n" in w for w in argv):
        raise CommandRefused(f"command refused (empty, or a word holds a NUL or a newline): {argv!r}")
    if kind == "esxi":
        if template_for(kind, argv) is None:
            raise CommandRefused(f"command not in the ESXi read-only allowlist, not sent: {shlex.join(argv)!r}")
    else:
        tool = next((name for name, paths in LINUX_TOOL_PATHS.items() if argv[0] in paths), argv[0])
        ok = local_linux.allowed([tool, *argv[1:]])
        if ok and argv[0] == "ethtool" and not LINUX_IF_RE.match(argv[-1]):
            ok = False
        if not ok:
            raise CommandRefused(f"command not in the Linux read-only allowlist, not sent: {shlex.join(argv)!r}")
    return shlex.join(argv)


def pci_numbers(address: str | None) -> dict[str, str] | None:
    """A PCI address ``dddd:bb:dd.f`` (hex) as vsish's decimal node names ``{"seg", "bus", "slot", "func"}``
    (``0000:5e:00.1`` → ``0``, ``94``, ``0``, ``1``); None for anything else."""
    m = re.fullmatch(r"([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])", address or "")
    if not m or int(m.group(3), 16) > 0x1F:
        return None
    return dict(zip(("seg", "bus", "slot", "func"), (str(int(g, 16)) for g in m.groups())))


def esxi_command(template: Template, nic: str | None = None, module: str | None = None,
                 function: str | None = None) -> tuple[str, ...]:
    """``template`` with its placeholder filled; raises :class:`CommandRefused` for a NIC or module
    name that fails :data:`ESXI_NIC_RE` / :data:`MODULE_RE`, or a ``function`` that is not a PCI address
    (:func:`pci_numbers`)."""
    values: dict[str, str] = {}
    if template.scope == "function":
        numbers = pci_numbers(function)
        if numbers is None:
            raise CommandRefused(f"not a PCI address, command not sent: {function!r}")
        values.update(numbers)
    if template.scope == "nic":
        if not nic or not ESXI_NIC_RE.match(nic):
            raise CommandRefused(f"not an ESXi NIC name, command not sent: {nic!r}")
        values["nic"] = nic
    if template.scope == "module":
        if not module or not MODULE_RE.match(module):
            raise CommandRefused(f"not a driver module name, command not sent: {module!r}")
        values["module"] = module
    return _fill(template.words, values)


def esxi_templates(scope: str) -> list[Template]:
    """The ESXi templates of one ``scope`` (``host``, ``nic``, ``module``) in the order they are run;
    the ``host`` list excludes the NIC list, which is run first on its own."""
    return [t for t in ESXI_TEMPLATES if t.scope == scope and t is not ESXI_NIC_LIST]
