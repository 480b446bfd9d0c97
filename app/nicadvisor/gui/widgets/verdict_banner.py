"""The verdict banner: READY / NOT READY / NOT RATED with the reason and the first causes, the same line the CLI,
the JSON, the PDF and the history list show (``nicadvisor.model.verdict``). Shown on Discover, Inspect and
Findings."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from nicadvisor.gui.widgets.formatting import esc
from nicadvisor.model.text import local_time
from nicadvisor.gui import audit_cache

#: (background, border/ink) per verdict status; the symbol and the words carry the verdict on their own.
COLOURS = {"ready": ("#e3f4e1", "#1b5e20"), "not_ready": ("#fbdcdc", "#8e0000"), "not_rated": ("#eeeeee", "#444444")}
#: Causes listed in the banner (all of them are in the export and the tooltip).
SHOWN_CAUSES = 3


def shown_causes(causes: tuple[str, ...] | list[str]) -> tuple[list[str], int]:
    """(the causes the banner lists, how many it leaves to "… and N more"): :data:`SHOWN_CAUSES`, or all when only one
    more would be left — "… and 1 more" took a line to hide one (4 targets failed, 3 were listed)."""
    causes = list(causes)
    shown = causes if len(causes) <= SHOWN_CAUSES + 1 else causes[:SHOWN_CAUSES]
    return shown, len(causes) - len(shown)


class VerdictBanner(QLabel):
    """A word-wrapped label showing one ``Verdict`` (:meth:`show_verdict`); hidden while there is none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict: Any = None
        self.past = ""
        self.hide()

    def show_audit(self, state: Any) -> None:
        """Show the verdict of ``state.audit`` (a ``WizardState``; hidden when there is none), marked as a past audit
        when it was opened from the history (``state.opened_history_id``)."""
        audit = state.audit
        past = audit.created_at if audit is not None and state.opened_history_id is not None else None
        self.show_verdict(audit_cache.verdict(audit) if audit is not None else None, past=past)

    def show_verdict(self, verdict: Any, past: str | None = None) -> None:
        """Show ``verdict`` (a :class:`nicadvisor.model.verdict.Verdict`), or hide the banner for None. ``past``: the
        ISO start time of a past audit opened from the history; the banner then opens with "Past audit of DATE — read
        only" (an opened audit looked like one just run)."""
        self.verdict = verdict
        self.past = local_time(past) if past else ""
        if verdict is None:
            self.clear()
            self.hide()
            return
        background, ink = COLOURS[verdict.status]
        self.setStyleSheet(f"QLabel {{ background: {background}; border: 1px solid {ink}; border-radius: 3px; "
                           "padding: 4px 8px; }")
        lines = [f"<b>{esc(self.past_line())}</b> (reopened from the history; go Back and Next to audit again)"
                 ] if self.past else []
        lines.append(f"<span style='color:{ink}; font-size:large'><b>{esc(verdict.symbol)} {esc(verdict.label)}</b>"
                     f"</span> for the NSX Geneve overlay — {esc(verdict.reason)}")
        shown, more = shown_causes(verdict.causes)
        for cause in shown:
            lines.append(f"&nbsp;&nbsp;• {esc(cause)}")
        if more:
            lines.append(f"&nbsp;&nbsp;… and {more} more (listed in the export)")
        self.setText("<br/>".join(lines))
        self.setToolTip("\n".join([verdict.headline, *verdict.causes]))
        self.show()

    def plain_text(self) -> str:
        """The banner's headline and shown causes as plain text (``""`` when hidden), for tests and messages."""
        if self.verdict is None:
            return ""
        v = self.verdict
        shown, more = shown_causes(v.causes)
        return "\n".join([*([self.past_line()] if self.past else []), f"{v.symbol} {v.headline}", *shown,
                          *([f"… and {more} more"] if more else [])])

    def past_line(self) -> str:
        """``"Past audit of 2025-05-01 10:15 — read only"`` for a past audit shown, ``""`` otherwise."""
        return f"Past audit of {self.past} — read only" if self.past else ""
