"""Starting and driving govmomi's vcsim (and govc) for the live vSphere tests.

vcsim and govc are looked up in ``$VCSIM`` / ``$GOVC``, on PATH, then in ``~/go/bin``; a missing tool
raises :class:`ToolMissing` (the fixtures turn that into a skip). vcsim prints ``export GOVC_URL=https://u:p@127.0.0.1:PORT/sdk
GOVC_SIM_PID=N`` on stdout once it listens; that line gives the port.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

USER, PASSWORD = "auditor", "s3cret-Pw"


class ToolMissing(RuntimeError):
    """vcsim or govc is not installed."""


def _tool(name: str) -> str | None:
    env = os.environ.get(name.upper())
    if env and Path(env).exists():
        return env
    found = shutil.which(name)
    if found:
        return found
    p = Path.home() / "go" / "bin" / name
    return str(p) if p.exists() else None


VCSIM, GOVC = _tool("vcsim"), _tool("govc")


@dataclass
class Vcsim:
    """A running vcsim: ``port``, ``url`` (with credentials, for govc only), ``proc``."""

    proc: subprocess.Popen
    port: int
    url: str
    workdir: Path

    def govc(self, *args: str, timeout: float = 60) -> str:
        """Run govc against this vcsim and return stdout (GOVC_INSECURE only in govc's own env)."""
        if GOVC is None:
            raise ToolMissing("govc not installed")
        env = dict(os.environ, GOVC_URL=self.url, GOVC_INSECURE="1", GOVMOMI_HOME=str(self.workdir / "govmomi"),
                   GOVC_PERSIST_SESSION="false")
        out = subprocess.run([GOVC, *args], env=env, capture_output=True, text=True, timeout=timeout, check=True)
        return out.stdout

    def govc_collect(self, *paths: str, type_: str = "h") -> dict[str, dict]:
        """``govc object.collect -json -type <type_> / <paths>`` → ``{moref value: {path: val}}``."""
        text = self.govc("object.collect", "-json", "-type", type_, "/", *paths)
        dec = json.JSONDecoder()
        out: dict[str, dict] = {}
        i = 0
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            obj, i = dec.raw_decode(text, i)
            props = out.setdefault(obj["obj"]["value"], {})
            for change in obj.get("changeSet") or []:
                val = change.get("val")
                if isinstance(val, dict) and "_value" in val:
                    val = val["_value"]
                props[change["name"]] = val
        return out

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_vcsim(workdir: Path, *args: str, listen: str = "127.0.0.1:0", timeout: float = 30) -> Vcsim:
    """Start vcsim with ``args`` (e.g. ``-cluster 1 -host 3``) and wait for its URL line."""
    if VCSIM is None:
        raise ToolMissing("vcsim not installed (expected in ~/go/bin)")
    workdir.mkdir(parents=True, exist_ok=True)
    out_path = workdir / f"vcsim-{time.monotonic_ns()}.out"
    with open(out_path, "w") as out, open(out_path.with_suffix(".err"), "w") as err:
        proc = subprocess.Popen([VCSIM, "-l", listen, "-username", USER, "-password", PASSWORD, *args],
                                stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(r"GOVC_URL=(https://\S+@127\.0\.0\.1:(\d+)/sdk)", out_path.read_text())
        if m:
            return Vcsim(proc=proc, port=int(m.group(2)), url=m.group(1), workdir=workdir)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    proc.wait(10)
    raise RuntimeError(f"vcsim did not start: {out_path.with_suffix('.err').read_text()[-2000:]}")
