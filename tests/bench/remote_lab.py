"""A lab of real hosts for the remote benchmark tests: network namespaces as hosts, each with its own
real OpenSSH sshd (tests/ssh/sshd_harness.py) reached from this namespace over a management veth pair,
and the hosts joined to each other by a data veth pair shaped with ``tc tbf``.

Layout (``<t>`` = 6 hex digits of the lab; N chosen among free 10.215.N.0/30 subnets)::

    root ns  rl<t>m0 10.215.N.1/30 <==veth==> m0 10.215.N.2/30  nicadvrl-<t>0  (sshd :2222)  d0 10.216.0.1/30
    root ns  rl<t>m1 10.215.M.1/30 <==veth==> m0 10.215.M.2/30  nicadvrl-<t>1  (sshd :2222)  d0 10.216.0.2/30
                                                    nicadvrl-<t>0 d0 <==veth, tbf RATE==> nicadvrl-<t>1 d0

With ``delay_us`` the two ``d0`` are not joined directly but through a third namespace ``nicadvrl-<t>r`` in which
``delay_relay.py`` passes every frame between its interfaces ``r0`` and ``r1`` after ``delay_us`` (a user-space
relay: this kernel has no netem); the hosts' ``d0`` then send without checksum offload, TSO or GSO (the relay
passes frames on as they are).

Benchmark traffic uses the ``d0`` addresses, which exist only inside the two namespaces. The
namespaces share this machine's file system and programs; a host can be given a ``PATH`` without some
programs (``SetEnv PATH=`` in its sshd_config) to play a host where they are not installed.
Everything is removed by :meth:`RemoteLab.close` (namespaces, sshd processes, the test account and
every process it still runs). Needs root.

Run as a script (``python remote_lab.py crash SPEC.json``) it is the child of the kill -9 test: it
starts a remote benchmark described by SPEC, prints one JSON line once the first test's client runs,
then waits to be killed.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ssh"))

import sshd_harness as H  # noqa: E402

from nicadvisor.bench.netns import tbf_burst_bytes  # noqa: E402
from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402
from nicadvisor.collect.ssh import SshTarget  # noqa: E402

DATA_NET = "10.216.0"
_USED_SUBNETS: set[str] = set()  # management subnets handed out in this process (see RemoteLab._free_subnet)
DATA_IF = "d0"
SSH_PORT = 2222


def _run(*argv: str) -> None:
    subprocess.run(list(argv), check=True, timeout=20, capture_output=True)


class RemoteLab:
    """``n`` namespace hosts (2 by default) with sshd, joined by a data link shaped to ``rate_mbit``.
    ``no_programs``: ``{host index: names}`` left out of that host's ``PATH``; ``delay_us``: join the hosts through
    the delay relay instead (each frame held that long in each direction)."""

    def __init__(self, n: int = 2, rate_mbit: int | None = 50, no_programs: dict[int, tuple[str, ...]] | None = None,
                 delay_us: int | None = None) -> None:
        if n != 2:
            raise ValueError("the lab joins exactly two hosts by one veth pair")
        self._begin(rate_mbit, delay_us)
        try:
            for i in range(n):
                self._host(i, (no_programs or {}).get(i, ()))
            self._data_link()
        except BaseException:
            self.close()
            raise

    def _begin(self, rate_mbit: int | None = None, delay_us: int | None = None) -> None:
        """The lab's own folder, account and client key; nothing in the network yet."""
        self.tag = secrets.token_hex(3)
        self.base = H.make_base("nicadv-rlab-")
        self.rate_mbit = rate_mbit
        self.namespaces: list[str] = []
        self.outside: list[str] = []
        self.sshds: list[H.Sshd] = []
        self.mgmt: list[str] = []
        self.delay_us = delay_us
        self.relay: subprocess.Popen | None = None
        self.user = H.TestUser(self.base)
        try:
            self.client_key = H.keygen(self.base / "client_key")
            self.authorized_keys = self.base / "authorized_keys"
            self.authorized_keys.write_text(Path(str(self.client_key) + ".pub").read_text())
            self.authorized_keys.chmod(0o644)
        except BaseException:
            self.close()
            raise

    # --- building ----------------------------------------------------------------------------------
    def _free_subnet(self) -> str:
        """A 10.215.N.0/30 management subnet no interface holds and no earlier lab of this test run used: a host
        key remembered for 10.215.N.2:2222 by an earlier lab would make a later lab's new key look changed."""
        used = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, timeout=10).stdout
        taken = used + " ".join(self.mgmt)
        start = secrets.randbelow(60) * 4
        for k in [*range(start, 256, 4), *range(0, start, 4)]:
            net = f"10.215.{k}"
            if f"{net}." not in taken and net not in _USED_SUBNETS:
                _USED_SUBNETS.add(net)
                return net
        raise RuntimeError("no free 10.215.N.0/30 subnet left for a lab host")

    def _path_without(self, i: int, names: tuple[str, ...]) -> Path:
        """A folder of links to every program of /usr/bin and /bin except ``names``."""
        d = self.base / f"bin{i}"
        d.mkdir()
        for src in (Path("/usr/bin"), Path("/bin")):
            for prog in src.iterdir():
                if prog.name not in names and not (d / prog.name).exists():
                    (d / prog.name).symlink_to(prog)
        return d

    def _host(self, i: int, no_programs: tuple[str, ...], force_command: str | None = None, tty: bool = False) -> None:
        """Host ``i``: its namespace, its management veth from this namespace and its sshd (``force_command``: every
        command goes to that program, the ESXi lab's shell; ``tty``: sessions may ask for a pseudo-terminal)."""
        ns, outside = f"nicadvrl-{self.tag}{i}", f"rl{self.tag}m{i}"
        _run("ip", "netns", "add", ns)
        self.namespaces.append(ns)
        _run("ip", "link", "add", outside, "type", "veth", "peer", "name", "m0", "netns", ns)
        self.outside.append(outside)
        with H.machine_lock("subnets"):  # chosen and taken at once: other test processes (pytest -n) choose too
            net = self._free_subnet()
            _run("ip", "addr", "add", f"{net}.1/30", "dev", outside)
        _run("ip", "link", "set", outside, "up")
        _run("ip", "-n", ns, "addr", "add", f"{net}.2/30", "dev", "m0")
        _run("ip", "-n", ns, "link", "set", "m0", "up")
        _run("ip", "-n", ns, "link", "set", "lo", "up")
        self.mgmt.append(f"{net}.2")
        extra = f"SetEnv PATH={self._path_without(i, no_programs)}\n" if no_programs else ""
        sshd = H.Sshd(self.base, self.user.name, self.authorized_keys, listen=f"{net}.2", port=SSH_PORT, netns=ns,
                      tag=f"rl{i}", extra=extra, force_command=force_command, tty=tty)
        self.sshds.append(sshd)
        sshd.start()

    def _relay_link(self) -> None:
        relay = f"nicadvrl-{self.tag}r"
        _run("ip", "netns", "add", relay)
        self.namespaces.append(relay)  # removed with the others; never a host (hosts() uses the sshds)
        for k, ns in enumerate(self.namespaces[:2]):
            _run("ip", "link", "add", DATA_IF, "netns", ns, "type", "veth", "peer", "name", f"r{k}", "netns", relay)
            _run("ip", "netns", "exec", ns, "ethtool", "-K", DATA_IF, "tx", "off", "tso", "off", "gso", "off")
            _run("ip", "netns", "exec", relay, "ethtool", "-K", f"r{k}", "gro", "off", "tx", "off")
            _run("ip", "-n", relay, "link", "set", f"r{k}", "up")
        self.relay = subprocess.Popen(["ip", "netns", "exec", relay, sys.executable, str(HERE / "delay_relay.py"),
                                       "r0", "r1", str(self.delay_us)], stdout=subprocess.PIPE, text=True)
        assert self.relay.stdout is not None
        if self.relay.stdout.readline().strip() != "ready":
            raise RuntimeError("the delay relay did not start")

    def _data_link(self) -> None:
        a, b = self.namespaces
        if self.delay_us is not None:
            self._relay_link()
        else:
            _run("ip", "link", "add", DATA_IF, "netns", a, "type", "veth", "peer", "name", DATA_IF, "netns", b)
        for k, ns in enumerate((a, b), 1):
            _run("ip", "-n", ns, "addr", "add", f"{DATA_NET}.{k}/30", "dev", DATA_IF)
            _run("ip", "-n", ns, "link", "set", DATA_IF, "up")
            if self.rate_mbit:  # None: an unshaped link (benchmarks/orchestration.py)
                _run("tc", "-n", ns, "qdisc", "add", "dev", DATA_IF, "root", "tbf", "rate", f"{self.rate_mbit}mbit",
                     "burst", str(tbf_burst_bytes(self.rate_mbit, 1500)), "latency", "50ms")

    # --- using -------------------------------------------------------------------------------------
    def data_addr(self, i: int) -> str:
        return f"{DATA_NET}.{i + 1}"

    def target(self, i: int, **kw) -> SshTarget:
        args = dict(host=self.mgmt[i], port=SSH_PORT, user=self.user.name, kind="linux",
                    key_filename=str(self.client_key), trusted_fingerprint=self.sshds[i].fingerprint,
                    connect_timeout_s=5.0, command_timeout_s=15.0)
        args.update(kw)
        return SshTarget(**args)

    def hosts(self, interface: str | None = DATA_IF):
        from nicadvisor.bench.remote import RemoteHost

        return tuple(RemoteHost(self.target(i), interface) for i in range(len(self.sshds)))

    def processes(self, *names: str) -> dict[int, list[str]]:
        """Live (non-zombie) processes of the lab's account whose program is one of ``names`` (all when
        none is given): ``{pid: argv}``."""
        uid = self.user.uid()
        out: dict[int, list[str]] = {}
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                if d.stat().st_uid != uid:
                    continue
                argv = [a.decode(errors="replace") for a in (d / "cmdline").read_bytes().split(b"\0") if a]
                state = (d / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            except (OSError, IndexError):
                continue
            if state == "Z" or not argv:
                continue
            if not names or os.path.basename(argv[0]) in names:
                out[int(d.name)] = argv
        return out

    def folders(self) -> set[str]:
        """``/tmp/nicadv-bench-*`` folders owned by the lab's account (the hosts share /tmp)."""
        uid = self.user.uid()
        out = set()
        for p in Path("/tmp").glob("nicadv-bench-*"):
            try:
                if p.stat().st_uid == uid:
                    out.add(str(p))
            except OSError:
                continue
        return out

    def shape_ingress(self, i: int, rate_mbit: int, *, match: tuple[str, ...] = ("u32", "match", "u32", "0", "0")
                      ) -> str:
        """Shape what host ``i`` receives on ``d0`` to ``rate_mbit``: an ``ifb0`` device, an ingress qdisc on ``d0``
        whose filter (``match``: every packet by default) redirects to ``ifb0`` (``mirred egress redirect``), and a
        tbf on ``ifb0`` (the usual way to shape ingress on Linux: tc-mirred(8), ifb). Returns the ifb's name; removed
        with the namespace, or by :meth:`unshape_ingress`."""
        ns, ifb = self.namespaces[i], "ifb0"
        _run("ip", "-n", ns, "link", "add", ifb, "type", "ifb")
        _run("ip", "-n", ns, "link", "set", ifb, "up")
        _run("tc", "-n", ns, "qdisc", "add", "dev", DATA_IF, "ingress")
        _run("tc", "-n", ns, "filter", "add", "dev", DATA_IF, "parent", "ffff:", "protocol", "all", *match,
             "action", "mirred", "egress", "redirect", "dev", ifb)
        _run("tc", "-n", ns, "qdisc", "add", "dev", ifb, "root", "tbf", "rate", f"{rate_mbit}mbit",
             "burst", str(tbf_burst_bytes(rate_mbit, 1500)), "latency", "50ms")
        return ifb

    def unshape_ingress(self, i: int) -> None:
        """Undo :meth:`shape_ingress` on host ``i`` (idempotent)."""
        ns = self.namespaces[i]
        subprocess.run(["tc", "-n", ns, "qdisc", "del", "dev", DATA_IF, "ingress"], timeout=20, capture_output=True)
        subprocess.run(["ip", "-n", ns, "link", "del", "ifb0"], timeout=20, capture_output=True)

    def set_data_link(self, i: int, up: bool) -> None:
        """Set host ``i``'s ``d0`` up or down (``ip link set d0 down``: the peer's end then has no carrier)."""
        _run("ip", "-n", self.namespaces[i], "link", "set", DATA_IF, "up" if up else "down")

    def netns_exec(self, i: int, *argv: str, **kw) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.namespaces[i], *argv], **kw)

    def close(self) -> None:
        """Remove everything the lab made (idempotent)."""
        for sshd in self.sshds:
            sshd.stop()
        if self.user.uid() is not None:
            for folder in self.folders():  # a safety net: the tests check that the benchmark removed them
                shutil.rmtree(folder, ignore_errors=True)
        self.user.remove()  # kills every process the account still runs
        if self.relay is not None:
            self.relay.kill()
            self.relay.wait(timeout=20)
            if self.relay.stdout is not None:
                self.relay.stdout.close()
            self.relay = None
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], check=False, timeout=20, capture_output=True)
        for dev in self.outside:
            subprocess.run(["ip", "link", "del", dev], check=False, timeout=20, capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)
        self.sshds, self.namespaces, self.outside = [], [], []


