"""esxcli through the vSphere API (no SSH: lockdown mode, SSH service off) and LLDP/CDP per pNIC.

**esxcli over the API** (nic-data-sources.md §1.2, [GOVMOMI-ESX] govmomi ``govc/host/esxcli/executor.go`` +
``command.go``, [PYVMOMI-MME] pyVmomi ``ManagedMethodExecutorHelper.py``, [INFI] ``infi.pyvmomi_wrapper``):

1. ``HostSystem.RetrieveManagedMethodExecuter()`` → a ``ReflectManagedMethodExecuter`` reference (works through
   vCenter: vCenter forwards the call to the host's hostd);
2. ``ReflectManagedMethodExecuter.ExecuteSoap(moid="ha-cli-handler-" + "-".join(namespace),
   version="urn:vim25/5.0", method="vim.EsxCLI." + ".".join(namespace + [verb]), argument=[{name, val}])``
   where each ``val`` is an XML fragment ``<name>value</name>`` (govmomi ``Command.Argument``);
3. the answer is a ``SoapResult`` holding either ``response`` — an XML document
   ``<obj xsi:type="ArrayOfDataObject"><DataObject xsi:type="VimEsxCLI…">…`` whose element names are the
   esxcli field names without spaces (``PCIDevice``, ``RXmicroseconds``; govmomi ``response.go``, fixtures
   ``govc/host/esxcli/fixtures/*.xml``) — or ``fault`` (``faultMsg`` + a ``VimEsxCLICLIFault`` XML with
   ``errMsg`` lines, e.g. an unknown vmnic).

pyVmomi 8/9 no longer ships the internal ``vmodl.reflect`` types, so this module registers the four it needs
(``ManagedMethodExecuter`` with ``ExecuteSoap``, ``SoapArgument``, ``SoapFault``, ``SoapResult``; definitions as
in [INFI] ``esxcli/ReflectTypes.py``) at import, and calls ``RetrieveManagedMethodExecuter`` through the
session's stub with a method description of its own (``vim.HostSystem`` itself is not patched).

Only an **allowlist** of read-only commands can be run (:data:`nicadvisor.collect.vsphere_esxcli_commands.ALLOWED`,
checked by its ``validate`` before anything is sent): ``network nic list``,
``network nic get --nic-name X``, ``network nic coalesce get``, ``system module parameters list --module X``
and ``network diag ping --host … [--size --df --interface --netstack --count]``. Their esxcli parameter names
(``nicname``, ``module``, ``host``/``size``/``df``/``interface``/``netstack``/``count``) are those PowerCLI
``Get-EsxCli -V2`` scripts pass (``$esxcli.network.nic.get.Invoke(@{nicname=…})``,
``system.module.parameters.list.Invoke(@{module=…})``, ``network.diag.ping.CreateArgs()``) and govmomi's
``simulator/esx/command_info.go`` lists (``nicname`` with aliases ``-n``/``--nic-name``).

**LLDP / CDP**: ``HostNetworkSystem.QueryNetworkHint()`` → ``PhysicalNicHintInfo[]`` per pNIC with
``connectedSwitchPort`` (CDP: ``devId``, ``portId``, ``address``/``mgmtAddr``, ``vlan``, ``mtu`` …) and
``lldpInfo`` (``chassisId``, ``portId``, ``timeToLive``, ``parameter`` key/values such as ``System Name``)
(§1.1, community.vmware ``vmware_host_vmnic_info`` [CV-VMNIC]). No model field holds them: they go to
``ParseResult.records`` and the recorded Capture only.

Every answer is recorded as a :class:`~nicadvisor.parsers.capture_file.Capture` whose text is one JSON line
holding the request and the raw response (XML string for esxcli, plain dicts for QueryNetworkHint); the
``facts_from_recording`` of :mod:`nicadvisor.parsers.api.esxcli_soap` and :mod:`nicadvisor.parsers.api.network_hints`
replays it into the same facts. Reading is pure — no pyVmomi objects, no I/O, never raises — and lives in parsers/:
the answer's XML → rows in :mod:`~nicadvisor.parsers.api.esxcli_soap`, the rows → facts in the module of each
command family (``network nic coalesce get`` in :mod:`nicadvisor.parsers.esxi.coalesce`), so replaying a saved
recording needs no pyVmomi.

vcsim (govmomi v0.46.3) implements neither ``RetrieveManagedMethodExecuter`` (``MethodNotFound``) nor
``ExecuteSoap``; its ``QueryNetworkHint`` answers an empty list. Those cases end as problems / empty records,
never as exceptions.
"""
from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pyVmomi import SoapStubAdapter, VmomiSupport, vim, vmodl
from pyVmomi.VmomiSupport import F_OPTIONAL, LazyObject, ManagedObject

