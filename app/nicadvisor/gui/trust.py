"""Trust dialogs: a TLS certificate the system does not trust (SHA-256 thumbprint, Accept pins it) and an
SSH host key seen for the first time (trust on first use, never silent), and :class:`HostKeyAsker`, which
lets a worker thread ask the user about a host key and wait for the answer.

Both dialogs are opened window-modal with :meth:`QDialog.open` (no nested event loop); their answer
arrives through ``finished``. The safe choice (Reject) is the default button.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from nicadvisor.gui.widgets.formatting import esc

AskFn = Callable[[str, int, str, str], bool]


def _mono_label(text: str) -> QLabel:
    label = QLabel(text)
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(max(font.pointSizeF(), QFont().pointSizeF()) + 1)
    font.setBold(True)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    label.setStyleSheet("QLabel { background: #f2f2f2; border: 1px solid #c8c8c8; padding: 6px; }")
    return label


class _TrustDialog(QDialog):
    """Common layout: a heading, an explanation, the fingerprint in monospace, Accept / Reject.

    Attributes:
        accept_button, reject_button: the two buttons (Reject is the default).
        fingerprint_label: the label showing the thumbprint / fingerprint.
    """

    def __init__(self, title: str, heading: str, intro: str, fingerprint: str, advice: str, accept_text: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(700)
        head = QLabel(f"<h3 style='margin:0'>{heading}</h3>")
        body = QLabel(intro)
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.RichText)
        self.fingerprint_label = _mono_label(fingerprint)
        tip = QLabel(advice)
        tip.setWordWrap(True)
        tip.setTextFormat(Qt.TextFormat.RichText)
        buttons = QDialogButtonBox()
        self.accept_button = QPushButton(accept_text)
        self.reject_button = QPushButton("Reject")
        buttons.addButton(self.accept_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.reject_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.reject_button.setDefault(True)
        self.accept_button.setAutoDefault(False)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(body)
        layout.addWidget(self.fingerprint_label)
        layout.addWidget(tip)
        layout.addWidget(buttons)
        self.adjustSize()


class CertificateTrustDialog(_TrustDialog):
    """"This certificate is not trusted": shows ``host:port``, the verification ``reason`` and the SHA-256
    ``thumbprint`` (``"AA:BB:…"``). Accept (``accepted``) means: pin this thumbprint for this target."""

    def __init__(self, kind: str, host: str, port: int, thumbprint: str, reason: str,
                 parent: QWidget | None = None) -> None:
        self.thumbprint = thumbprint
        parts = thumbprint.split(":")
        shown = ":".join(parts[:16]) + ":\n" + ":".join(parts[16:]) if len(parts) == 32 else thumbprint
        super().__init__(
            "Untrusted certificate",
            f"The certificate of {esc(kind)} {esc(host)}:{port} is not trusted",
            f"This system does not trust the TLS certificate it presents (<i>{esc(reason or 'not verified')}</i>); "
            "self-signed certificates are usual on a vCenter, an ESXi host or an NSX Manager. Its SHA-256 "
            "thumbprint is:",
            shown,
            "Compare it with the thumbprint the server itself shows (vCenter: <i>Administration → Certificates</i>; "
            "ESXi: the DCUI or <code>openssl x509 -in /etc/vmware/ssl/rui.crt -noout -fingerprint -sha256</code>) "
            "before accepting. <b>Accept and pin</b> trusts exactly this certificate, for this target only: a "
            "different one will be refused. <b>Reject</b> stops here.",
            "Accept and pin", parent)


class HostKeyDialog(_TrustDialog):
    """"First contact with this SSH host": shows ``host:port``, the key type and the ``SHA256:…``
    fingerprint. Accept stores the key in NIC Advisor's known_hosts (trust on first use)."""

    def __init__(self, host: str, port: int, key_type: str, fingerprint: str, parent: QWidget | None = None) -> None:
        self.host, self.port, self.key_type, self.fingerprint = host, port, key_type, fingerprint
        short = {"ssh-ed25519": "ed25519", "ssh-rsa": "rsa"}.get(key_type, "ecdsa" if "ecdsa" in key_type else "*")
        super().__init__(
            "Unknown SSH host key",
            f"First connection to {esc(host)}:{port}",
            f"NIC Advisor has never connected to this host. It presents this <b>{esc(key_type)}</b> host key:",
            fingerprint,
            "Compare it with the host's own fingerprint before trusting it — on the host: "
            f"<code>ssh-keygen -lf /etc/ssh/ssh_host_{short}_key.pub</code> (ESXi and Linux). <b>Trust and "
            "connect</b> saves the key in NIC Advisor's known_hosts; if the host later presents another key, the "
            "connection will be refused. <b>Reject</b> refuses this connection.",
            "Trust and connect", parent)


