"""The app's host-key store (trust on first use, changed keys refused) and the keyring wrapper."""
from __future__ import annotations

import base64
import hashlib
import subprocess
import threading

import keyring
import keyring.backends.chainer
import keyring.backends.fail
import keyring.errors
import paramiko
import pytest

from testkeyring import MemoryKeyring

from nicadvisor import secrets as S
from nicadvisor.collect.known_hosts import (
    HostKeyError, KnownHosts, TrustOnFirstUsePolicy, default_path, fingerprint, host_entry, normalise_fingerprint,
)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """Two ed25519 host keys made by ssh-keygen (paramiko cannot generate ed25519)."""
    d = tmp_path_factory.mktemp("hostkeys")
    out = []
    for n in ("a", "b"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / n)], check=True, timeout=20)
        out.append((paramiko.Ed25519Key(filename=str(d / n)), d / f"{n}.pub"))
    return out


def test_fingerprint_matches_ssh_keygen(keys):
    for key, pub in keys:
        printed = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(pub)], capture_output=True,
                                 text=True, check=True, timeout=20).stdout.split()[1]
        assert fingerprint(key) == printed
        blob = base64.b64decode(pub.read_text().split()[1])
        assert printed == "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    fp = fingerprint(keys[0][0])
    assert normalise_fingerprint("sha256:" + fp[7:] + "=") == fp
    for bad in ("MD5:aa:bb", "SHA256:short", "aa:bb:cc"):
        with pytest.raises(ValueError):
            normalise_fingerprint(bad)


def test_first_contact_needs_trust_then_key_is_known(tmp_path, keys):
    key, _ = keys[0]
    store = KnownHosts(tmp_path / "cfg" / "known_hosts")
    with pytest.raises(HostKeyError) as e:
        store.verify("esxi-a", 22, key)
    assert e.value.reason == "unknown" and fingerprint(key) in str(e.value) and "--trust-host-key" in str(e.value)
    assert not store.path.exists()
    with pytest.raises(HostKeyError):  # a different fingerprint given to trust
        store.verify("esxi-a", 22, key, trusted_fingerprint=fingerprint(keys[1][0]))
    assert store.verify("esxi-a", 22, key, trusted_fingerprint=fingerprint(key)) == "trusted"
    assert store.verify("esxi-a", 22, key) == "known"
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    line = store.path.read_text().strip()
    assert line.startswith("esxi-a ssh-ed25519 ")
    # the file is an OpenSSH known_hosts file
    listed = subprocess.run(["ssh-keygen", "-l", "-f", str(store.path)], capture_output=True, text=True,
                            check=True, timeout=20).stdout
    assert fingerprint(key) in listed
    # another port of the same host is another entry
    assert host_entry("esxi-a", 2222) == "[esxi-a]:2222"
    with pytest.raises(HostKeyError):
        store.verify("esxi-a", 2222, key)


def test_changed_key_is_always_refused(tmp_path, keys):
    (old, _), (new, _) = keys
    store = KnownHosts(tmp_path / "known_hosts")
    store.add("esxi-a", 22, old)
    asked = []
    for kw in ({}, {"trusted_fingerprint": fingerprint(new)}, {"ask": lambda *a: asked.append(a) or True}):
        with pytest.raises(HostKeyError) as e:
            store.verify("esxi-a", 22, new, **kw)
        assert e.value.reason == "changed"
        assert fingerprint(old) in str(e.value) and fingerprint(new) in str(e.value) and "CHANGED" in str(e.value)
    assert asked == []  # never even asked
    assert store.remove("esxi-a", 22) == 1
    assert store.verify("esxi-a", 22, new, trusted_fingerprint=fingerprint(new)) == "trusted"


def test_ask_callback_and_policy(tmp_path, keys):
    key, _ = keys[0]
    store = KnownHosts(tmp_path / "known_hosts")
    seen = []
    policy = store.policy("10.0.0.5", 22, ask=lambda h, p, t, fp: seen.append((h, p, t, fp)) or False)
    assert isinstance(policy, TrustOnFirstUsePolicy) and isinstance(policy, paramiko.MissingHostKeyPolicy)
    with pytest.raises(HostKeyError):
        policy.missing_host_key(paramiko.SSHClient(), "10.0.0.5", key)
    assert seen == [("10.0.0.5", 22, "ssh-ed25519", fingerprint(key))]
    policy = store.policy("10.0.0.5", 22, ask=lambda *a: True)
    policy.missing_host_key(paramiko.SSHClient(), "10.0.0.5", key)
    assert policy.outcome == "trusted"
    assert [s.fingerprint for s in store.keys_for("10.0.0.5", 22)] == [fingerprint(key)]