from nicadvisor import commands
from nicadvisor.collect.ssh_commands import ESXI_NIC_RE, MODULE_RE
from nicadvisor.collect.vsphere_values import to_plain
from nicadvisor.collect.vsphere_esxcli_commands import (
    ALLOWED, EsxcliSpec, _MODULE_RE, _NAME_RE, command_text, soap_arguments, validate,
)
from nicadvisor.model import CommandNotRun, InputProblem
from nicadvisor.parsers.api.esxcli_soap import SOAP_VERSION, esxcli_recording, facts_for, fault_text, response_rows
from nicadvisor.parsers.api.network_hints import FAMILY_HINTS, HINTS_COMMAND, hint_facts, hints_recording
from nicadvisor.parsers.base import ParseResult
from nicadvisor.parsers.capture_file import Capture, reason_of
from nicadvisor.parsers.rows import esxcli_api_family

_REFLECT = "vmodl.reflect.ManagedMethodExecuter"
_V0 = "vmodl.version.version0"  # parent of every vim version: the types serialise with any negotiated version


def _register_reflect_types() -> None:
    """Declare the ``vmodl.reflect`` types pyVmomi 8+ no longer ships (idempotent: pyVmomi ignores a
    second declaration of a frozen name). Definitions as in [INFI] ``esxcli/ReflectTypes.py``."""
    VmomiSupport.CreateDataType(f"{_REFLECT}.SoapArgument", "ReflectManagedMethodExecuterSoapArgument",
                                "vmodl.DynamicData", _V0, [("name", "string", _V0, 0), ("val", "string", _V0, 0)])
    VmomiSupport.CreateDataType(f"{_REFLECT}.SoapFault", "ReflectManagedMethodExecuterSoapFault",
                                "vmodl.DynamicData", _V0,
                                [("faultMsg", "string", _V0, 0), ("faultDetail", "string", _V0, F_OPTIONAL)])
    VmomiSupport.CreateDataType(f"{_REFLECT}.SoapResult", "ReflectManagedMethodExecuterSoapResult",
                                "vmodl.DynamicData", _V0,
                                [("response", "string", _V0, F_OPTIONAL),
                                 ("fault", f"{_REFLECT}.SoapFault", _V0, F_OPTIONAL)])
    VmomiSupport.CreateManagedType(_REFLECT, "ReflectManagedMethodExecuter", "vmodl.ManagedObject", _V0, None, [
        ("executeSoap", "ExecuteSoap", _V0, (
            ("moid", "string", _V0, 0, None), ("version", "string", _V0, 0, None),
            ("method", "string", _V0, 0, None), ("argument", f"{_REFLECT}.SoapArgument[]", _V0, F_OPTIONAL, None)),
         (F_OPTIONAL, f"{_REFLECT}.SoapResult", f"{_REFLECT}.SoapResult"), "System.Read", None)])


_register_reflect_types()

_RETRIEVE_MME = LazyObject(
    name="RetrieveManagedMethodExecuter", typeName="vim.HostSystem", wsdlName="RetrieveManagedMethodExecuter",
    version=_V0, params=(), isTask=False, resultFlags=F_OPTIONAL, resultName=_REFLECT,
    methodResultName=_REFLECT, privId="System.Read", faults=[])