@dataclass(eq=False)
class HostKeyQuestion:
    """One pending question: what was asked, the answer (False until answered) and its event."""

    host: str
    port: int
    key_type: str
    fingerprint: str
    answer: bool = False
    answered: threading.Event = field(default_factory=threading.Event)

    def settle(self, answer: bool) -> bool:
        """Record ``answer`` unless already answered; returns True when this call answered it."""
        if self.answered.is_set():
            return False
        self.answer = answer
        self.answered.set()
        return True


class HostKeyAsker(QObject):
    """``ask(host, port, key_type, fingerprint) -> bool`` for ``AuditRequest.ask_host_key`` and the SSH Test
    connection, callable from any worker thread.

    The worker emits :attr:`sig_question` (queued to this object, which lives in the GUI thread), then
    blocks on the question's :class:`threading.Event`; the GUI thread opens a :class:`HostKeyDialog`, and
    its Accept / Reject sets the event. The worker stops waiting (answer False, dialog closed) when its
    ``cancel`` event is set or :meth:`close` is called (wizard shutdown), so a worker never hangs.
    Called from the GUI thread itself, it shows the dialog modally (``exec``).

    Signals:
        sig_question(object): internal, worker → GUI thread (a :class:`HostKeyQuestion`).
        sig_withdraw(object): internal, a question whose worker stopped waiting.
        sig_dialog_opened(object): the HostKeyDialog just opened (tests click it).
        sig_answered(object): a HostKeyQuestion answered by the user.
    """

    sig_question = Signal(object)
    sig_withdraw = Signal(object)
    sig_dialog_opened = Signal(object)
    sig_answered = Signal(object)

    def __init__(self, dialog_parent: QWidget | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._dialog_parent = dialog_parent
        self._lock = threading.Lock()
        self._closed = False
        self._dialogs: dict[int, tuple[HostKeyQuestion, HostKeyDialog]] = {}
        self._gui_thread = threading.get_ident()  # created in the GUI thread
        self.sig_question.connect(self._on_question, Qt.ConnectionType.QueuedConnection)
        self.sig_withdraw.connect(self._on_withdraw, Qt.ConnectionType.QueuedConnection)

    # --- worker side -------------------------------------------------------------------------------
    def ask(self, host: str, port: int, key_type: str, fingerprint: str,
            cancel: threading.Event | None = None) -> bool:
        """Ask the user whether to trust the first-contact host key; blocks until answered. False when
        rejected, cancelled or the asker is closed."""
        question = HostKeyQuestion(host, int(port), key_type, fingerprint)
        if threading.get_ident() == self._gui_thread:
            dialog = HostKeyDialog(host, int(port), key_type, fingerprint, self._dialog_parent)
            return dialog.exec() == QDialog.DialogCode.Accepted
        with self._lock:
            if self._closed:
                return False
        self.sig_question.emit(question)
        while not question.answered.wait(0.05):
            if self._closed or (cancel is not None and cancel.is_set()):
                if question.settle(False):
                    self.sig_withdraw.emit(question)
                break
        return question.answer

    def bound(self, cancel: threading.Event | None) -> AskFn:
        """``ask`` bound to one task's cancel event (for ``AuditRequest.ask_host_key``)."""
        return lambda host, port, key_type, fingerprint: self.ask(host, port, key_type, fingerprint, cancel)

    def close(self) -> None:
        """Answer every pending question with False, close their dialogs and refuse new questions (wizard
        shutdown; GUI thread)."""
        with self._lock:
            self._closed = True
        for question, dialog in list(self._dialogs.values()):
            question.settle(False)
            dialog.reject()
        self._dialogs.clear()

    # --- GUI side ----------------------------------------------------------------------------------
    def open_dialogs(self) -> list[HostKeyDialog]:
        """The host-key dialogs currently shown (GUI thread)."""
        return [d for _q, d in self._dialogs.values()]

    @Slot(object)
    def _on_question(self, question: HostKeyQuestion) -> None:
        if question.answered.is_set():
            return
        dialog = HostKeyDialog(question.host, question.port, question.key_type, question.fingerprint,
                               self._dialog_parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self._dialogs[id(question)] = (question, dialog)
        dialog.finished.connect(lambda result, q=question: self._on_finished(q, result))
        dialog.open()
        self.sig_dialog_opened.emit(dialog)

    def _on_finished(self, question: HostKeyQuestion, result: int) -> None:
        self._dialogs.pop(id(question), None)
        if question.settle(result == int(QDialog.DialogCode.Accepted)):
            self.sig_answered.emit(question)

    @Slot(object)
    def _on_withdraw(self, question: HostKeyQuestion) -> None:
        entry = self._dialogs.pop(id(question), None)
        if entry is not None:
            entry[1].reject()
