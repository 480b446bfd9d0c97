"""Live targets in the wizard: a vCenter (govmomi's vcsim, self-signed certificate) through the trust dialog to
an audit; an ESXi host over SSH (a real OpenSSH sshd answering with real captures) through the host-key dialog
to an audit; the worker → GUI-thread marshalling of ``ask_host_key``; the keyring note.

An NSX Manager stand-in (tests/nsx/nsx_responder.py, real API responses) with a self-signed certificate.

Screenshots: wizard-connect-vcenter, wizard-dialog-certificate, wizard-discover-live, wizard-connect-ssh,
wizard-dialog-host-key, wizard-discover-ssh, wizard-connect-nsx.
"""
from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import keyring
import keyring.backends.fail
import keyring.errors
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

HERE = Path(__file__).resolve().parent
for _sub in ("live", "ssh", "nsx"):
    if str(HERE.parent / _sub) not in sys.path:
        sys.path.insert(0, str(HERE.parent / _sub))

import sshd_harness as H  # noqa: E402
import vcsimtools  # noqa: E402
from nsx_responder import NsxResponder, server_context  # noqa: E402
from capturetools import CAPTURES  # noqa: E402

from nicadvisor.model.verdict import SYMBOL  # noqa: E402
from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402
from nicadvisor.collect.tls_pinning import fetch_thumbprint  # noqa: E402
from nicadvisor.gui.state import Source  # noqa: E402
from nicadvisor.gui.trust import HostKeyAsker  # noqa: E402
from nicadvisor.gui.wizard import PageId  # noqa: E402
from nicadvisor.store import AuditStore  # noqa: E402
from testkeyring import MemoryKeyring
from guitools import stop_task  # noqa: E402

LEFT = Qt.MouseButton.LeftButton
AUDIT_TIMEOUT_MS = 60_000




@pytest.fixture
def use_keyring():
    previous = keyring.get_keyring()

    def use(backend):
        keyring.set_keyring(backend)
        return backend

    yield use
    keyring.set_keyring(previous)


@pytest.fixture(scope="module")
def vcsim(tmp_path_factory):
    """vcsim with one cluster of two hosts (self-signed certificate on 127.0.0.1)."""
    try:
        sim = vcsimtools.start_vcsim(tmp_path_factory.mktemp("vcsim-gui"), "-cluster", "1", "-host", "2",
                                     "-standalone-host", "0", "-vm", "0")
    except vcsimtools.ToolMissing as exc:
        pytest.skip(str(exc))
    yield sim
    sim.stop()


