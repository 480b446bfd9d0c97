"""The sosreport layout (``sos report`` of Red Hat, Ubuntu, SUSE…): which of its files hold which catalogue command's
output, and the host it is of. Pure: reading the tree or the archive is :mod:`nicadvisor.collect.sosreport`.

A sosreport is one host's support bundle: a folder (``sosreport-<host>-<case>-<date>-<random>/``, packed as
``.tar.xz``) holding copied files below their own path (``proc/net/bonding/bond0``) and each command's output under
``sos_commands/<plugin>/<name>``, the name being the command line with spaces turned into ``_`` and ``/`` into ``.``
(sos ``Plugin._mangle_command``: ``ethtool_-k_ens1f0`` is ``ethtool -k ens1f0``, ``ip_-d_address`` is
``ip -d address``, ``lspci_-nnvv`` is ``lspci -nnvv``). Only the NIC outputs NIC Advisor reads are taken
(:func:`command_for`); every other file is left alone. Layout seen in real trees: canonical/hotsos
``tests/unit/fake_data_root/*/`` (sos 4.x on Ubuntu: ``sos_commands/networking``, ``sos_commands/pci``,
``sos_commands/host/hostname``), sos's ``networking`` plugin (``ethtool``, ``ethtool -i|-k|-l|-c|-g …`` per
interface, ``ip -d address``, ``ip -s -d link``) and ``pci`` plugin (``lspci -nnvv``).
"""
from __future__ import annotations

import re

from nicadvisor.model.entities import clip
from nicadvisor.parsers import registry

#: The folder every sosreport holds (and nothing else NIC Advisor reads does): a folder with it is a sosreport root.
SOS_COMMANDS = "sos_commands"

#: The folders of a sosreport whose files :func:`command_for` may name (the rest of a tree of ~50,000 files is not
#: walked): the networking and PCI plugins' outputs, the kernel log, the host name and the bonding state.
READ_FOLDERS = (
    "sos_commands/networking", "sos_commands/pci", "sos_commands/kernel", "sos_commands/host",
    "sos_commands/general", "proc/net/bonding",
)

#: ``ethtool`` with one short option (or none) and an interface name (the name keeps its own ``_``, ``.`` and ``-``:
#: ``ethtool_-k_vxlan_sys_4789``). Long options (``--show-eee``, ``--phy-statistics``) are not read.
_ETHTOOL_RE = re.compile(r"^ethtool_(?:(?P<opt>-[A-Za-z])_)?(?P<nic>[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,63})$")
#: The ``ip`` and ``lspci`` outputs whose words hold no ``_`` (options and sub-commands only): ``ip_-d_address``,
#: ``ip_-s_-d_link``, ``ip_-o_addr``, ``lspci_-nnvv``, ``lspci_-nvv``.
_WORDS_RE = re.compile(r"^(?P<tool>ip|lspci)(?P<args>(?:_[-A-Za-z0-9]{1,32}){0,8})$")
#: The sos 3.x/4.x files that hold the host name (``hostname`` / ``hostname -f`` output), best first.
HOSTNAME_FILES = ("sos_commands/host/hostname", "sos_commands/general/hostname", "hostname",
                  "sos_commands/host/hostname_-f", "sos_commands/general/hostname_-f")
#: ``sosreport-<host>-<case id>-<YYYY-MM-DD>-<random>`` (sos 4) or ``sosreport-<host>-<YYYYMMDDHHMMSS>`` (sos 3).
_ROOT_NAME_RE = re.compile(r"^sosreport-(?P<host>.+?)(?:-[^-]*)?-(?:\d{4}-\d{2}-\d{2}-[a-z0-9]+|\d{14})$")
_HOST_CHARS_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$")


def command_for(rel_path: str) -> str | None:
    """The catalogue command a sosreport file (``rel_path`` below the report root, ``/``-separated) holds the output
    of, or None when NIC Advisor does not read it: ``sos_commands/networking/ethtool_-k_ens1f0`` → ``ethtool -k
    ens1f0``, ``sos_commands/networking/ethtool_ens1f0`` → ``ethtool ens1f0``, ``…/ip_-d_address`` → ``ip -d
    address``, ``sos_commands/pci/lspci_-nnvv`` → ``lspci -nnvv``, ``sos_commands/kernel/dmesg`` → ``dmesg``,
    ``proc/net/bonding/bond0`` → ``cat /proc/net/bonding/bond0``. A name is read only when a registered parser reads
    its command (:func:`nicadvisor.parsers.registry.parsers_for`): ``ethtool -S``, ``ip -s -s neigh show`` are not.
    Never read: commands run inside a network namespace (``ip_netns_exec_<ns>_ethtool_…``: not the host's ports),
    ``ethtool`` of the loopback ``lo`` (sos runs it on every ``/sys/class/net`` entry; ``lo`` is no port and its
    ``ethtool -i`` is an error message), and ``ip -o addr`` (one line per address, without the link's flags and MTU:
    ``ip -d address`` beside it says all of it).
    """
    rel = rel_path.replace("\\", "/").strip("/")
    folder, _, name = rel.rpartition("/")
    command: str | None = None
    if folder == "proc/net/bonding" and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}", name):
        command = f"cat /proc/net/bonding/{name}"
    elif folder == "sos_commands/kernel" and name == "dmesg":
        command = "dmesg"
    elif folder == "sos_commands/networking" and (m := _ETHTOOL_RE.match(name)) and m.group("nic") != "lo":
        command = " ".join(w for w in ("ethtool", m.group("opt"), m.group("nic")) if w)
    elif folder in ("sos_commands/networking", "sos_commands/pci") and not name.startswith(("ip_netns", "ip_-o_")) \
            and (m := _WORDS_RE.match(name)):
        command = (m.group("tool") + m.group("args").replace("_", " ")).strip()
    if command is None:
        return None
    return command if any(registry.parsers_for(c) for c in registry.split_commands(command)) else None


def host_name(root_name: str, hostname_text: str | None) -> str:
    """The host a sosreport is of: the first word of its ``hostname`` output (:data:`HOSTNAME_FILES`) when it is a
    host name, else the ``<host>`` of the report folder's name (``sosreport-web01-12345-2024-01-31-abcdefg`` →
    ``web01``), else that folder name itself (at most 253 characters)."""
    word = (hostname_text or "").strip().split("\n", 1)[0].strip()
    if _HOST_CHARS_RE.match(word):
        return word
    m = _ROOT_NAME_RE.match(root_name)
    return clip(m.group("host") if m else root_name, 253)