"""Method description of ``HostSystem.RetrieveManagedMethodExecuter`` (internal API; govmomi
``internal.RetrieveManagedMethodExecuterRequest``), invoked through the stub without patching vim.HostSystem."""

# Faults meaning "this server cannot run esxcli over the API at all" (vcsim v0.46.3: MethodNotFound on
# RetrieveManagedMethodExecuter; vcsim's answer to ExecuteSoap: InvalidRequest "no vmomi type defined").
_UNSUPPORTED = (vmodl.fault.MethodNotFound, vmodl.fault.NotSupported, vmodl.fault.InvalidRequest)


@dataclass(frozen=True)
class EsxcliAnswer:
    """The outcome of one esxcli-over-API call.

    ``capture`` always records the request and the raw response or fault (replay with
    :func:`~nicadvisor.parsers.api.esxcli_soap.facts_from_recording`); ``rows`` are the raw rows of
    :func:`~nicadvisor.parsers.api.esxcli_soap.response_rows` (``[]`` on failure);
    ``facts`` the converted ParseResult (empty on failure); ``problem`` the failure as an InputProblem naming
    the host and the esxcli command, else None; ``unsupported`` the host-independent reason
    (``"MethodNotFound (RetrieveManagedMethodExecuter)"``) when the server cannot run esxcli over the API at
    all (vcsim, a server without the internal reflect API), else None."""

    capture: Capture
    rows: list[dict[str, Any]] = field(default_factory=list)
    facts: ParseResult | None = None
    problem: InputProblem | None = None
    unsupported: str | None = None


def _stub_of(si_or_stub: Any) -> Any:
    stub = getattr(si_or_stub, "_stub", None)
    return stub if stub is not None else si_or_stub


def _host_of(host_moref: Any, stub: Any) -> Any:
    if isinstance(host_moref, ManagedObject):
        return host_moref
    if isinstance(host_moref, str) and host_moref.strip():
        return vim.HostSystem(host_moref.split(":", 1)[-1].strip(), stub)
    raise ValueError(f"not a HostSystem reference: {host_moref!r}")


def _with_timeout(stub: Any, timeout: float) -> tuple[Any, bool]:
    """``(stub, False)`` when ``stub`` already uses ``timeout`` s per socket operation (or is not a
    SoapStubAdapter), else ``(sibling, True)``: a new SoapStubAdapter on the same endpoint, TLS context (so the
    same pinning) and session cookie, whose connections use ``timeout``. The caller drops a sibling's
    connections when done."""
    scheme_args = getattr(stub, "schemeArgs", None)
    if not isinstance(stub, SoapStubAdapter) or not isinstance(scheme_args, dict) or scheme_args.get("timeout") == timeout:
        return stub, False
    host = stub.host.rsplit(":", 1)[0]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    sibling = SoapStubAdapter(host=host, port=stub.port, path=stub.path, version=stub.version,
                              sslContext=scheme_args.get("context"), httpConnectionTimeout=timeout,
                              thumbprint=stub.thumbprint)
    sibling.cookie = stub.cookie
    return sibling, True


def fault_reason(exc: BaseException) -> str:
    """``MethodNotFound: HostSystem:host-21 does not implement: RetrieveManagedMethodExecuter`` and the like."""
    if isinstance(exc, vmodl.MethodFault):
        return f"{type(exc).__name__.rsplit('.', 1)[-1]}: {getattr(exc, 'msg', '') or type(exc).__name__}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return f"no answer in time ({exc or 'timed out'})"
    return f"{type(exc).__name__}: {exc}"


def _unsupported_reason(exc: vmodl.MethodFault) -> str:
    """The host-independent reason of an 'unsupported' fault: ``MethodNotFound (RetrieveManagedMethodExecuter)``."""
    name = type(exc).__name__.rsplit(".", 1)[-1]
    method = getattr(exc, "method", None)
    return f"{name} ({method})" if isinstance(method, str) and method else name


