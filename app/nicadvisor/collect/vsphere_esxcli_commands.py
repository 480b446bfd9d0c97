"""The allowlist of esxcli commands the vSphere API path may run (esxcli over ``ExecuteSoap``), and the validation
of their arguments: nothing is sent unless :func:`validate` accepts it. Pure (no pyVmomi, no I/O): the calls are in
:mod:`nicadvisor.collect.vsphere_esxcli`, whose docstring gives the sources of the parameter names."""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping
from xml.sax.saxutils import escape

from nicadvisor import commands


@dataclass(frozen=True)
class EsxcliOption:
    """One allowed option: ``key`` is the long option without dashes as used in ``args`` (``"nic-name"``),
    ``param`` the esxcli parameter name sent to ExecuteSoap (``"nicname"``), ``kind`` its validator
    (``nic``, ``module``, ``host``, ``vmk``, ``netstack``, ``size``, ``count``, ``flag``)."""

    key: str
    param: str
    kind: str
    required: bool = False


@dataclass(frozen=True)
class EsxcliSpec:
    """An allowlisted esxcli command: ``words`` (``("network", "nic", "get")``) and its options."""

    words: tuple[str, ...]
    options: tuple[EsxcliOption, ...] = ()

    @property
    def namespace(self) -> tuple[str, ...]:
        return self.words[:-1]

    @property
    def moid(self) -> str:
        """``ha-cli-handler-network-nic`` (govmomi ``Command.Moid``)."""
        return "ha-cli-handler-" + "-".join(self.namespace)

    @property
    def method(self) -> str:
        """``vim.EsxCLI.network.nic.list`` (govmomi ``Command.Method``)."""
        return "vim.EsxCLI." + ".".join(self.words)

    @property
    def text(self) -> str:
        """``esxcli network nic list``."""
        return "esxcli " + " ".join(self.words)


_NIC = EsxcliOption("nic-name", "nicname", "nic", required=True)
#: The options each esxcli command takes over the API, by command words (a command missing here takes none).
_OPTIONS: dict[tuple[str, ...], tuple[EsxcliOption, ...]] = {
    ("network", "nic", "get"): (_NIC,),
    ("system", "module", "parameters", "list"): (EsxcliOption("module", "module", "module", True),),
    ("network", "diag", "ping"): (
        EsxcliOption("host", "host", "host", True),
        EsxcliOption("size", "size", "size"),
        EsxcliOption("df", "df", "flag"),
        EsxcliOption("interface", "interface", "vmk"),
        EsxcliOption("netstack", "netstack", "netstack"),
        EsxcliOption("count", "count", "count"),
    ),
}
ALLOWED: dict[tuple[str, ...], EsxcliSpec] = {
    c.esxcli_api: EsxcliSpec(c.esxcli_api, _OPTIONS.get(c.esxcli_api, ())) for c in commands.esxcli_api_commands()
}
"""The read-only esxcli commands that may be run over the API, by command words: those of the command catalogue
(:func:`nicadvisor.commands.esxcli_api_commands`), with their options."""

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
_VMK_RE = re.compile(r"^vmk\d{1,4}$")
_NETSTACK_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_HOSTNAME_RE = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?$")
MAX_PING_SIZE = 65507  # largest ICMPv4 payload, bytes
MAX_PING_COUNT = 10


def _check(opt: EsxcliOption, value: Any) -> str:
    """The text of ``value`` for option ``opt``; raises ValueError when it is not acceptable."""
    kind = opt.kind
    if kind == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"--{opt.key} must be True or False, not {value!r}")
        return "true" if value else "false"
    if kind in ("size", "count"):
        top = MAX_PING_SIZE if kind == "size" else MAX_PING_COUNT
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ValueError(f"--{opt.key} must be an integer from 1 to {top}, not {value!r}")
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"--{opt.key} must be a string, not {value!r}")
    if kind == "host":
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            if _HOSTNAME_RE.match(value) and not value.replace(".", "").isdigit():
                return value
        raise ValueError(f"--host must be an IP address or a host name, not {value!r}")
    pattern = {"nic": _NAME_RE, "module": _MODULE_RE, "vmk": _VMK_RE, "netstack": _NETSTACK_RE}[kind]
    if not pattern.match(value):
        what = {"nic": "an uplink name such as vmnic0", "module": "a driver module name such as ixgben",
                "vmk": "a VMkernel interface such as vmk10", "netstack": "a netstack name such as vxlan"}[kind]
        raise ValueError(f"--{opt.key} must be {what}, not {value!r}")
    return value


def validate(command: Iterable[str], args: Mapping[str, Any] | None = None) -> tuple[EsxcliSpec, list[tuple[EsxcliOption, str]]]:
    """Check ``command`` (``("network", "nic", "get")``) against :data:`ALLOWED` and ``args``
    (``{"nic-name": "vmnic0"}``) against its options; returns the spec and the (option, text value) pairs in
    option order (a ``df=False`` flag is left out: it is the default).

    Raises ValueError naming the command or option for a command not in the allowlist, an unknown option,
    a missing required option or a value that fails validation (names, IP/host name, 1-65507 bytes, 1-10 pings).
    """
    words = tuple(command)
    spec = ALLOWED.get(words)
    if spec is None:
        allowed = ", ".join(s.text for s in ALLOWED.values())
        raise ValueError(f"'esxcli {' '.join(words)}' is not allowed over the vSphere API (allowed: {allowed})")
    args = dict(args or {})
    known = {o.key for o in spec.options}
    unknown = sorted(set(args) - known)
    if unknown:
        raise ValueError(f"{spec.text}: unknown option(s) {', '.join('--' + u for u in unknown)}"
                         + (f" (allowed: {', '.join('--' + k for k in sorted(known))})" if known else " (it takes none)"))
    out: list[tuple[EsxcliOption, str]] = []
    for opt in spec.options:
        if opt.key not in args or args[opt.key] is None:
            if opt.required:
                raise ValueError(f"{spec.text}: --{opt.key} is required")
            continue
        text = _check(opt, args[opt.key])
        if opt.kind == "flag" and text == "false":
            continue
        out.append((opt, text))
    return spec, out


def command_text(spec: EsxcliSpec, values: list[tuple[EsxcliOption, str]]) -> str:
    """The esxcli command line the request stands for (``esxcli network nic get --nic-name vmnic0``)."""
    parts = [spec.text]
    for opt, text in values:
        parts.append(f"--{opt.key}" if opt.kind == "flag" else f"--{opt.key} {text}")
    return " ".join(parts)


def soap_arguments(values: list[tuple[EsxcliOption, str]]) -> list[dict[str, str]]:
    """ExecuteSoap arguments ``[{"name": "nicname", "val": "<nicname>vmnic0</nicname>"}]`` (values XML-escaped)."""
    return [{"name": o.param, "val": f"<{o.param}>{escape(t)}</{o.param}>"} for o, t in values]
