"""The installed version of the ``sichuan-sim`` distribution, in a module of its own so that
the runner and the CLI can record it without importing the package's ``__init__``."""

from __future__ import annotations

from importlib import metadata

DIST_NAME = "sichuan-sim"



def installed_version() -> str:
    """The distribution's version, ``0.0.0+unknown`` for a source tree that was never installed."""
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "0.0.0+unknown"


__version__ = installed_version()