def test_concurrent_first_contact_asks_once(tmp_path, keys):
    key, _ = keys[0]
    store = KnownHosts(tmp_path / "known_hosts")
    calls = []
    outcomes = []

    def ask(*a):
        calls.append(a)
        return True

    threads = [threading.Thread(target=lambda: outcomes.append(store.verify("h", 22, key, ask=ask))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and sorted(outcomes) == ["known"] * 7 + ["trusted"]
    assert len(store.path.read_text().splitlines()) == 1


def test_default_path_is_in_the_app_config_folder():
    p = default_path()
    assert p.name == "known_hosts" and "nic-advisor" in str(p)


def test_unreadable_lines_of_other_hosts_and_unknown_key_types_are_skipped(tmp_path, keys):
    key, _ = keys[0]
    path = tmp_path / "known_hosts"
    path.write_text("# comment\ngarbage\nesxi-b ssh-ed25519 !!!notbase64\nesxi-a ssh-unknown AAAA\n")
    store = KnownHosts(path)
    assert store.keys_for("esxi-a", 22) == []
    store.add("esxi-a", 22, key)
    assert path.read_text().startswith("# comment\ngarbage\n")
    assert store.verify("esxi-a", 22, key) == "known"


def test_a_damaged_line_of_the_host_refuses_naming_the_file_and_line(tmp_path, keys):
    """Issue 20 §4: the host's own line cannot be read: refused (never "not known yet: trust it"), file named."""
    from nicadvisor.collect.known_hosts import KnownHostsError

    key, _ = keys[0]
    path = tmp_path / "known_hosts"
    path.write_text("# comment\nesxi-a ssh-ed25519 !!!notbase64\n")
    with pytest.raises(KnownHostsError, match=rf"{path} is damaged: line 2 \(esxi-a\) holds no readable key"):
        KnownHosts(path).verify("esxi-a", 22, key)


# --- secrets ------------------------------------------------------------------------------------------



class LockedKeyring(MemoryKeyring):
    def set_password(self, service, username, password):
        raise keyring.errors.KeyringLocked(f"locked while saving {password}")


@pytest.fixture
def use_keyring():
    previous = keyring.get_keyring()

    def use(backend):
        keyring.set_keyring(backend)
        return backend

    yield use
    keyring.set_keyring(previous)


def test_store_and_get_password(use_keyring):
    mem = use_keyring(MemoryKeyring())
    assert S.backend_problem() is None
    sid = S.ssh_service_id("esxi-a", 22)
    assert S.get_password(sid, "root") is None
    S.store_password(sid, "root", "VMware1!x")
    assert S.get_password(sid, "root") == "VMware1!x"
    assert mem.data == {("nic-advisor/ssh:esxi-a:22", "root"): "VMware1!x"}
    assert S.delete_password(sid, "root") is True
    assert S.delete_password(sid, "root") is False
    with pytest.raises(ValueError):
        S.store_password("", "root", "x")


@pytest.mark.parametrize("backend", [keyring.backends.fail.Keyring(), keyring.backends.chainer.ChainerBackend()])
def test_insecure_backends_are_refused(use_keyring, backend, monkeypatch):
    if isinstance(backend, keyring.backends.chainer.ChainerBackend):
        monkeypatch.setattr(type(backend), "backends", property(lambda self: []))
    use_keyring(backend)
    assert S.backend_problem()
    for call in (lambda: S.store_password("ssh:h:22", "root", "pw-123"), lambda: S.get_password("ssh:h:22", "root")):
        with pytest.raises(S.SecretStoreUnavailable) as e:
            call()
        assert "asked every time" in str(e.value) and "pw-123" not in str(e.value)


def test_plaintext_backend_is_refused():
    plaintext = type("PlaintextKeyring", (MemoryKeyring,), {"__module__": "keyrings.alt.file"})()
    assert "file" in S.backend_problem(plaintext)


def test_keyring_errors_do_not_leak_the_secret(use_keyring):
    use_keyring(LockedKeyring())
    with pytest.raises(S.SecretStoreUnavailable) as e:
        S.store_password("ssh:h:22", "root", "pw-very-secret")
    assert "pw-very-secret" not in str(e.value) and e.value.__cause__ is None