# --- the kill -9 child --------------------------------------------------------------------------------

@contextmanager
def running_lab(lab_class: type | None = None, **kw) -> Iterator[RemoteLab]:
    """``with running_lab(rate_mbit=50) as lab:`` a :class:`RemoteLab` (or ``lab_class``, the ESXi lab; arguments as
    its own), closed at the end; the calling test is skipped (pytest) when the lab cannot run here (no sshd, not
    root)."""
    why = H.available()
    if why:
        import pytest

        pytest.skip(f"remote benchmark lab: {why}")
    lab = (lab_class or RemoteLab)(**kw)
    try:
        yield lab
    finally:
        lab.close()


def crash_child(spec_path: str) -> None:
    """Start the benchmark of ``spec_path`` (JSON: targets (with their kind), interface (of every host) or interfaces
    (one per target), known_hosts, journal_dir, tool, tests, duration_s), print ``{"running": label}`` once the first
    client runs, then sleep."""
    from nicadvisor.bench.remote import RemoteBench, RemoteHost, RemoteRequest

    spec = json.loads(Path(spec_path).read_text())
    interfaces = spec.get("interfaces") or [spec["interface"]] * len(spec["targets"])
    hosts = tuple(RemoteHost(SshTarget(**t), i) for t, i in zip(spec["targets"], interfaces))
    request = RemoteRequest(hosts=hosts, tests=tuple(spec["tests"]), duration_s=spec["duration_s"], tool=spec["tool"])
    said = threading.Event()

    def progress(fraction: float, message: str) -> None:
        if fraction > 0 and not said.is_set():
            said.set()
            print(json.dumps({"running": message}), flush=True)
            time.sleep(120)  # killed here, in the middle of the test

    with RemoteBench(request, known_hosts=KnownHosts(spec["known_hosts"]), journal_dir=spec["journal_dir"]) as rb:
        rb.run(rb.prepare(), progress)


if __name__ == "__main__":
    if sys.argv[1:2] == ["crash"]:
        crash_child(sys.argv[2])
