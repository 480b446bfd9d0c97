"""Command-line handling of live targets (``--vcenter``, ``--ssh``, ``--nsx``): building the targets, their
passwords, pins for self-signed certificates and SSH host keys.

Passwords, first found wins (never from the command line; never echoed, logged or written):

1. ``--password-stdin`` (the first line of standard input, as ``docker login``) or ``--password-file FILE`` (a
   regular file owned by the user and readable by nobody else, as ssh requires of keys): one password for every
   target that needs one;
2. the environment: ``NIC_ADVISOR_VCENTER_PASSWORD``, ``NIC_ADVISOR_SSH_PASSWORD``, ``NIC_ADVISOR_NSX_PASSWORD``
   for one kind of target, else ``NIC_ADVISOR_PASSWORD`` (as govc's ``GOVC_PASSWORD``); the variables are removed
   from this process's environment once read, so no child process inherits them;
3. the OS keyring (``--remember-password`` saves a prompted password there);
4. a prompt, when standard input is a terminal.

Without any of them a run stops with exit code 2 and a message naming these ways.
"""
from __future__ import annotations

import getpass
import os
import stat
import sys
from dataclasses import dataclass, field

#: Environment variables read for a password: per kind of target, then for all.
PASSWORD_ENV = {"vcenter": "NIC_ADVISOR_VCENTER_PASSWORD", "ssh": "NIC_ADVISOR_SSH_PASSWORD",
                "nsx": "NIC_ADVISOR_NSX_PASSWORD", "redfish": "NIC_ADVISOR_REDFISH_PASSWORD"}
PASSWORD_ENV_ALL = "NIC_ADVISOR_PASSWORD"
#: The most a password file or standard input may hold (bytes).
PASSWORD_MAX_BYTES = 4096
WAYS = ("--password-stdin, --password-file FILE (readable only by you), the environment variable "
        f"{PASSWORD_ENV_ALL} (or {', '.join(PASSWORD_ENV.values())}), or the OS keyring (run once interactively "
        "with --remember-password)")


class LiveArgsError(ValueError):
    """Live-target arguments that cannot be used; the message says which and why."""


def add_arguments(parser) -> None:
    """The live-target options of ``nic-advisor audit``."""
    src = parser.add_argument_group("live targets (read-only; passwords from --password-stdin/--password-file, "
                                    "NIC_ADVISOR_*PASSWORD, the OS keyring or a prompt)")
    src.add_argument("--vcenter", action="append", metavar="URL", help="vCenter or ESXi SDK, e.g. https://vc1.example.com")
    src.add_argument("--ssh", action="append", metavar="USER@HOST[:PORT]", help="ESXi or Linux host over SSH")
    src.add_argument("--nsx", action="append", metavar="URL", help="NSX Manager, e.g. https://nsx1.example.com")
    src.add_argument("--user", help="user for --vcenter and --nsx")
    src.add_argument("--kind", choices=("esxi", "linux"), default="esxi", help="what the --ssh hosts are (default esxi)")
    src.add_argument("--ssh-key", metavar="FILE", help="private key for --ssh (else a password)")
    src.add_argument("--thumbprint", action="append", default=[], metavar="[HOST[:PORT]=]SHA256",
                     help="trust a self-signed vCenter/NSX certificate by its SHA-256 thumbprint; saved after a "
                          "successful connection, so later runs need it only when the certificate changes. Without "
                          "a pin, certificates are verified with the CA bundle $SSL_CERT_FILE names, else "
                          "$REQUESTS_CA_BUNDLE, else the system CA store")
    src.add_argument("--trust-host-key", action="append", default=[], metavar="[HOST[:PORT]=]SHA256:...",
                     help="trust this SSH host key on first contact (else you are asked)")
    src.add_argument("--remember-password", action="store_true", help="save prompted passwords in the OS keyring")
    way = src.add_mutually_exclusive_group()
    way.add_argument("--password-stdin", action="store_true",
                     help="read the password from the first line of standard input (for scripts)")
    way.add_argument("--password-file", metavar="FILE",
                     help="read the password from FILE (its first line; the file must be readable only by you)")
    src.add_argument("--save-captures", metavar="DIR", help="also save every live output and API recording as capture files (replayable with --capture)")
    src.add_argument("--datacenter", help="limit --vcenter to this datacenter")
    src.add_argument("--cluster", help="limit --vcenter to this cluster")
    src.add_argument("--esxcli-over-api", action="store_true",
                     help="for --vcenter: also run allowlisted esxcli commands through the vSphere API (no SSH needed)")
    src.add_argument("--redfish", action="append", metavar="HOST=URL",
                     help="also read HOST's PCIe links from its server's BMC over Redfish (read-only), e.g. "
                          "esxi-01=https://esxi-01-bmc.example.com; HOST as the audit names it")
    src.add_argument("--redfish-user", metavar="USER", help="user for --redfish (default: --user)")
    src.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per call, its whole answer included (default 30)")


