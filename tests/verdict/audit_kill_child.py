"""Child process of the interrupted-audit test: runs a real audit of the demo lab with the default audit history
(the XDG folders of the test) and dies with ``os._exit(9)`` (no finish, no cleanup, as after ``kill -9``) as soon as
the audit starts inspecting its fourth host. Prints the audit id first.

Usage: python audit_kill_child.py
"""
from __future__ import annotations

import os

from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.store import AuditStore


def main() -> None:
    store = AuditStore()
    seen = []

    def progress(_fraction: float, message: str) -> None:
        if message.startswith("Inspecting "):
            seen.append(message)
            if len(seen) == 4:  # three hosts are stored; the fourth is being read
                print(store.list_audits()[0].id, flush=True)
                os._exit(9)

    run_audit(AuditRequest(demo=True), progress=progress, store=store)


if __name__ == "__main__":
    main()
