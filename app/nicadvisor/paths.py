"""Where the shipped data lives: the ``rules/`` and ``resources/`` folders.

In the repository (an editable install, see packaging/setup-debian.sh) they are the top-level folders beside
``app/``; an installed wheel (``pip install .``, ``pipx install``) carries them inside the package as
``nicadvisor/data/rules`` and ``nicadvisor/data/resources`` (in the repository these are links to the top-level
folders). ``NICADVISOR_HOME`` overrides the folder holding both.
"""
from __future__ import annotations

import os
from pathlib import Path


def find_project_root() -> Path | None:
    """The folder holding ``rules/`` and ``resources/`` (``NICADVISOR_HOME``, the repository, or an installed
    wheel's ``nicadvisor/data``), or None when there is none."""
    env = os.environ.get("NICADVISOR_HOME")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "rules").is_dir() and (parent / "resources").is_dir():
            return parent
    packaged = Path(__file__).parent / "data"  # an installed wheel: the data travels inside the package
    if (packaged / "rules").is_dir() and (packaged / "resources").is_dir():
        return packaged
    return None


def project_root() -> Path:
    """:func:`find_project_root`. Raises FileNotFoundError when there is none."""
    root = find_project_root()
    if root is None:
        raise FileNotFoundError(f"NIC Advisor data folders (rules/, resources/) not found above "
                                f"{Path(__file__).resolve()} nor in {Path(__file__).parent / 'data'}")
    return root


def rules_dir() -> Path:
    """The shipped rule files (``rules/``)."""
    return project_root() / "rules"


def resources_dir() -> Path:
    """The shipped data (``resources/``: demo lab, VCG seed)."""
    return project_root() / "resources"


def demo_lab_dir() -> Path:
    """The bundled demo lab: a folder of host folders of real captures."""
    return resources_dir() / "demo-lab"


def vcg_resource(name: str, what: str) -> Path:
    """A shipped file of ``resources/vcg`` (``name``: ``nic_facts.csv``, ``esxi_builds.csv``,
    ``driver_catalogue.yaml`` ...): from a frozen bundle (``sys._MEIPASS/resources/vcg``), the data folder of
    :func:`find_project_root`, or the ``nicadvisor.vcg`` package data, in that order. ``what`` names the file in
    the error. Raises FileNotFoundError naming every place tried."""
    import sys
    from importlib import resources

    tried: list[Path] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        tried.append(Path(bundle) / "resources" / "vcg" / name)
    root = find_project_root()
    if root is not None:
        tried.append(root / "resources" / "vcg" / name)
    for candidate in tried:
        if candidate.is_file():
            return candidate
    packaged = resources.files("nicadvisor.vcg").joinpath(name)
    if packaged.is_file():
        return Path(str(packaged))
    raise FileNotFoundError(f"{what} {name} is missing; looked in "
                            + ", ".join(str(p) for p in tried) + f", {packaged}")
