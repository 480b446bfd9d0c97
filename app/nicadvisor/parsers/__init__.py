"""Pure parsers of command outputs (ESXi esxcli/esxcfg/vsish/lspci/vmkernel.log, Linux ethtool/lspci/sysfs).

Entry point: :func:`nicadvisor.parsers.registry.parse_output`. One module per command family.
"""
