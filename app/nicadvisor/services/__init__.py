"""Use-cases: plain functions ``(request, progress, cancel) -> result dataclass``, shared by the CLI and
the GUI. ``progress(fraction 0..1, message)``; ``cancel`` is a ``threading.Event``; a cancelled run
raises :class:`nicadvisor.cancel.Cancelled`."""
