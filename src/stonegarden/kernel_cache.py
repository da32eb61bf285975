"""Where numba keeps the compiled kernels.

Numba caches a kernel beside its source and checks only that one file's timestamp, so a kernel
that calls a kernel of another module (the Free Go playout calling ``chains.stones_given``)
keeps its old machine code when only the callee changes (numba pull request 8396, not merged).
Editing a checkout, or pulling a commit that changes only a callee, would then run old code
without a sign. So the caches live in a directory named by a hash of the source of every
module that compiles kernels: any change to any kernel starts a fresh cache, and two checkouts
of different code never share one. ``NUMBA_CACHE_DIR``, when set, wins. Cache directories left
unused for ``KEEP_DAYS`` are removed.

The place is given to numba through ``NUMBA_CACHE_DIR``, which numba reads as it is imported:
``import stonegarden`` imports no numba (a second's import in which Ctrl-C could only print a
traceback, before any command could say "interrupted"). ``CHOSEN`` marks the variable as set
here, not by the user, so that a child process (of another checkout, another
``XDG_CACHE_HOME``) chooses its own place again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
KEEP_DAYS = 30
#: the environment variable holding the place ``configure`` chose (see the module's words)
CHOSEN = "STONEGARDEN_KERNEL_CACHE"


def kernel_sources(root: Path = PACKAGE) -> list[Path]:
    """The package's modules that compile numba kernels, in a fixed order."""
    return sorted(p for p in root.rglob("*.py")
                  if "__pycache__" not in p.parts and "njit" in p.read_text("utf-8"))


def kernel_hash(root: Path = PACKAGE) -> str:
    """A hash of the kernel modules' names and contents."""
    h = hashlib.sha256()
    for path in kernel_sources(root):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stonegarden" / "kernels"


def configure() -> str | None:
    """Point numba's cache at this code's directory (created if needed, its time refreshed),
    unless the user set ``NUMBA_CACHE_DIR`` or the directory cannot be made (numba's default beside
    the sources is kept then); the directory, or ``None``. Must run before any kernel module
    is imported: numba picks a kernel's cache place as the kernel is defined."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and given != os.environ.get(CHOSEN):  # the user's
        return None
    try:
        root = cache_root()
        here = root / kernel_hash()
        here.mkdir(parents=True, exist_ok=True)
        os.utime(here)
        _prune(root, here)
    except OSError:
        if given:  # a parent's place, not this process's own: numba's default then
            del os.environ["NUMBA_CACHE_DIR"]
        return None
    os.environ["NUMBA_CACHE_DIR"] = os.environ[CHOSEN] = str(here)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba imported first (by the caller) has read its environment
        config.CACHE_DIR = str(here)  # type: ignore[attr-defined]
    return str(here)


def _prune(root: Path, keep: Path) -> None:
    """Remove the cache directories of other code left unused for ``KEEP_DAYS``."""
    old = time.time() - KEEP_DAYS * 86400
    for d in root.iterdir():
        try:
            if d != keep and d.is_dir() and d.stat().st_mtime < old:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            continue
