"""Where outputs come from, I/O only: capture folders and vm-support bundles (``sources``, ``bundle``), this Linux
machine (``local_linux``), vSphere (``vsphere``, ``vsphere_rawxml``, ``vsphere_esxcli``), SSH (``ssh``), NSX Manager
(``nsx``), each transport with its allowlist (``ssh_commands``, ``vsphere_esxcli_commands``: built from the command
catalogue, :mod:`nicadvisor.commands`), and the trust stores (``tls_pins`` with the TLS policy ``tls_pinning``,
``known_hosts``), and the compatibility guide download (``guide_fetch``). Each source yields raw outputs (:class:`~nicadvisor.parsers.capture_file.Capture`) that the parsers
read and :mod:`nicadvisor.parsers.assemble` turns into model objects."""


class ConnectionCheckError(Exception):
    """A live target failed its connection check ("Test connection"); the message is for the user."""