class EsxcliExecutor:
    """esxcli over the API for one host, retrieving its ``ReflectManagedMethodExecuter`` once for several commands.

    ``stub``: the session's pyVmomi stub (or a ServiceInstance); ``host_moref``: ``vim.HostSystem``,
    ``"host-21"`` or ``"HostSystem:host-21"``; ``host_name`` names the host in problems; ``source``: prefix of
    the Captures' sources (default ``<origin>/<host moid>``); ``origin``: the ``# source:`` of the Captures
    (default ``vcenter://<endpoint>``); ``notes``: added to every Capture (TLS trust). Not thread-safe: one
    executor per worker thread. Raises ValueError for a ``host_moref`` that is not a HostSystem reference.
    """

    def __init__(self, stub: Any, host_moref: Any, host_name: str | None = None, source: str | None = None,
                 origin: str | None = None, notes: tuple[str, ...] = ()) -> None:
        self.stub = _stub_of(stub)
        self.moid = _host_of(host_moref, self.stub)._moId
        self.host_name = host_name or self.moid
        self.origin = origin or f"vcenter://{getattr(self.stub, 'host', '?')}"
        self.source = source or f"{self.origin}/{self.moid}"
        self.notes = tuple(notes)
        self._mme_id: str | None = None

    def _execute(self, stub: Any, spec: EsxcliSpec, arguments: list[dict[str, str]]) -> Any:
        if self._mme_id is None:
            mme = stub.InvokeMethod(vim.HostSystem(self.moid, stub), _RETRIEVE_MME, ())
            if mme is None:
                raise vmodl.fault.NotSupported(msg="RetrieveManagedMethodExecuter returned no executer")
            self._mme_id = mme._moId
        mme = VmomiSupport.GetVmodlType(_REFLECT)(self._mme_id, stub)
        arg_type = VmomiSupport.GetVmodlType(f"{_REFLECT}.SoapArgument")
        return mme.ExecuteSoap(moid=spec.moid, version=SOAP_VERSION, method=spec.method,
                               argument=[arg_type(name=a["name"], val=a["val"]) for a in arguments])

    def run(self, command: Iterable[str], args: Mapping[str, Any] | None = None, timeout: float = 30.0) -> EsxcliAnswer:
        """Run one allowlisted command (see :func:`~nicadvisor.collect.vsphere_esxcli_commands.validate`;
        ``timeout`` seconds per socket operation).

        Server-side failures (a vmodl fault such as ``MethodNotFound``, an esxcli fault such as an unknown
        vmnic, an unreadable answer, a timeout) come back as ``EsxcliAnswer.problem``. Raises ValueError for a
        command/argument refused by ``validate`` (before any call), OSError / http.client.HTTPException when
        the connection itself fails (the session is gone).
        """
        args = dict(args or {})
        spec, values = validate(command, args)
        arguments = soap_arguments(values)
        line = command_text(spec, values)
        header = f"vSphere API: {line} (ExecuteSoap {spec.moid} {spec.method})"
        suffix = "-".join(spec.words) + "".join(f"/{t}" for o, t in values if o.kind in ("nic", "module"))
        source = f"{self.source}/esxcli/{suffix}"
        response: str | None = None
        fault: dict[str, Any] | None = None
        error: str | None = None
        unsupported: str | None = None
        stub, own = _with_timeout(self.stub, timeout)
        try:
            result = self._execute(stub, spec, arguments)
            if result is not None and getattr(result, "fault", None) is not None:
                fault = {"faultMsg": result.fault.faultMsg, "faultDetail": result.fault.faultDetail}
                error = fault_text(result.fault.faultMsg, result.fault.faultDetail)
            elif result is not None and isinstance(getattr(result, "response", None), str):
                response = result.response
            else:
                error = "ExecuteSoap returned neither a response nor a fault"
        except _UNSUPPORTED as exc:
            error, unsupported = fault_reason(exc), _unsupported_reason(exc)
        except vmodl.MethodFault as exc:
            error = fault_reason(exc)
        except (socket.timeout, TimeoutError) as exc:
            error = f"no answer within {timeout:g} s ({exc or 'timed out'})"
        except (KeyError, TypeError, ValueError) as exc:  # pyVmomi could not deserialize the answer
            error = f"answer not understood by pyVmomi ({type(exc).__name__}: {exc})"
        finally:
            if own:
                stub.DropConnections()
        text = esxcli_recording(f"HostSystem:{self.moid}", spec.words, args, spec.moid, spec.method, arguments,
                                response, fault, error, self.origin.removeprefix("vcenter://"))
        cap = Capture(source=source, command=header, text=text, host=self.host_name, notes=self.notes,
                      origin=self.origin)
        if error is None:
            rows, _kind, err = response_rows(response)
            if err is None:
                return EsxcliAnswer(cap, rows, facts_for(spec.words, rows, args))
            error = f"answer not readable: {err}"
        why = f"this server cannot run esxcli over the API: {error}" if unsupported else error
        problem = InputProblem(source, f"host {self.host_name}: '{line}' over the vSphere API "
                                       f"({spec.moid}, {spec.method}) failed: {why}", header)
        return EsxcliAnswer(cap, [], ParseResult(family=esxcli_api_family(spec.words)), problem, unsupported)


