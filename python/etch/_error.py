"""etch.Error: every failure of etch's Python API, with the tools' message."""


class Error(Exception):
    """A failure etch reported (compiler, runtime or API), with its message."""