class SshLab:
    """A throw-away user, an authorised client key and an sshd whose ForceCommand is the ESXi personality
    (tests/ssh/esxi_personality.py: answers with the bodies of real captures)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.user = H.TestUser(base)
        self.client_key = H.keygen(base / "client_key")
        self.authorized_keys = base / "authorized_keys"
        self.authorized_keys.write_text(Path(str(self.client_key) + ".pub").read_text())
        self.authorized_keys.chmod(0o644)
        self.sshd = H.Sshd(base, self.user.name, self.authorized_keys, force_command=H.personality_command(CAPTURES))


@pytest.fixture(scope="module")
def ssh_lab():
    why = H.available()
    if why:
        pytest.skip(f"real-sshd test skipped: {why}")
    base = H.make_base("nicadv-gui-ssh-")
    lab = None
    try:
        lab = SshLab(base)
        lab.sshd.start()
        yield lab
    finally:
        if lab is not None:
            lab.sshd.stop()
            lab.user.remove()
        shutil.rmtree(base, ignore_errors=True)


def next_enabled(wizard) -> bool:
    return wizard.button(QWizard.WizardButton.NextButton).isEnabled()


# --- vCenter -------------------------------------------------------------------------------------------

def test_vcenter_trust_dialog_then_audit(make_wizard, qtbot, tmp_path, vcsim, use_keyring, screenshot):
    mem = use_keyring(MemoryKeyring())
    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store, known_hosts=KnownHosts(tmp_path / "known_hosts"))
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.vcenter_editor
    assert editor.remember.isEnabled() and editor.keyring_note.isHidden()  # a secure keyring is available

    url = f"https://127.0.0.1:{vcsim.port}"
    qtbot.keyClicks(editor.url, url)
    qtbot.keyClicks(editor.user, vcsimtools.USER)
    qtbot.keyClicks(editor.password, vcsimtools.PASSWORD)
    editor.remember.setChecked(True)
    qtbot.mouseClick(editor.add_button, LEFT)
    assert len(wizard.state.vcenters) == 1
    spec = wizard.state.vcenters[0]
    assert (spec.url, spec.user, spec.thumbprint) == (url, vcsimtools.USER, "")
    assert connect.live_radio.isChecked() and next_enabled(wizard)  # adding a target selects Live
    assert editor.password.text() == ""  # the form is cleared; the password is nowhere on screen
    shown = [editor.table.item(0, c).text() for c in range(len(editor.COLUMNS))]
    assert shown == [url, vcsimtools.USER, "all hosts", "no", "entered, saved in keyring", "system CA store"]
    assert vcsimtools.PASSWORD not in repr(spec)

    # Test connection: vcsim's certificate is self-signed → the trust dialog shows its SHA-256 thumbprint.
    expected = fetch_thumbprint("127.0.0.1", vcsim.port, 10)
    with qtbot.waitSignal(connect.sig_trust_dialog, timeout=30_000) as blocker:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    dialog = blocker.args[0]
    assert dialog.isVisible() and dialog.thumbprint == expected
    assert dialog.fingerprint_label.text().replace("\n", "") == expected  # shown on two lines
    # Reject stops: nothing pinned.
    qtbot.mouseClick(dialog.reject_button, LEFT)
    assert spec.thumbprint == "" and spec.status.startswith("✖ certificate rejected")
    assert editor.table.item(0, len(editor.COLUMNS)).text() == spec.status

    with qtbot.waitSignal(connect.sig_trust_dialog, timeout=30_000) as blocker:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    dialog = blocker.args[0]
    screenshot(dialog, "dialog-certificate")
    with qtbot.waitSignal(connect.sig_test_done, timeout=30_000, check_params_cb=lambda _s, r: r.ok) as blocker:
        qtbot.mouseClick(dialog.accept_button, LEFT)  # pins it and tests again: TLS, API version, login
    result = blocker.args[1]
    assert spec.thumbprint == expected
    assert spec.status.startswith(f"✔ connected as {vcsimtools.USER} to VMware vCenter Server")
    assert f"pinned (SHA-256 {expected})" in spec.status
    assert "password saved in the OS keyring" in result.notes
    assert mem.data == {(f"nic-advisor/vcenter:127.0.0.1:{vcsim.port}", vcsimtools.USER): vcsimtools.PASSWORD}
    assert editor.table.item(0, editor.COLUMNS.index("Certificate")).text().startswith("pinned " + expected[:11])
    # a successful test also lists the vCenter's hosts (the tree beside the table: every host checked)
    qtbot.waitUntil(lambda: spec.inventory is not None, timeout=30_000)
    assert editor.table.item(0, 2).text() == "all hosts (2)"
    assert [r[0] for r in editor.hosts.rows() if r[3] == "checked"] == ["DC0", "DC0_C0", "DC0_C0_H0", "DC0_C0_H1"]
    screenshot(wizard, "connect-vcenter")

    # The audit runs on the live target and the hosts appear.
    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        wizard.next()
    audit = blocker.args[0]
    assert wizard.state.source is Source.LIVE
    assert sorted(h.name for h in audit.hosts) == ["DC0_C0_H0", "DC0_C0_H1"]
    tree_hosts = sorted(discover.tree.topLevelItem(i).text(0) for i in range(discover.tree.topLevelItemCount()))
    assert tree_hosts == ["DC0_C0_H0", "DC0_C0_H1"]
    for i in range(discover.tree.topLevelItemCount()):
        item = discover.tree.topLevelItem(i)
        host = next(h for h in audit.hosts if h.name == item.text(0))
        assert [item.child(j).text(0) for j in range(item.childCount())] == [p.name for p in host.pnics]
        assert all(p.driver == "nvmxnet3" for p in host.pnics)  # vcsim's uplinks
    # one progress row for the vCenter, its hosts below it
    rows = discover.hosts_progress.rows()
    label = f"127.0.0.1:{vcsim.port}"
    assert rows[0][0] == f"vCenter {label}" and rows[0][2] == "▲ 2 hosts read · 1 problem"
    assert sorted(r[0] for r in rows if r[3] == 1) == ["DC0_C0_H0", "DC0_C0_H1"]
    # each host row says the host's own verdict (a green tick only for READY), then what was read
    verdicts = {v.host: v for v in audit.verdict.hosts}
    assert all(r[2].startswith(f"{SYMBOL[verdicts[r[0]].status]} {verdicts[r[0]].label}: {verdicts[r[0]].reason} · ")
               and r[2].endswith("pNICs read") for r in rows if r[3] == 1)
    # vcsim has no HostKernelModuleSystem: that problem is shown under its source
    assert any(t.startswith(f"vcenter://{label}: vCenter {label}: driver modules could not be read")
               for t in discover.problem_texts()), discover.problem_texts()
    assert spec.status == rows[0][2]
    assert audit.history_id is not None and store.summary(audit.history_id).hosts == 2
    assert vcsimtools.PASSWORD not in (tmp_path / "history.sqlite3").read_bytes().decode("latin-1")
    screenshot(wizard, "discover-live")

    # Editing the target keeps the accepted pin (the form's pin field shows it).
    editor.table.selectRow(0)
    assert editor.thumbprint.text() == expected
    editor.thumbprint.clear()
    editor.update_selected()
    assert wizard.state.vcenters[0].thumbprint == expected
    assert wizard.state.vcenters[0].password == vcsimtools.PASSWORD  # kept in memory when the field is empty


def test_keyring_not_secure_disables_remember(make_wizard, qtbot, use_keyring):
    use_keyring(keyring.backends.fail.Keyring())
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    for editor in connect.editors:
        assert not editor.remember.isEnabled()
        assert editor.keyring_note.isVisibleTo(editor)
        assert "passwords will be asked every time" in editor.keyring_note.text()
        # the wizard branch says why in words (no module name in nested parentheses): test_no_keyring_is_said_in_words
        assert "no keyring backend is available on this system" in editor.keyring_note.text()
        assert "keyring.backends" not in editor.keyring_note.text()
        assert editor.password.placeholderText().startswith("required: no usable OS keyring")


def test_vcenter_form_refuses_bad_input(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    editor = wizard.pages[PageId.CONNECT].vcenter_editor
    qtbot.keyClicks(editor.url, "http://vc.example.com")
    qtbot.keyClicks(editor.user, "admin")
    assert editor.add_from_form() is None
    assert "only https://" in editor.error.text() and wizard.state.vcenters == []
    editor.url.setText("vc.example.com")
    editor.thumbprint.setText("aa:bb")
    assert editor.add_from_form() is None and "not a SHA-256 thumbprint" in editor.error.text()
    editor.thumbprint.clear()
    spec = editor.add_from_form()
    assert spec is not None and spec.label == "vc.example.com:443" and spec.service_id == "vcenter:vc.example.com:443"


# --- SSH -----------------------------------------------------------------------------------------------

def test_ssh_host_key_dialog_then_audit(make_wizard, qtbot, tmp_path, ssh_lab, screenshot):
    known_hosts = KnownHosts(tmp_path / "config" / "known_hosts")
    wizard = make_wizard(store=None, known_hosts=known_hosts)
    connect = wizard.pages[PageId.CONNECT]
    connect.tabs.setCurrentWidget(connect.ssh_editor)
    editor = connect.ssh_editor
    port = ssh_lab.sshd.port
    qtbot.keyClicks(editor.target_edit, f"{ssh_lab.user.name}@127.0.0.1:{port}")
    editor.key_file.setText(str(ssh_lab.client_key))
    qtbot.mouseClick(editor.add_button, LEFT)
    spec = wizard.state.ssh_hosts[0]
    assert (spec.kind, spec.label, spec.key_file) == ("esxi", f"127.0.0.1:{port}", str(ssh_lab.client_key))

    # First contact: the host-key dialog (asked from the worker, shown in the GUI thread). Reject first.
    with qtbot.waitSignal(wizard.asker.sig_dialog_opened, timeout=20_000) as blocker:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    dialog = blocker.args[0]
    assert (dialog.host, dialog.port, dialog.key_type) == ("127.0.0.1", port, "ssh-ed25519")
    assert dialog.fingerprint == dialog.fingerprint_label.text() == ssh_lab.sshd.fingerprint
    with qtbot.waitSignal(connect.sig_test_done, timeout=20_000) as done:
        qtbot.mouseClick(dialog.reject_button, LEFT)
    assert not done.args[1].ok and "was not trusted" in spec.status
    assert known_hosts.keys_for("127.0.0.1", port) == []

    with qtbot.waitSignal(wizard.asker.sig_dialog_opened, timeout=20_000) as blocker:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    dialog = blocker.args[0]
    screenshot(dialog, "dialog-host-key")
    with qtbot.waitSignal(connect.sig_test_done, timeout=20_000) as done:
        qtbot.mouseClick(dialog.accept_button, LEFT)
    assert done.args[1].ok, done.args[1].message
    assert [k.fingerprint for k in known_hosts.keys_for("127.0.0.1", port)] == [ssh_lab.sshd.fingerprint]
    assert spec.status.startswith(f"✔ connected as {ssh_lab.user.name} (key file); host key ssh-ed25519 "
                                  f"{ssh_lab.sshd.fingerprint} trusted now")
    # the Host key column says what decides the next contact: the key stored now (it said "asked on first contact")
    digest = ssh_lab.sshd.fingerprint.removeprefix("SHA256:")
    cell = editor.table.item(0, editor.COLUMNS.index("Host key"))
    assert cell.text() == f"✔ trusted SHA256:{digest[:6]}…{digest[-4:]}"
    assert cell.toolTip().endswith(f"ssh-ed25519 {ssh_lab.sshd.fingerprint}")
    screenshot(wizard, "connect-ssh")

    # The audit: the key is known now, so nothing is asked; the host appears with the capture's pNICs.
    discover = wizard.pages[PageId.DISCOVER]
    shown: list[tuple[int, str]] = []  # the bar while the host is read (before its outputs are inspected)
    discover.progress.bar.valueChanged.connect(
        lambda v: shown.append((v, discover.progress.status.text())) if not discover._phase2 else None)
    with qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        wizard.next()
    audit = blocker.args[0]
    assert wizard.asker.open_dialogs() == []
    assert [h.name for h in audit.hosts] == [f"127.0.0.1:{port}"]
    # the bar moves with the commands read (it sat at 2 % for the whole read while the step text changed)
    values = sorted({v for v, _ in shown})
    assert len(values) >= 5 and values[-1] >= 250, shown
    host = audit.hosts[0]
    # esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt (the personality's nic list)
    assert [(p.name, p.driver, p.link_speed_mbps) for p in host.pnics] == [
        ("vmnic0", "ixgben", 1000), ("vmnic1", "ixgben", None), ("vmnic2", "icen", 100000),
        ("vmnic3", "icen", 100000)]
    item = discover.tree.topLevelItem(0)
    assert item.text(0) == f"127.0.0.1:{port}" and item.childCount() == 4
    assert item.child(2).text(2) == "100 Gbit/s" and item.child(1).text(2) == "link down"
    rows = discover.hosts_progress.rows()
    # the target row says its host's verdict, as the matrix and the banner do (it said "▲ 4 pNICs" whatever the verdict)
    verdict = audit.verdict.hosts[0]
    assert rows[0][0] == f"ESXi 127.0.0.1:{port} (SSH)"
    assert rows[0][2].startswith(f"{SYMBOL[verdict.status]} {verdict.label}: {verdict.reason} · 4 pNICs read · ")
    # commands the personality has no capture for are problems of that host, grouped under its source
    source = f"ssh://{ssh_lab.user.name}@127.0.0.1:{port}"
    assert any(t.startswith(f"{source}: ") and "esxcli hardware pci list" in t for t in discover.problem_texts())
    screenshot(wizard, "discover-ssh")


def test_ssh_password_from_keyring(make_wizard, qtbot, tmp_path, ssh_lab, use_keyring):
    """No password typed: the one saved in the OS keyring is used (keyboard-interactive, as on ESXi); with
    none saved the target says so. The host key is trusted by the fingerprint typed in the form."""
    mem = use_keyring(MemoryKeyring())
    wizard = make_wizard(store=None, known_hosts=KnownHosts(tmp_path / "known_hosts"))
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.ssh_editor
    port = ssh_lab.sshd.port
    editor.target_edit.setText(f"{ssh_lab.user.name}@127.0.0.1:{port}")
    editor.fingerprint.setText(ssh_lab.sshd.fingerprint)
    spec = editor.add_from_form()
    assert spec is not None and spec.password == "" and spec.trusted_fingerprint == ssh_lab.sshd.fingerprint
    with qtbot.waitSignal(connect.sig_test_done, timeout=20_000) as done:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    assert not done.args[1].ok
    assert spec.status == (f"✖ SSH host 127.0.0.1:{port}: no password entered for {ssh_lab.user.name} and none "
                           f"saved in the OS keyring; enter it on the Connect page")

    mem.set_password(f"nic-advisor/ssh:127.0.0.1:{port}", ssh_lab.user.name, ssh_lab.user.password)
    with qtbot.waitSignal(connect.sig_test_done, timeout=20_000) as done:
        qtbot.mouseClick(editor.button_for(spec), LEFT)
    result = done.args[1]
    assert result.ok, result.message
    assert result.notes == ("password read from the OS keyring",)
    assert spec.status.startswith(f"✔ connected as {ssh_lab.user.name} (password); host key ssh-ed25519 "
                                  f"{ssh_lab.sshd.fingerprint} trusted now")
    assert wizard.asker.open_dialogs() == []  # the typed fingerprint decided: nothing asked


def test_host_key_asked_during_audit_and_cancel(make_wizard, qtbot, tmp_path, ssh_lab):
    """Without a Test connection first, the audit itself asks (dialog from the audit's worker); Cancel on
    the Discover page withdraws the question and the audit ends cancelled (no worker left waiting)."""
    known_hosts = KnownHosts(tmp_path / "known_hosts")
    wizard = make_wizard(store=None, known_hosts=known_hosts)
    editor = wizard.pages[PageId.CONNECT].ssh_editor
    editor.target_edit.setText(f"{ssh_lab.user.name}@127.0.0.1:{ssh_lab.sshd.port}")
    editor.key_file.setText(str(ssh_lab.client_key))
    assert editor.add_from_form() is not None
    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(wizard.asker.sig_dialog_opened, timeout=20_000) as blocker:
        wizard.next()
    dialog = blocker.args[0]
    assert dialog.fingerprint == ssh_lab.sshd.fingerprint and discover.outcome == "running"
    rows = discover.hosts_progress.rows()
    assert rows[0][0] == f"ESXi 127.0.0.1:{ssh_lab.sshd.port} (SSH)" and rows[0][1].startswith("connecting to ssh://")
    with qtbot.waitSignal(discover.sig_audit_cancelled, timeout=20_000):
        stop_task(discover, qtbot)
    qtbot.waitUntil(lambda: wizard.asker.open_dialogs() == [], timeout=5000)
    assert known_hosts.keys_for("127.0.0.1", ssh_lab.sshd.port) == []  # nothing trusted
    assert discover.hosts_progress.rows()[0][2] == "■ cancelled"
    assert wizard.state.ssh_hosts[0].status == "■ audit cancelled"


def test_ask_host_key_marshalling(qtbot):
    """A worker thread asks; the dialog appears in the GUI thread; Accept → the worker gets True; a
    cancelled worker stops waiting (False) and its dialog closes."""
    asker = HostKeyAsker()
    got: list[tuple[bool, bool]] = []

    def worker(cancel=None):
        main = threading.main_thread() is threading.current_thread()
        got.append((asker.ask("esxi-a.lab", 22, "ssh-ed25519", "SHA256:" + "A" * 43, cancel), main))

    with qtbot.waitSignal(asker.sig_dialog_opened, timeout=5000) as blocker:
        t = threading.Thread(target=worker)
        t.start()
    dialog = blocker.args[0]
    assert dialog.isVisible() and dialog.fingerprint_label.text() == "SHA256:" + "A" * 43
    assert t.is_alive()  # the worker waits for the answer
    qtbot.mouseClick(dialog.accept_button, LEFT)
    t.join(120)  # a deadline, not a duration
    assert got == [(True, False)]

    cancel = threading.Event()
    with qtbot.waitSignal(asker.sig_dialog_opened, timeout=5000) as blocker:
        t = threading.Thread(target=worker, args=(cancel,))
        t.start()
    dialog = blocker.args[0]
    cancel.set()
    t.join(120)  # a deadline, not a duration
    assert got[-1] == (False, False)
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible(), timeout=5000)  # closed
    assert asker.open_dialogs() == []

    asker.close()  # after shutdown nothing is asked any more
    t = threading.Thread(target=worker)
    t.start()
    t.join(120)  # a deadline, not a duration
    assert got[-1] == (False, False)


# --- NSX Manager ---------------------------------------------------------------------------------------

NSX_PASSWORD = "VMware1!VMware1!"
NSX_ROUTES = {  # the routes of tests/nsx/test_nsx_collect.py ENS_INTR: real example responses
    "/api/v1/node/version": "GET_api_v1_node_version_nsx3133_nsxoperator_fixture.json",
    "/api/v1/host-switch-profiles": "GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json",
    "/api/v1/host-switch-profiles/d3804574-de10-4b2f-b92b-a5a29def128b":
        "GET_api_v1_host-switch-profiles_id_nsx3x_uplink_mtu1600_lag_saltfixture.json",
    "/api/v1/global-configs": "GET_api_v1_global-configs_list_SwitchingGlobalConfig_apiref_latest.PARTIAL.txt",
    "/api/v1/transport-nodes": "GET_api_v1_transport-nodes_list_nsx3x_nvds_ENS_INTERRUPT_saltfixture.json",
    "/api/v1/transport-zones": "GET_api_v1_transport-zones_list_nsx3x_saltfixture.json",
}


def self_signed_context(tmp_path):
    """(server SSLContext, SHA-256 thumbprint) of a self-signed certificate for ``nsxmgr.lab``."""
    import datetime as dt
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nsxmgr.lab")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("nsxmgr.lab")]), critical=False)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    digest = hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest().upper()
    return server_context(pem, key_pem, tmp_path), ":".join(digest[i:i + 2] for i in range(0, 64, 2))


def test_nsx_manager_pinned_then_audit(make_wizard, qtbot, tmp_path, screenshot):
    ctx, thumbprint = self_signed_context(tmp_path)
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    connect.tabs.setCurrentWidget(connect.nsx_editor)
    editor = connect.nsx_editor
    with NsxResponder(NSX_ROUTES, ctx, password=NSX_PASSWORD) as srv:
        editor.url.setText(srv.url)
        editor.user.setText("admin")
        editor.password.setText(NSX_PASSWORD)
        spec = editor.add_from_form()
        assert spec is not None and spec.label == f"127.0.0.1:{srv.port}"
        with qtbot.waitSignal(connect.sig_trust_dialog, timeout=20_000) as blocker:
            qtbot.mouseClick(editor.button_for(spec), LEFT)
        dialog = blocker.args[0]
        assert dialog.thumbprint == thumbprint
        assert srv.log == []  # nothing was sent to the untrusted server, no credentials
        with qtbot.waitSignal(connect.sig_test_done, timeout=20_000, check_params_cb=lambda _s, r: r.ok):
            qtbot.mouseClick(dialog.accept_button, LEFT)
        assert spec.thumbprint == thumbprint and spec.status.startswith("✔ logged in as admin")
        assert srv.logins == 1
        screenshot(wizard, "connect-nsx")

        discover = wizard.pages[PageId.DISCOVER]
        with qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
            wizard.next()
    audit = blocker.args[0]
    # GET_api_v1_transport-nodes_list_nsx3x_nvds_ENS_INTERRUPT_saltfixture.json: one host transport node
    assert [h.name for h in audit.hosts] == ["10.206.243.190"]
    assert {m for m, _p, _q in srv.log} <= {"GET", "POST"}
    rows = discover.hosts_progress.rows()
    # read, with problems (404 on a profile and a state, a PARTIAL global-configs response): ▲, not ✖
    assert rows[0][0] == f"NSX Manager 127.0.0.1:{srv.port}" and rows[0][2].startswith("▲ read · ")
    assert ("10.206.243.190", "done") == rows[1][:2]


def add_lab_host(wizard, ssh_lab):
    """Add the lab's sshd on the SSH tab with its password and pinned host key; returns the SSH editor."""
    editor = wizard.pages[PageId.CONNECT].ssh_editor
    editor.target_edit.setText(f"{ssh_lab.user.name}@127.0.0.1:{ssh_lab.sshd.port}")
    editor.password.setText(ssh_lab.user.password)
    editor.fingerprint.setText(ssh_lab.sshd.fingerprint)
    assert editor.add_from_form() is not None
    return editor


def test_ssh_progress_moves_with_commands_done_of_planned(make_wizard, qtbot, tmp_path, ssh_lab):
    """Issue 27 §10: the bar moved 16 % → 33 % → 44 % → 100 % over 38 s, and each row said only "running": now each
    SSH host's row names the command it is on and "command i of n", and the read half of the bar is i/n (one host)."""
    import re

    wizard = make_wizard(store=None, known_hosts=KnownHosts(tmp_path / "known_hosts"))
    editor = add_lab_host(wizard, ssh_lab)
    wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
    discover = wizard.pages[PageId.DISCOVER]
    seen: list[tuple[int, int, str, str, float, float]] = []

    def watch(_fraction, _status):
        (_title, step, status, _depth), *_ = discover.hosts_progress.rows()
        m = re.fullmatch(r"◷ command (\d+) of (\d+)", status)
        if m:
            seen.append((int(m.group(1)), int(m.group(2)), step, status, discover.hosts_progress.read_fraction(),
                         discover.progress.bar.value() / discover.progress.bar.maximum()))

    wizard.next()
    discover._handle.sig_progress.connect(lambda f, s: watch(f, s))
    qtbot.waitUntil(lambda: discover.outcome != "running", timeout=AUDIT_TIMEOUT_MS)
    assert discover.outcome == "done"
    assert len(seen) > 10, seen
    planned = {n for _i, n, *_ in seen}
    assert len(planned) == 1, planned  # planned once the NICs were listed, and it held
    (n,) = planned
    assert [i for i, *_ in seen] == sorted(i for i, *_ in seen) and seen[-1][0] >= n - 1
    for i, n, step, _status, share, bar in seen:
        assert step and "command " not in step and step.split()[0] in ("esxcli", "esxcfg-nics", "vsish", "vmware",
                                                                        "grep", "cat", "esxcfg-vmknic", "esxcfg-vswitch",
                                                                        "vmkchdev", "lspci", "localcli", "vim-cmd",
                                                                        "esxcfg-module", "esxcfg-info", "net-dvs",
                                                                        "smbiosDump"), step  # pcie branch's slot read
        assert share == (i - 1) / n and bar >= 0.5 * share - 0.002


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_mixed_audit_counts_every_failed_target(make_wizard, qtbot, tmp_path, ssh_lab):
    """Issue 27 §9: in a mixed audit (one SSH host read, two refused) the banner said "1 input could not be read"."""
    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store, known_hosts=KnownHosts(tmp_path / "known_hosts"))
    editor = add_lab_host(wizard, ssh_lab)
    ports = [_closed_port() for _ in range(2)]
    for port in ports:
        editor.target_edit.setText(f"root@127.0.0.1:{port}")
        editor.password.setText("x")
        assert editor.add_from_form() is not None
    wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        wizard.next()
    audit = blocker.args[0]
    assert [h.name for h in audit.hosts] == [f"127.0.0.1:{ssh_lab.sshd.port}"]
    failed = [f"ssh://root@127.0.0.1:{port}" for port in ports]
    assert "2 inputs could not be read" in discover.banner.plain_text()
    summary = discover.summary.text()
    assert f"2 inputs could not be read ({', '.join(failed)})" in summary, summary
    # the read host's own command failures are no failed target
    n_own = sum(1 for p in audit.inputs_not_understood if p.source not in failed)
    assert f"{n_own} problems in the inputs read" in summary and "12 input" not in summary, summary
    # the history lists the failed targets: the CLI's list and the wizard's Past audits
    [listed] = store.list_audits()
    assert listed.unread == tuple(failed)
    connect = wizard.pages[PageId.CONNECT]
    qtbot.waitUntil(lambda: connect.history.table.rowCount() == 1)
    inputs_cell = connect.history.table.item(0, connect.history.table.columnCount() - 1)
    assert inputs_cell.text().endswith(f" — not read: {', '.join(failed)}"), inputs_cell.text()
    assert all(f"✖ not read: {f}" in inputs_cell.toolTip() for f in failed)
