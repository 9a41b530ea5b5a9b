"""Where numba caches our compiled code: a directory named by a hash of the jitted sources.

numba checks only the timestamp of a function's own file, but the kernels inline functions and
freeze constants from other modules: after an edit to ``simcore/contract/evaluate.py`` alone,
the cached engine would go on running the old code, silently. So the cache lives in a directory
keyed by a hash of every file that holds cached jitted code or the constants it uses; an edit to
any of them starts a fresh cache (one cold compile, about a minute). User strategy files are
cached there too, so an upgrade of this package recompiles them as well.

The directory is ``$NUMBA_CACHE_DIR/sichuan-<hash>`` when that variable is set, else
``cache_root()/numba/<hash>`` (``$SICHUAN_CACHE`` or ``~/.cache/sichuan-sim``); old ones may
be deleted at any time.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("simcore", "strategies")
# read by jitted code, not cached themselves (paths relative to ROOT)
CONSTANT_MODULES = ("simcore/contract/rules.py", "simcore/contract/tiles.py", "simcore/contract/nrt.py",
                    "simcore/engine/state.py", "simcore/engine/options.py",
                    "simcore/contract/records.py")
CACHED_JIT = re.compile(r"njit\([^)]*cache=True")


def jitted_sources(root: Path = ROOT) -> list[Path]:
    """The files whose content the compiled code depends on, in every subpackage."""
    files = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in CONSTANT_MODULES or CACHED_JIT.search(path.read_text(encoding="utf-8")):
                files.append(path)
    return files


def source_key(files: list[Path], root: Path = ROOT) -> str:
    """A hash of the files' repo-relative paths and contents: a module moved to another
    subpackage, or two files of one name in different folders, key differently."""
    h = hashlib.blake2b(digest_size=8)
    for path in files:
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_root() -> Path:
    """Our disk caches (suit tables, compiled code): $SICHUAN_CACHE, else
    $XDG_CACHE_HOME/sichuan-sim, else ~/.cache/sichuan-sim."""
    env = os.environ.get("SICHUAN_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sichuan-sim"


def configure() -> str:
    """Point numba's cache at the directory for the current sources; returns it. Must run
    before any jitted module is imported (``simcore/__init__.py`` calls it first)."""
    from numba.core import config

    key = source_key(jitted_sources())
    user = os.environ.get("NUMBA_CACHE_DIR")
    path = os.path.join(user, f"sichuan-{key}") if user else str(cache_root() / "numba" / key)
    config.CACHE_DIR = path
    return path
