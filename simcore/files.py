"""Small file-system primitives shared by runs and experiments: an atomic JSON write and an
exclusive lock on a directory (nothing heavy imported, so any command can use them)."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path


def write_json(path: Path, data, allow_nan: bool = True) -> None:
    """Write ``data`` as JSON under a dot-name first and rename it into place, so a reader never
    sees half a file."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(data, indent=2, allow_nan=allow_nan) + "\n")
    os.replace(tmp, path)


def lock_dir(directory: Path, name: str, error: type[Exception]):
    """Hold ``directory/name`` locked while the returned file stays open; if another process
    holds it, raise ``error`` saying so."""
    fh = open(directory / name, "w")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise error(f"another sichuan command is writing to {directory}") from None
    return fh
