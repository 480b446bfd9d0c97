"""Pure reading: command outputs and API payloads in, facts with their evidence out; no I/O, never :mod:`collect`.

* ``esxi/``, ``linux/``: one module per command family of that platform (esxcli, esxcfg-*, vsish, lspci, vmware -vl,
  vmkernel.log, nsxdp-cli …; ethtool, lspci -vv, the kernel log, sysfs, ip); an esxcli family answered over the
  vSphere API is read in the same module as its text;
* ``api/``: vSphere managed-object property sets, esxcli answers over SOAP, QueryNetworkHint, NSX Manager responses,
  govc/Ansible dumps, and the replay of a live audit's recordings;
* at the root: the shared helpers (``base`` shapes and value helpers, ``framing`` what pasting adds, ``table`` the
  one table reader, ``pci_address``, ``rows`` API rows), the ``registry`` that picks each command's parser, the
  capture-file format (``capture_file``) and ``assemble`` (facts into hosts).

Entry point: :func:`nicadvisor.parsers.registry.parse_output`. Which commands exist, on which platform and through
which transport: the command catalogue, :mod:`nicadvisor.commands`.
"""
