"""Child process for the crash-recovery test: builds the namespace path, starts a netserver inside
it, prints one JSON line describing them, then waits to be killed (SIGKILL, so nothing is undone).

Usage: python crash_child.py JOURNAL_DIR
"""
from __future__ import annotations

import json
import sys
import time

from nicadvisor.bench.journal import Journal
from nicadvisor.bench.netns import create_pair
from nicadvisor.bench.netperf import netserver_argv
from nicadvisor.bench.procs import ServerProcess, netns_argv
from nicadvisor.bench.sysutil import free_tcp_port


def main() -> None:
    journal = Journal(sys.argv[1])
    pair = create_pair(journal, rate_mbit=100)
    port = free_tcp_port()
    server = ServerProcess(netns_argv(pair.server_ns, netserver_argv(pair.server_addr, port)), port, journal)
    server.start()
    print(json.dumps({"namespaces": [pair.client_ns, pair.server_ns], "netserver_pid": server.pid}), flush=True)
    time.sleep(60)


if __name__ == "__main__":
    main()
