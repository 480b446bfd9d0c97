"""Where facts come from: capture folders, vm-support bundles, the local Linux machine (and, later,
vSphere, SSH and NSX Manager). Each source yields raw outputs that the parsers read and
:mod:`nicadvisor.parsers.assemble` turns into model objects."""


class ConnectionCheckError(Exception):
    """A live target failed its connection check ("Test connection"); the message is for the user."""
