"""Parsers of ESXi command outputs: esxcli, esxcfg-*, vsish, lspci/vmkchdev, vmware -vl, vmkping, nicinfo.sh,
vmkernel.log and nsxdp-cli (with the NSX Edge CLI's ``get physical-ports``). One module per command family; an
esxcli family read over the vSphere API (rows of an ExecuteSoap answer) is read in the same module as its text."""
