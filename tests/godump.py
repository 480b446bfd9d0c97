"""Read the Go-syntax govmomi dumps in shared/fixtures/captures (``govc object.collect -s -dump``) into the
plain dicts that :mod:`nicadvisor.parsers.api.vsphere_objects` takes: field names get a lower-case first
letter (``SpeedMb`` → ``speedMb``, the vSphere property names), ``types.NewBool(false)`` → False,
``0xb`` → 11, ``nil`` → None. A dump that starts inside a struct (the PCI device excerpt) yields the
complete structs that follow."""
from __future__ import annotations

import json
import re
from typing import Any

_OPEN = re.compile(r"^(?:(?P<key>\w+):\s*)?&?(?:\[\])?[\w.]*\{$")
_FIELD = re.compile(r"^(?P<key>\w+):\s*(?P<val>.*?),?$")


def _scalar(text: str) -> Any:
    t = text.strip()
    m = re.fullmatch(r"types\.New\w+\((.*)\)", t)
    if m:
        return _scalar(m.group(1))
    if t.startswith('"'):
        return json.loads(t)
    if t in ("true", "false"):
        return t == "true"
    if t == "nil":
        return None
    return int(t, 0)


def _key(name: str) -> str:
    return name[:1].lower() + name[1:]


def read_structs(text: str) -> list[Any]:
    """Top-level values (dicts / lists) of a Go dump body; fields before an unmatched ``}`` are dropped."""
    stack: list[tuple[str | None, Any]] = [(None, [])]
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _OPEN.match(line)
        if m:
            is_list = "[]" in line
            stack.append((m.group("key"), [] if is_list else {}))
            continue
        if re.fullmatch(r"\}\s*,?", line):
            key, value = stack.pop()
            if not stack:  # closing a struct the excerpt started inside of
                stack.append((None, []))
                continue
            parent = stack[-1][1]
            if isinstance(parent, list):
                parent.append(value)
            else:
                parent[_key(key or "")] = value
            continue
        if re.fullmatch(r"(?:\w+:\s*)?&?(?:\[\])?[\w.]*\{\}\s*,?", line):  # empty literal: {} / &types.X{}
            m2 = re.match(r"(\w+):", line)
            target = stack[-1][1]
            if isinstance(target, list):
                target.append({})
            elif m2:
                target[_key(m2.group(1))] = {}
            continue
        m = _FIELD.match(line)
        if m and isinstance(stack[-1][1], dict):
            stack[-1][1][_key(m.group("key"))] = _scalar(m.group("val"))
    return stack[0][1]
