"""PySide6 wizard of NIC Advisor: Connect → Discover → Inspect → Benchmark → Findings → Export.

Only this package imports Qt. Pages call the use-cases in :mod:`nicadvisor.services` through
:class:`nicadvisor.gui.backend.Backend` on worker threads (:mod:`nicadvisor.gui.tasks`); the GUI
thread never blocks on I/O.
"""
