"""One run at a time in an output folder. Two runs writing the same folder (``train --out``
twice at once, say) played every game twice into the same data files and wrote the model's
files over each other's half-written ones; the second run is refused instead, naming the
first one's process."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import ParameterError

#: the file, in the folder, whose lock a run holds (``flock``: it goes with the process,
#: however it ends, so a run killed leaves no lock behind, only this empty file)
LOCK_NAME = ".stonegarden-lock"


@contextlib.contextmanager
def folder_held(folder: Path, option: str) -> Iterator[None]:
    """Hold ``folder`` (made if missing) for this run while the ``with`` block runs.

    Raises:
        ParameterError: the folder cannot be made or written, or another run holds it
            (named by ``option``, the command line's name for the folder, and its process).
    """
    import fcntl

    path = folder / LOCK_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        f = open(path, "a+")  # noqa: SIM115 (closed below, with its lock)
    except OSError as exc:
        raise ParameterError(f"{option} {str(folder)!r}: {exc.strerror or exc}") from None
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                yield  # a file system without locks (some network ones): the run goes on
                return
            f.seek(0)
            holder = f.read().strip()
            which = f" (process {holder})" if holder.isdigit() else ""
            raise ParameterError(f"{option} {str(folder)!r} is in use by another run{which}: "
                                 "two runs in one folder would write over each other's "
                                 "files; wait for it to end, or use another folder") from None
        with contextlib.suppress(OSError):  # who holds it, for the message above
            f.truncate(0)
            f.write(str(os.getpid()))
            f.flush()
        yield