def esxcli_over_api(si_or_stub: Any, host_moref: Any, command: Iterable[str], args: Mapping[str, Any] | None = None,
                    timeout: float = 30.0, *, host_name: str | None = None, source: str | None = None,
                    origin: str | None = None, notes: tuple[str, ...] = ()) -> EsxcliAnswer:
    """Run one allowlisted esxcli command on one host through the vSphere API (no SSH).

    ``si_or_stub``: a logged-in ``vim.ServiceInstance`` or its stub; ``host_moref``: ``vim.HostSystem``,
    ``"host-21"`` or ``"HostSystem:host-21"``; ``command``: words such as ``("network", "nic", "list")``;
    ``args``: long options without dashes, e.g. ``{"nic-name": "vmnic0"}``, ``{"module": "ixgben"}``,
    ``{"host": "192.0.2.10", "size": 8972, "df": True, "interface": "vmk10", "netstack": "vxlan"}`` (bytes for
    ``size``); ``timeout``: seconds per socket operation (a ping needs about ``count`` seconds).

    Returns an :class:`EsxcliAnswer` (``capture``, raw ``rows``, ``facts``, ``problem``). Raises ValueError for a
    command or argument outside the allowlist, OSError / http.client.HTTPException when the connection fails.
    """
    return EsxcliExecutor(si_or_stub, host_moref, host_name, source, origin, notes).run(command, args, timeout)


def query_network_hints(si_or_stub: Any, network_system: Any, host_moref: Any, host_name: str | None = None,
                        timeout: float = 30.0, *, source: str | None = None, origin: str | None = None,
                        notes: tuple[str, ...] = ()) -> tuple[Capture | None, ParseResult, InputProblem | None]:
    """LLDP/CDP of every pNIC of one host: ``HostNetworkSystem.QueryNetworkHint()`` (no device filter).

    ``network_system``: the host's ``configManager.networkSystem`` (``vim.host.NetworkSystem`` or its moid).
    Returns ``(capture, facts, problem)``: the Capture records the hints as plain dicts (an empty list when no
    switch sends LLDP/CDP, or on vcsim), ``facts`` holds :func:`~nicadvisor.parsers.api.network_hints.hint_facts` records; on a vmodl fault or
    timeout the capture is None and ``problem`` names the host. Raises OSError / HTTPException when the
    connection fails.
    """
    stub = _stub_of(si_or_stub)
    host = _host_of(host_moref, stub)
    origin = origin or f"vcenter://{getattr(stub, 'host', '?')}"
    src = f"{source or f'{origin}/{host._moId}'}/networkSystem"
    name = host_name or host._moId
    stub2, own = _with_timeout(stub, timeout)
    try:
        ns = network_system if isinstance(network_system, ManagedObject) else None
        ns_id = ns._moId if ns is not None else str(network_system or "").split(":", 1)[-1]
        if not ns_id:
            return None, ParseResult(family=FAMILY_HINTS), InputProblem(
                src, f"host {name}: no HostNetworkSystem, LLDP/CDP not read", HINTS_COMMAND)
        hints = vim.host.NetworkSystem(ns_id, stub2).QueryNetworkHint()
    except vmodl.MethodFault as exc:
        return None, ParseResult(family=FAMILY_HINTS), InputProblem(
            src, f"host {name}: LLDP/CDP (QueryNetworkHint) not read: {fault_reason(exc)}", HINTS_COMMAND)
    except (socket.timeout, TimeoutError) as exc:
        return None, ParseResult(family=FAMILY_HINTS), InputProblem(
            src, f"host {name}: LLDP/CDP (QueryNetworkHint) not read: no answer within {timeout:g} s ({exc})",
            HINTS_COMMAND)
    finally:
        if own:
            stub2.DropConnections()
    plain = [to_plain(h) for h in hints or []]
    text = hints_recording(f"HostSystem:{host._moId}", f"HostNetworkSystem:{ns_id}", plain,
                           origin.removeprefix("vcenter://"))
    cap = Capture(source=src, command=HINTS_COMMAND, text=text, host=name, notes=tuple(notes), origin=origin)
    return cap, hint_facts(plain), None


