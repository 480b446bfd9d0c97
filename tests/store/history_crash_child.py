"""Child process of the crash test: begins an audit in the history file, adds the first two hosts of the
demo lab (committed one by one, as run_audit will), prints the audit id, then dies at once with
``os._exit(9)`` (no finish, no close, no cleanup handlers).

Usage: python history_crash_child.py HISTORY_FILE
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nicadvisor.store import AuditStore  # noqa: E402
from storetools import demo_audit  # noqa: E402


def main() -> None:
    audit = demo_audit()
    store = AuditStore(Path(sys.argv[1]))
    audit_id = store.begin(audit.inputs, audit.created_at)
    store.add_problems(audit_id, audit.inputs_not_understood[:1])
    for host in audit.hosts[:2]:
        store.add_host(audit_id, host, [])
    print(audit_id, flush=True)
    os._exit(9)


if __name__ == "__main__":
    main()
