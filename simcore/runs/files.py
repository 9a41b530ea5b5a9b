"""Small file-system primitives shared by runs and experiments: an atomic JSON write, an
exclusive lock on a directory, and the life of a run or experiment directory (nothing heavy
imported, so any command can use them)."""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
from pathlib import Path
from typing import Callable


def now() -> str:
    """The time in UTC, to the second, as the manifests record it."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


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


class ManagedDir:
    """A run or experiment directory while a command writes to it (``with ManagedDir(...) as d``):
    created with its parents if needed and checked to be a writable directory, locked against
    other commands, its existing manifest read (or the directory found empty), and its timings
    carried from session to session. Every problem is ``error`` with a one-line message."""

    def __init__(self, path, what: str, manifest: str, lock: str, error: type[Exception]):
        self.path = Path(path)
        self.what = what            # "run directory", "experiment directory"
        self.manifest = manifest
        self.lock_name = lock
        self.error = error
        self._lock = None

    def __enter__(self) -> "ManagedDir":
        path, error = self.path, self.error
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise error(f"cannot create {self.what} {path}: {exc.strerror or exc}") from None
        if not path.is_dir():
            raise error(f"cannot create {self.what} {path}: a file of that name exists")
        probe = path / f".write-test-{os.getpid()}"
        try:
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise error(f"cannot write to {self.what} {path}: {exc.strerror or exc}") from None
        self._lock = lock_dir(path, self.lock_name, error)
        return self

    def __exit__(self, *exc) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def existing(self, read: Callable[[Path], dict]) -> dict | None:
        """The manifest already there (read by ``read``), or None for an empty directory; a
        directory with other content and no manifest is refused."""
        if not (self.path / self.manifest).exists():
            if any(not p.name.startswith(".") for p in self.path.iterdir()):
                raise self.error(f"{self.path} is not empty and holds no {self.manifest}: "
                                 "choose a new or empty directory")
            return None
        return read(self.path)

    @staticmethod
    def timings(old: dict | None) -> dict:
        """The timings to carry on: the old manifest's, or a new record."""
        t = dict(old.get("timings", {})) if old else {"created": now(), "seconds": 0.0}
        t.setdefault("created", now())
        return t

    @staticmethod
    def end_session(timings: dict, seconds: float) -> dict:
        """Add a finished session of ``seconds`` to ``timings`` (in place; also returned)."""
        timings["updated"] = now()
        timings["seconds"] = round(float(timings.get("seconds", 0.0)) + seconds, 3)
        timings["last_session_seconds"] = round(seconds, 3)
        return timings

    def write_manifest(self, manifest: dict, allow_nan: bool = True) -> None:
        write_json(self.path / self.manifest, manifest, allow_nan=allow_nan)