# --- per host (called by nicadvisor.collect.vsphere) ----------------------------------------------------

@dataclass
class HostExtras:
    """What :func:`collect_host_extras` read for one host: ``parsed`` (Capture, ParseResult) pairs for
    ``HostInputs.parsed``, ``problems`` of this host, ``unsupported`` reason when esxcli over the API is not
    available on this server (counted per vCenter by the caller, one problem per reason)."""

    parsed: list[tuple[Capture, ParseResult]] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    unsupported: str | None = None
    not_run: list[CommandNotRun] = field(default_factory=list)


def _not_run(line: str, answer: EsxcliAnswer) -> CommandNotRun:
    """The failed esxcli call of ``line`` as a :class:`CommandNotRun`: ``api`` when the server cannot run esxcli over
    the API at all, ``timeout`` when it did not answer in time, else from the fault's text."""
    why = answer.problem.message.split(" failed: ", 1)[-1] if answer.problem is not None else ""
    if answer.unsupported:
        return CommandNotRun(line, "api", why)
    if why.startswith("no answer within"):
        return CommandNotRun(line, "timeout", why)
    return CommandNotRun(line, reason_of(why), why)


def _fact_names(facts: Iterable[str]) -> str:
    """``("pnic.geneve_offload", "pnic.rss")`` → ``"geneve offload, rss"``."""
    return ", ".join(dict.fromkeys(f.partition(".")[2].replace("_", " ") for f in facts))


def api_not_run(esxcli: bool, pnics: Iterable[str] = (), drivers: Iterable[str] = ()) -> list[CommandNotRun]:
    """What an audit through the vSphere API leaves out of the catalogue the SSH collector runs on one host
    (:func:`nicadvisor.commands.not_over_api`), each command with its pNIC (``pnics``) or driver module (``drivers``)
    filled in as the SSH collector would send it, reason ``api``, and the facts only it reads in ``detail``."""
    names = {"pnic": [n for n in pnics if ESXI_NIC_RE.match(n)], "module": [d for d in drivers if MODULE_RE.match(d)],
             "host": [""]}
    out: list[CommandNotRun] = []
    for c, only in commands.not_over_api(esxcli):
        if c.esxcli_api:
            how = "run esxcli through the vSphere API (--esxcli-over-api) or audit the host over SSH"
        else:
            why = ("NIC Advisor does not run it through the vSphere API" if c.words[0] == "esxcli"
                   else "the vSphere API cannot run it (not an esxcli command)")
            how = f"{why}: audit the host over SSH or run the collector script (nic-advisor collect-script --kind esxi)"
        for name in names.get(c.scope, []):
            text = c.text.replace("{nic}", name).replace("{module}", name)
            out.append(CommandNotRun(text, "api", f"{how}; it reads what the API does not: {_fact_names(only)}"))
    return out


