#!/usr/bin/env python3
"""The shell of the ESXi lab host (tests/bench/esxi_lab.py): ``ForceCommand /usr/bin/python3 -I -S esxi_shell.py
--config FILE``. sshd runs it for every command, as the lab's account, inside the lab host's network namespace.

It answers an ESXi command only with what a real ESXi host printed, as recorded in public sources:

* ``recorded`` (config): command → capture file (a ``# source:`` header, then the output): the body is printed
  VERBATIM, exit status 0. The lab's addresses are chosen to match the recordings that name them (esxi-site-a-1's
  vmk10 192.168.11.2 / vmk11 192.168.11.3 and its gateway 192.168.11.1, chall32.github.io); a recording made with
  other options than the tool sends (``-c 5``, no ``-I``) is listed in the lab with that difference.
* every other command: ``esxi shell: no recorded output for '<command>'`` on stderr, exit status 1 — nothing is
  invented; the tool must cope with a command it cannot read.

Config (JSON, written by the lab): ``{"recorded": {command: path}}``.
"""
from __future__ import annotations

import json
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "ssh"))

from esxi_personality import body  # noqa: E402  (the capture's output without its header)


def main(argv: list[str]) -> int:
    config = argv[argv.index("--config") + 1]
    with open(config, encoding="utf-8") as fh:
        cfg = json.load(fh)
    raw = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    try:
        words = shlex.split(raw)
    except ValueError:
        words = [raw]
    command = " ".join(words)
    recorded = cfg.get("recorded", {})
    if command in recorded:
        sys.stdout.buffer.write(body(recorded[command]))
        return 0
    sys.stderr.write(f"esxi shell: no recorded output for {command!r}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