def _first_line(data: bytes, what: str) -> str:
    if len(data) > PASSWORD_MAX_BYTES:
        raise LiveArgsError(f"{what} holds more than {PASSWORD_MAX_BYTES} bytes: not a password")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LiveArgsError(f"{what} is not UTF-8 text") from None
    line = text.split("\n", 1)[0].removesuffix("\r")
    if not line:
        raise LiveArgsError(f"{what} holds no password (its first line is empty)")
    return line


def read_password_file(path: str) -> str:
    """The first line of the password file ``path`` (one trailing newline removed). Raises LiveArgsError when it
    is not a regular file (a link, FIFO or device is refused), is not owned by this user, can be read by the group or
    others (mode must be 0600 or stricter), is larger than :data:`PASSWORD_MAX_BYTES`, or holds no password."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise LiveArgsError(f"--password-file {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LiveArgsError(f"--password-file {path} is not a regular file")
        if st.st_uid != os.getuid():
            raise LiveArgsError(f"--password-file {path} is not owned by you")
        if st.st_mode & 0o077:
            raise LiveArgsError(f"--password-file {path} can be read by others (mode {stat.S_IMODE(st.st_mode):04o}): "
                                f"make it readable only by you (chmod 600 {path})")
        data = os.read(fd, PASSWORD_MAX_BYTES + 1)
    finally:
        os.close(fd)
    return _first_line(data, f"--password-file {path}")


def read_password_stdin(stream=None) -> str:
    """The first line of standard input (``--password-stdin``). Raises LiveArgsError when it is empty or huge."""
    stream = stream if stream is not None else sys.stdin
    data = stream.buffer.read(PASSWORD_MAX_BYTES + 1) if hasattr(stream, "buffer") else \
        stream.read(PASSWORD_MAX_BYTES + 1).encode("utf-8")
    return _first_line(data, "standard input")


def _take_env(kind: str) -> str | None:
    """The password of the environment for ``kind`` (its own variable, else the general one), removing both
    variables from ``os.environ`` so that no child process inherits them."""
    own = os.environ.pop(PASSWORD_ENV[kind], None)
    general = os.environ.get(PASSWORD_ENV_ALL)
    return own or general or None


@dataclass
class PasswordSource:
    """Where live targets' passwords come from (see the module docstring for the order). ``given`` is the password
    of ``--password-stdin``/``--password-file``; ``prompt`` is injectable."""

    remember: bool = False
    interactive: bool = field(default_factory=lambda: sys.stdin is not None and sys.stdin.isatty())
    prompt: object = getpass.getpass
    given: str | None = field(default=None, repr=False)
    environment: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_args(cls, args) -> "PasswordSource":
        """The source for parsed CLI ``args``: reads ``--password-stdin``/``--password-file`` once and takes the
        password variables out of the environment. Raises LiveArgsError (unusable file, empty input)."""
        given = None
        if getattr(args, "password_stdin", False):
            given = read_password_stdin()
        elif getattr(args, "password_file", None):
            given = read_password_file(args.password_file)
        env = {kind: _take_env(kind) for kind in PASSWORD_ENV}
        os.environ.pop(PASSWORD_ENV_ALL, None)
        interactive = not getattr(args, "password_stdin", False) and sys.stdin is not None and sys.stdin.isatty()
        return cls(remember=getattr(args, "remember_password", False), interactive=interactive, given=given,
                   environment=env)

    def get(self, service_id: str, user: str, label: str) -> str:
        """The password of ``user`` for ``service_id`` (``vcenter:…``, ``ssh:…``, ``nsx:…``). Raises LiveArgsError
        when there is none."""
        from nicadvisor.secrets import SecretStoreUnavailable, get_password, store_password

        if self.given is not None:
            return self.given
        from_env = self.environment.get(service_id.split(":", 1)[0])
        if from_env:
            return from_env
        saved, why = None, ""
        try:
            saved = get_password(service_id, user)
        except SecretStoreUnavailable as exc:
            why = f" ({exc})"
        if saved is not None:
            return saved
        if not self.interactive:
            raise LiveArgsError(f"no password for {user} at {label} in the OS keyring{why}, and no terminal to ask "
                                f"on; give it with {WAYS}")
        password = self.prompt(f"Password for {user} at {label}: ")
        if self.remember:
            try:
                store_password(service_id, user, password)
            except SecretStoreUnavailable as exc:
                print(f"not saved: {exc}", file=sys.stderr)
        return password


def _pins(values: list[str]) -> dict[str, str]:
    """``--thumbprint`` values → ``{"host:port" or "host": thumbprint}``; a bare thumbprint is kept
    under ``"*"`` (valid only with a single --vcenter/--nsx target). Raises LiveArgsError."""
    from nicadvisor.services.targets import normalize_thumbprint

    pins = {}
    for v in values:
        key, sep, thumb = v.rpartition("=")
        if not sep:
            key, thumb = "*", v
        if not key or not thumb:
            raise LiveArgsError(f"--thumbprint expects [HOST[:PORT]=]SHA256, not {v!r}")
        try:
            pins[key.lower()] = normalize_thumbprint(thumb)
        except ValueError as exc:
            raise LiveArgsError(f"--thumbprint {v!r}: {exc}") from None
    return pins


def _pin_for(pins: dict[str, str], url: str, single: bool = False) -> str | None:
    """The ``--thumbprint`` given for the server of ``url`` (None when none, or the URL is unusable: the service
    says why)."""
    from nicadvisor.services.targets import host_port

    try:
        host, port = host_port(url)
    except ValueError:
        return None
    return pins.get(f"{host}:{port}".lower()) or pins.get(host.lower()) or (pins.get("*") if single else None)


def check_save_folder(folder: str) -> None:
    """Check the ``--save-captures`` folder before anything is collected: it is created if missing (with
    its parents) and must accept a file. Raises LiveArgsError naming the folder and the reason."""
    import tempfile
    from pathlib import Path

    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        why = "it is a file, not a folder" if path.exists() and not path.is_dir() else (exc.strerror or str(exc))
        raise LiveArgsError(f"--save-captures {folder}: cannot write capture files there: {why}") from None


def build_targets(args, passwords: PasswordSource | None = None, pin_store=None) -> dict:
    """``{"vsphere": (...), "ssh": (...), "nsx": (...)}`` for an AuditRequest, built by
    :func:`nicadvisor.services.targets.build_targets` from the arguments. Raises LiveArgsError (the first target
    that cannot be built: no password is asked after it).

    TLS pins (vCenter, NSX): a ``--thumbprint`` for the server is used and, once the connection and login
    succeeded, saved in ``pin_store`` (default: the app's :class:`~nicadvisor.collect.tls_pins.TlsPins`);
    without one the stored pin is used; without either the system CA store decides. A certificate that
    differs from its stored pin is refused (message: both thumbprints, how to re-pin).
    """
    from nicadvisor.services.targets import (
        NsxEntry, SshEntry, TargetsRequest, VcenterEntry, build_targets as build, parse_ssh_spec,
    )

    if getattr(args, "save_captures", None):
        check_save_folder(args.save_captures)
    passwords = passwords or PasswordSource.from_args(args)
    pins = _pins(args.thumbprint)
    single = len(args.vcenter or ()) + len(args.nsx or ()) + len(getattr(args, "redfish", None) or ()) == 1
    if "*" in pins and not single:
        raise LiveArgsError("--thumbprint without HOST[:PORT]= needs exactly one --vcenter or --nsx target")
    if (args.vcenter or args.nsx) and not args.user:
        raise LiveArgsError("--vcenter and --nsx need --user")
    keys = {}
    for v in args.trust_host_key:
        where, sep, fp = v.rpartition("=")
        keys[where.lower() if sep else "*"] = fp

    def fingerprint(spec: str) -> str | None:
        try:
            _user, host, port = parse_ssh_spec(spec)
        except ValueError:
            return None  # the service says why
        return keys.get(f"{host}:{port}".lower()) or keys.get(host.lower()) or \
            (keys.get("*") if len(args.ssh) == 1 else None)

    request = TargetsRequest(
        vcenter=tuple(VcenterEntry(url=url, user=args.user, thumbprint=_pin_for(pins, url, single),
                                   datacenter=args.datacenter, cluster=args.cluster, esxcli=args.esxcli_over_api)
                      for url in args.vcenter or ()),
        ssh=tuple(SshEntry(spec=spec, kind=args.kind, key_file=args.ssh_key, trusted_fingerprint=fingerprint(spec))
                  for spec in args.ssh or ()),
        nsx=tuple(NsxEntry(url=url, user=args.user, thumbprint=_pin_for(pins, url, single)) for url in args.nsx or ()),
        timeout_s=args.timeout)

    def ask(service_id: str, user: str, label: str, *, required: bool) -> str | None:
        return passwords.get(service_id, user, label) if required else None

    redfish = _redfish_targets(args, pins, single, passwords, pin_store)  # before the others: no login yet
    built = build(request, ask, pins=pin_store, stop_at_first_problem=True)
    if built.problems:
        raise LiveArgsError(built.problems[0].message)
    return {**built.audit_fields(), **({"redfish": redfish} if redfish else {})}


def _redfish_targets(args, pins: dict[str, str], single: bool, passwords: PasswordSource, pin_store) -> tuple:
    """The ``--redfish HOST=URL`` BMCs as collector targets (user ``--redfish-user`` or ``--user``; password as
    every live target's, service id ``redfish:host:port``; the ``--thumbprint`` given for the BMC). Raises
    LiveArgsError for a pairing, URL or thumbprint that cannot be used."""
    from nicadvisor.services.redfish import RedfishEntry, parse_pairing, redfish_target
    from nicadvisor.services.targets import app_pins, host_port

    specs = getattr(args, "redfish", None) or ()
    if not specs:
        return ()
    user = getattr(args, "redfish_user", None) or args.user
    if not user:
        raise LiveArgsError("--redfish needs --redfish-user (or --user)")
    store = pin_store if pin_store is not None else app_pins()
    out = []
    for spec in specs:
        try:
            for_host, url = parse_pairing(spec)
            bmc, port = host_port(url)
        except ValueError as exc:
            raise LiveArgsError(str(exc)) from None
        entry = RedfishEntry(url=url, for_host=for_host, user=user, thumbprint=_pin_for(pins, url, single))
        password = passwords.get(f"redfish:{bmc}:{port}", user, f"the BMC {bmc}:{port}")
        try:
            out.append(redfish_target(entry, password, pins=store, timeout_s=args.timeout))
        except ValueError as exc:
            raise LiveArgsError(f"--redfish {spec}: {exc}") from None
    return tuple(out)


def ask_host_key_on_terminal(host: str, port: int, key_type: str, fingerprint: str) -> bool:
    """Trust-on-first-use prompt: show the SHA-256 fingerprint and ask. False without a terminal."""
    if sys.stdin is None or not sys.stdin.isatty():
        print(f"{host}:{port}: unknown {key_type} host key {fingerprint}; not trusted (pass "
              f"--trust-host-key {host}:{port}={fingerprint} after checking it)", file=sys.stderr)
        return False
    answer = input(f"{host}:{port} presents a {key_type} host key {fingerprint}. Trust it? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