def collect_host_extras(stub: Any, host_moref: Any, host_name: str, *, pnics: Iterable[str] = (),
                        drivers: Iterable[str] = (), network_system: Any = None, esxcli: bool = True,
                        hints: bool = True, timeout: float = 30.0, source: str | None = None,
                        origin: str | None = None, notes: tuple[str, ...] = ()) -> HostExtras:
    """The per-host extras of a live vSphere audit.

    ``hints``: QueryNetworkHint (1 call). ``esxcli``: the commands of the catalogue the collectors run that the API
    can run (:func:`nicadvisor.commands.esxcli_api_commands`): ``network nic list``, ``network nic coalesce get``,
    ``network nic get --nic-name`` per pNIC in ``pnics`` (driver/firmware versions before API 8.0.0.1, §2) and
    ``system module parameters list --module`` per driver in ``drivers`` (1 + 2 + len(pnics) + len(drivers)
    calls). When the first esxcli call shows the server cannot run esxcli over the API, the rest is skipped
    and ``unsupported`` holds the reason. Each esxcli call that failed, and each one left out after the server showed
    it cannot run esxcli, is in ``not_run``. Raises OSError / HTTPException when the connection fails.
    """
    out = HostExtras()
    if hints and network_system is not None:
        cap, facts, problem = query_network_hints(stub, network_system, host_moref, host_name, timeout,
                                                  source=source, origin=origin, notes=notes)
        if cap is not None:
            out.parsed.append((cap, facts))
        if problem is not None:
            out.problems.append(problem)
    if not esxcli:
        return out
    ex = EsxcliExecutor(stub, host_moref, host_name, source, origin, notes)
    audited = [c for c in commands.esxcli_api_commands() if c.run]  # the audit's reads (not the path test's ping)
    plan: list[tuple[tuple[str, ...], dict[str, Any]]] = [(c.esxcli_api, {}) for c in audited if c.scope == "host"]
    plan += [(c.esxcli_api, {"nic-name": n}) for c in audited if c.scope == "pnic" for n in pnics if _NAME_RE.match(n)]
    plan += [(c.esxcli_api, {"module": d}) for c in audited if c.scope == "module"
             for d in drivers if _MODULE_RE.match(d)]
    for i, (words, args) in enumerate(plan):
        answer = ex.run(words, args, timeout)
        out.parsed.append((answer.capture, answer.facts or ParseResult(family=esxcli_api_family(words))))
        if answer.problem is not None:
            out.not_run.append(_not_run(command_text(*validate(words, args)), answer))
        if answer.unsupported:
            out.unsupported = answer.unsupported
            out.not_run += [CommandNotRun(command_text(*validate(w, a)), "api", f"not tried: {answer.unsupported}")
                            for w, a in plan[i + 1:]]
            return out
        if answer.problem is not None:
            out.problems.append(answer.problem)
    return out


def unsupported_problems(source: str, label: str, unsupported: Mapping[str, int]) -> list[InputProblem]:
    """One vCenter-level problem per reason esxcli over the API was unavailable, with the host count:
    ``vCenter 127.0.0.1:8989: esxcli over the vSphere API (esxcli network nic list, …) not available on 4
    host(s): …``."""
    cmds = ", ".join(s.text for s in ALLOWED.values() if s.words != ("network", "diag", "ping"))
    return [InputProblem(source, f"vCenter {label}: esxcli over the vSphere API ({cmds}) not available on "
                                 f"{count} host(s): {reason}", "vSphere API: RetrieveManagedMethodExecuter ; ExecuteSoap")
            for reason, count in unsupported.items()]


__all__ = [
    "api_not_run", "EsxcliAnswer", "EsxcliExecutor", "HostExtras", "collect_host_extras", "esxcli_over_api", "fault_reason",
    "query_network_hints", "unsupported_problems",
]
