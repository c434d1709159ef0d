"""A running hub's mark on its data folder: ``<data>/hub.lock``.

A hub holds a shared ``flock`` on the file while it runs (several hubs may share a
folder; the lock goes with the process, so a killed hub leaves no stale mark).  A tool
asks :func:`in_use` before writing into a folder: ``gamehub fetch`` refuses to install
into a running hub's folder (whose registry would load the package at once) unless
told ``--force``.  Where ``flock`` does not exist, nothing is locked and no folder is
in use.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

#: the lock file's name in the data folder
LOCK_NAME = "hub.lock"


class DataLock:
    """The running hub's shared lock on ``<folder>/hub.lock``."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (create the file if needed).

        :raises OSError: the file cannot be opened or locked.
        """
        if fcntl is None or self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        """Let go (the file stays: another hub may hold it too)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def in_use(folder: Path) -> bool:
    """Whether a running hub holds ``<folder>/hub.lock``."""
    path = Path(folder) / LOCK_NAME
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False
