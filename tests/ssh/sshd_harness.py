"""Real OpenSSH sshd instances for the SSH tests and the fan-out benchmark.

Everything lives in a private folder made by :func:`make_base` (mode 0755 so the test user can read its
``authorized_keys``): an ed25519 host key (``ssh-keygen``), an ``sshd_config`` with its own port,
``PidFile`` and ``AuthorizedKeysFile``, ``UsePAM yes`` with keyboard-interactive as the only password
method (as on ESXi), and optionally a ``ForceCommand`` (the ESXi personality). sshd runs in the
foreground (``-D -e``) as a child of the test process, optionally inside a network namespace
(``ip netns exec NS``); :meth:`Sshd.stop` kills it. :class:`TestUser` creates a throw-away local account
(``useradd`` + ``chpasswd``) and :meth:`TestUser.remove` deletes it. Root is needed for all of this.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: also when a lab script runs alone
from machinelock import machine_lock  # noqa: E402

SSHD = "/usr/sbin/sshd"
HERE = Path(__file__).resolve().parent
PERSONALITY = HERE / "esxi_personality.py"
#: Seconds an sshd may take to answer its first banner: a deadline, not a duration (a loaded machine is slow).
START_DEADLINE_S = 120


def available() -> str | None:
    """Why real-sshd tests cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root (sshd switching to a test user, useradd, network namespaces)"
    for tool in (SSHD, "/usr/bin/ssh-keygen"):
        if not os.path.exists(tool):
            return f"{tool} is not installed"
    for tool in ("useradd", "userdel", "chpasswd"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def make_base(prefix: str = "nicadv-ssh-") -> Path:
    base = Path(tempfile.mkdtemp(prefix=prefix))
    base.chmod(0o755)
    return base


def keygen(path: Path, comment: str = "nicadv-test") -> Path:
    """A new unencrypted ed25519 key pair at ``path`` / ``path.pub``."""
    path.unlink(missing_ok=True)
    Path(str(path) + ".pub").unlink(missing_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                   check=True, timeout=20, stdin=subprocess.DEVNULL)
    return path


def pub_fingerprint(pub: Path) -> str:
    """``SHA256:...`` of an OpenSSH public key file (same rule as ssh-keygen -lf)."""
    blob = base64.b64decode(pub.read_text().split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class TestUser:
    """A local account for the tests: random name, home under ``base``, ``/bin/sh``, a password."""

    __test__ = False  # not a pytest test class

    def __init__(self, base: Path) -> None:
        self.name = "nicadv" + secrets.token_hex(3)
        self.password = "pw-" + secrets.token_urlsafe(12)
        self.home = base / "home"
        with machine_lock("accounts"):
            subprocess.run(["useradd", "-M", "-d", str(self.home), "-s", "/bin/sh", self.name], check=True,
                           timeout=120)
        self.home.mkdir(exist_ok=True)
        shutil.chown(self.home, self.name)
        self.set_password(self.password)

    def set_password(self, password: str) -> None:
        """Give the account ``password`` (chpasswd)."""
        with machine_lock("accounts"):
            subprocess.run(["chpasswd"], input=f"{self.name}:{password}\n", text=True, check=True, timeout=120)
        self.password = password

    def uid(self) -> int | None:
        import pwd

        try:
            return pwd.getpwnam(self.name).pw_uid
        except KeyError:
            return None

    def remove(self) -> None:
        """Kill the account's leftover processes (by pid: only sessions of our own sshd run as it), delete it."""
        uid = self.uid()
        if uid is not None:
            for entry in Path("/proc").iterdir():
                if entry.name.isdigit():
                    try:
                        owner = entry.stat().st_uid
                    except OSError:
                        continue
                    if owner == uid:
                        try:
                            os.kill(int(entry.name), signal.SIGKILL)
                        except ProcessLookupError:
                            continue
        with machine_lock("accounts"):
            subprocess.run(["userdel", "-f", self.name], check=False, timeout=120,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Sshd:
    """One sshd child process (see the module docstring)."""

    def __init__(self, base: Path, user: str, authorized_keys: Path, port: int | None = None,
                 listen: str | list[str] = "127.0.0.1", force_command: str | None = None,
                 netns: str | None = None, extra: str = "", tag: str | None = None, tty: bool = False) -> None:
        self.base = base
        self.user = user
        self.addresses = [listen] if isinstance(listen, str) else list(listen)  # at most 16 (sshd limit)
        self.listen = self.addresses[0]
        self.port = port or free_port(self.listen if netns is None else "127.0.0.1")
        self.own_port = port is None  # chosen here: another one is chosen if someone binds it first
        self.netns = netns
        self.force_command = force_command
        self.authorized_keys = authorized_keys
        self.extra = extra
        self.tty = tty  # PermitTTY: a session may ask for a pseudo-terminal (ESXi's sshd allows it)
        self.tag = tag or str(self.port)  # names this instance's files in ``base``
        self.host_key = base / f"host_ed25519_{self.tag}"
        self.config = base / f"sshd_config_{self.tag}"
        self.proc: subprocess.Popen | None = None
        keygen(self.host_key, "nicadv-test-host")

    @property
    def fingerprint(self) -> str:
        return pub_fingerprint(Path(str(self.host_key) + ".pub"))

    def new_host_key(self) -> None:
        """Replace the host key (restart to take effect): the "reinstalled host / MITM" case."""
        keygen(self.host_key, "nicadv-test-host-new")

    def _write_config(self) -> None:
        lines = [
            *(f"ListenAddress {a}:{self.port}" for a in self.addresses), f"HostKey {self.host_key}",
            f"PidFile {self.base}/sshd_{self.tag}.pid", f"AuthorizedKeysFile {self.authorized_keys}",
            "StrictModes no", "UsePAM yes", "PasswordAuthentication no", "KbdInteractiveAuthentication yes",
            "PubkeyAuthentication yes", "PermitRootLogin no", f"AllowUsers {self.user}", "MaxStartups 300:30:400",
            "MaxSessions 20", "LoginGraceTime 30", "UseDNS no", "PrintMotd no", "PrintLastLog no",
            "X11Forwarding no", "AllowTcpForwarding no", "AllowAgentForwarding no",
            f"PermitTTY {'yes' if self.tty else 'no'}",
            "LogLevel ERROR",
        ]
        if self.force_command:
            lines.append(f"ForceCommand {self.force_command}")
        self.config.write_text("\n".join(lines) + "\n" + self.extra)

    def start(self) -> "Sshd":
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation directory
        self._write_config()
        check = subprocess.run([SSHD, "-t", "-f", str(self.config)], capture_output=True, text=True, timeout=20)
        if check.returncode != 0:
            raise RuntimeError(f"sshd -t refused {self.config}: {check.stderr}")
        argv = [SSHD, "-D", "-e", "-f", str(self.config)]
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns, *argv]
        self.log = open(self.base / f"sshd_{self.tag}.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_DEADLINE_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = (self.base / f"sshd_{self.tag}.log").read_text(errors="replace")
                if self.own_port and "Address already in use" in log and time.monotonic() < deadline:
                    # another test process (pytest -n) bound the free port first: take another one
                    self.stop()
                    self.port = free_port(self.listen if self.netns is None else "127.0.0.1")
                    return self.start()
                raise RuntimeError(f"sshd exited: {log}")
            try:
                with socket.create_connection((self.listen, self.port), timeout=5) as s:
                    s.settimeout(10)
                    if s.recv(64).startswith(b"SSH-") and self.proc.poll() is None:
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"sshd on {self.listen}:{self.port} did not answer within {START_DEADLINE_S} s")

    def stop(self) -> None:
        """Kill the listening sshd (its process group); session children die with their connections."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                self.proc.poll()  # it exited meanwhile: reap it
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.proc = None
        if getattr(self, "log", None):
            self.log.close()

    def restart(self) -> None:
        self.stop()
        self.start()


def personality_command(captures: Path, behaviour: Path | None = None, latency_ms: float = 0) -> str:
    cmd = f"/usr/bin/python3 -I -S {PERSONALITY} --captures {captures}"
    if behaviour is not None:
        cmd += f" --behaviour {behaviour}"
    if latency_ms:
        cmd += f" --latency-ms {latency_ms:g}"
    return cmd


@contextlib.contextmanager
def sshd_in_netns(base: Path, user: str, authorized_keys: Path, prefix: str, first_subnet: int, **sshd_kw):
    """A network namespace joined to this one by a veth pair (10.213.N.1/30 outside, .2/30 inside; the
    inside end with MTU 9000 and a fixed MAC) with a plain sshd (no ForceCommand) listening inside on
    port 2222. Yields (sshd, inside interface name, its MAC); deletes everything afterwards.
    ``prefix`` names the namespace (``nicadv-<prefix>-<tag>``); ``first_subnet`` is the first N tried."""
    tag = secrets.token_hex(3)
    ns, outside, inside = f"nicadv-{prefix}-{tag}", f"n{prefix[:2]}o{tag}", f"n{prefix[:2]}i{tag}"
    mac = "02:00:5e:00:53:" + tag[:2]

    def run(*argv: str) -> None:
        subprocess.run(list(argv), check=True, timeout=20, capture_output=True)

    sshd = None
    try:
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns)
        with machine_lock("subnets"):  # chosen and taken at once: other test processes choose too
            used = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, timeout=30).stdout
            net = next(f"10.213.{n}" for n in range(first_subnet, 250, 4) if f"10.213.{n}." not in used)
            run("ip", "addr", "add", f"{net}.1/30", "dev", outside)
        run("ip", "link", "set", outside, "up")
        run("ip", "-n", ns, "link", "set", inside, "address", mac, "mtu", "9000")
        run("ip", "-n", ns, "addr", "add", f"{net}.2/30", "dev", inside)
        run("ip", "-n", ns, "link", "set", inside, "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        sshd = Sshd(base, user, authorized_keys, listen=f"{net}.2", port=2222, netns=ns, **sshd_kw).start()
        yield sshd, inside, mac
    finally:
        if sshd is not None:
            sshd.stop()
        subprocess.run(["ip", "netns", "del", ns], check=False, timeout=20, capture_output=True)
        subprocess.run(["ip", "link", "del", outside], check=False, timeout=20, capture_output=True)


@contextlib.contextmanager
def esxi_personality_sshd(captures: Path, prefix: str = "nicadv-ssh-"):
    """A throw-away user, an authorised client key and a started sshd on loopback whose ForceCommand is the ESXi
    personality answering with the bodies of ``captures``. Yields (user name, client key path, sshd); removes all of
    it afterwards."""
    base = make_base(prefix)
    user = sshd = None
    try:
        user = TestUser(base)
        key = keygen(base / "client_key")
        authorized = base / "authorized_keys"
        authorized.write_text(Path(str(key) + ".pub").read_text())
        authorized.chmod(0o644)
        sshd = Sshd(base, user.name, authorized, force_command=personality_command(captures)).start()
        yield user.name, key, sshd
    finally:
        if sshd is not None:
            sshd.stop()
        if user is not None:
            user.remove()
        shutil.rmtree(base, ignore_errors=True)
