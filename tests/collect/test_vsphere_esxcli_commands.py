"""The esxcli commands the vSphere API path may run, and the validation of their arguments
(collect/vsphere_esxcli_commands.py): only the catalogue's esxcli_api commands, each option checked before anything
is sent."""
from __future__ import annotations

import re

import pytest

from nicadvisor.collect import vsphere_esxcli_commands as allow


def test_allowlist_and_argument_validation():
    assert sorted(" ".join(w) for w in allow.ALLOWED) == [
        "network diag ping", "network nic coalesce get", "network nic get", "network nic list",
        "system module parameters list"]
    spec, values = allow.validate(("network", "diag", "ping"), {"host": "192.168.6.1", "size": 8972, "df": True,
                                                             "interface": "vmk10", "netstack": "vxlan", "count": 3})
    assert (spec.moid, spec.method) == ("ha-cli-handler-network-diag", "vim.EsxCLI.network.diag.ping")
    assert allow.command_text(spec, values) == (
        "esxcli network diag ping --host 192.168.6.1 --size 8972 --df --interface vmk10 --netstack vxlan --count 3")
    assert allow.soap_arguments(values) == [
        {"name": "host", "val": "<host>192.168.6.1</host>"}, {"name": "size", "val": "<size>8972</size>"},
        {"name": "df", "val": "<df>true</df>"}, {"name": "interface", "val": "<interface>vmk10</interface>"},
        {"name": "netstack", "val": "<netstack>vxlan</netstack>"}, {"name": "count", "val": "<count>3</count>"}]
    _, values = allow.validate(["network", "diag", "ping"], {"host": "esx-tep.example.com", "df": False})
    assert allow.soap_arguments(values) == [{"name": "host", "val": "<host>esx-tep.example.com</host>"}]
    spec, values = allow.validate(("network", "nic", "get"), {"nic-name": "vmnic1000202"})
    assert spec.moid == "ha-cli-handler-network-nic" and values[0][0].param == "nicname"
    assert allow.validate(("system", "module", "parameters", "list"), {"module": "i40en"})[1][0][0].param == "module"
    bad = [
        (("system", "shutdown", "reboot"), {}, "not allowed over the vSphere API"),
        (("network", "nic", "list"), {"nic-name": "vmnic0"}, "unknown option(s) --nic-name (it takes none)"),
        (("network", "nic", "get"), {}, "--nic-name is required"),
        (("network", "nic", "get"), {"nic-name": "vmnic0; reboot"}, "--nic-name must be an uplink name"),
        (("system", "module", "parameters", "list"), {"module": "<x/>"}, "--module must be a driver module name"),
        (("network", "diag", "ping"), {"host": "10.0.0.1 -c 99"}, "--host must be an IP address or a host name"),
        (("network", "diag", "ping"), {"host": "999.1.1.1"}, "--host must be an IP address"),
        (("network", "diag", "ping"), {"host": "h", "size": 65508}, "--size must be an integer from 1 to 65507"),
        (("network", "diag", "ping"), {"host": "h", "size": True}, "--size must be an integer"),
        (("network", "diag", "ping"), {"host": "h", "count": 11}, "--count must be an integer from 1 to 10"),
        (("network", "diag", "ping"), {"host": "h", "df": "yes"}, "--df must be True or False"),
        (("network", "diag", "ping"), {"host": "h", "interface": "eth0"}, "--interface must be a VMkernel interface"),
        (("network", "diag", "ping"), {"host": "h", "netstack": "a b"}, "--netstack must be a netstack name"),
        (("network", "diag", "ping"), {"host": "h", "ttl": 2}, "unknown option(s) --ttl"),
    ]
    for command, args, message in bad:
        with pytest.raises(ValueError, match=re.escape(message)):
            allow.validate(command, args)
