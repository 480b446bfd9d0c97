"""Where the shipped data lives: the top-level ``rules/`` and ``resources/`` folders of the project.

The package is installed in editable mode from the repository (see packaging/setup-debian.sh), so
the data folders are found beside ``app/``; ``NICADVISOR_HOME`` overrides the project folder.
"""
from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """The folder holding ``app/``, ``rules/`` and ``resources/``. Raises FileNotFoundError."""
    env = os.environ.get("NICADVISOR_HOME")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "rules").is_dir() and (parent / "resources").is_dir():
            return parent
    raise FileNotFoundError(f"NIC Advisor data folders (rules/, resources/) not found above {here}")


def rules_dir() -> Path:
    """The shipped rule files (``rules/``)."""
    return project_root() / "rules"


def resources_dir() -> Path:
    """The shipped data (``resources/``: demo lab, VCG seed)."""
    return project_root() / "resources"


def demo_lab_dir() -> Path:
    """The bundled demo lab: a folder of host folders of real captures."""
    return resources_dir() / "demo-lab"
