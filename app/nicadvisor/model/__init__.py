"""Pure domain model of an audit: hosts, pNICs, vmknics, switches, kernel modules, findings.

No Qt, pyVmomi, paramiko or requests here (an import-linter contract in pyproject.toml enforces it).
Unknown facts stay ``None``: never 0, never a guess. Every fact set on an object keeps its
:class:`Evidence` (the command it came from and the raw line) in the object's ``evidence`` map.
"""
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import (
    CommandNotRun,
    Evidence,
    Finding,
    Host,
    InputProblem,
    KernelModule,
    PathTest,
    PhysicalNic,
    Severity,
    Switch,
    VmkernelNic,
)

__all__ = [
    "Audit", "CommandNotRun", "Evidence", "Finding", "Host", "InputProblem", "KernelModule", "PathTest",
    "PhysicalNic", "Severity", "Switch", "VmkernelNic",
]
