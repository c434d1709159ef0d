"""What an isolated game's worker does to itself before it imports the plugin.

:func:`enter` sets the limits (CPU time, address space, file size, open files), closes
every inherited file descriptor but the pipes, restricts the file system and the
network with Landlock where the kernel has it (Linux 5.13 and later; TCP from 6.7), and
installs an audit hook (:pep:`578`) that refuses sockets, new processes, signals,
``ctypes`` and opening files outside the allowed folders.  The hook records each refusal
in :data:`VIOLATIONS`: the worker reports the first one and the hub stops the game, even
when the plugin catches the ``PermissionError``.

Nothing here needs root; none of it can be undone by the plugin (Landlock rules and
audit hooks stay for the life of the process).
"""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: what the plugin tried that it may not, in order (the worker reports the first)
VIOLATIONS: list[str] = []

# Landlock (linux/landlock.h): system calls (the same number on every architecture)
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH = 1
_FS_READ = (1 << 2) | (1 << 3)  # READ_FILE, READ_DIR
_FS_WRITE = (1 << 1) | (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8)  # write, remove, make
_FS_FILE = (1 << 1) | (1 << 2) | (1 << 14)  # what applies to a file: write, read, truncate
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_ALL = (1 << 0) | (1 << 1)  # BIND_TCP, CONNECT_TCP (ABI 4)
_SCOPE_ALL = (1 << 0) | (1 << 1)  # abstract unix sockets, signals (ABI 6)

#: audit events refused outright (a prefix ending in "." covers a family)
_REFUSED = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
    "ctypes.",
    "mmap.__new__",
    "sys._current_frames",
    "sys.setprofile",
    "sys.settrace",
)


#: audit events on a path (their first argument) → whether they write
_PATH_EVENTS = {
    "os.listdir": False,
    "os.scandir": False,
    "os.chdir": False,
    "os.mkdir": True,
    "os.remove": True,
    "os.rmdir": True,
    "os.rename": True,
    "os.chmod": True,
    "os.chown": True,
    "os.link": True,
    "os.symlink": True,
    "os.truncate": True,
    "os.utime": True,
    "os.setxattr": True,
    "os.removexattr": True,
}


def _fs_access(abi: int) -> int:
    return _FS_BY_ABI[max(a for a in _FS_BY_ABI if a <= abi)]


def set_limits(cpu_seconds: int, memory_bytes: int) -> None:
    """CPU time (the kernel kills the process past it), address space, no core file,
    files of at most 1 MiB, at most 64 open files."""
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


def close_inherited(keep: Sequence[int] = (0, 1, 2)) -> None:
    """Close every file descriptor but ``keep`` (the hub's spawn passes only the
    pipes; this makes sure of it)."""
    top = max(keep) + 1
    os.closerange(top, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def landlock(read: Sequence[Path], write: Sequence[Path]) -> str:
    """Allow reading only below ``read`` and ``write``, writing only below ``write``,
    no TCP and (ABI 6) no signals or abstract sockets outside; returns what is in force
    (``"landlock ABI n"``) or why nothing is (``"no landlock: ..."``)."""
    import ctypes  # the only use; the audit hook refuses it afterwards

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return f"no landlock: {os.strerror(ctypes.get_errno())}"

    class Ruleset(ctypes.Structure):
        _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]

    class Beneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    fs = _fs_access(abi)
    attr = Ruleset(fs, _NET_ALL if abi >= 4 else 0, _SCOPE_ALL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return f"no landlock: {os.strerror(ctypes.get_errno())}"
    try:
        for paths, access in ((read, _FS_READ), (write, _FS_READ | _FS_WRITE)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                allowed = access if Path(path).is_dir() else access & _FS_FILE
                rule = Beneath(allowed & fs, fd)
                done = syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
                os.close(fd)
                if done < 0:
                    return f"no landlock: adding {path}: {os.strerror(ctypes.get_errno())}"
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if syscall(_RESTRICT_SELF, ruleset, 0) < 0:
            return f"no landlock: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(ruleset)
    return f"landlock ABI {abi}"


def audit(read: Sequence[Path], write: Sequence[Path]) -> None:
    """Install the hook that refuses (and records) what a plugin may not do."""
    readable = tuple(str(Path(p).resolve()) for p in (*read, *write))
    writable = tuple(str(Path(p).resolve()) for p in write)

    def inside(path: str, folders: tuple[str, ...]) -> bool:
        return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            name, mode = args[0], args[1]
            if isinstance(name, int) or name is None:
                return
            path = os.path.abspath(os.fsdecode(name))
            writing = isinstance(mode, str) and any(c in mode for c in "wax+")
            writing = writing or (isinstance(mode, int) and bool(mode & (os.O_WRONLY | os.O_RDWR)))
            if inside(path, writable) or (not writing and inside(path, readable)):
                return
            what = f"open {path} for {'writing' if writing else 'reading'}"
        elif event in _PATH_EVENTS:
            name = args[0]
            if isinstance(name, int) or name is None:
                return
            path = os.path.abspath(os.fsdecode(name))
            writing = _PATH_EVENTS[event]
            if inside(path, writable) or (not writing and inside(path, readable)):
                return
            what = f"{event} {path}"
        elif event.startswith(_REFUSED):
            what = event
        else:
            return
        VIOLATIONS.append(what)
        raise PermissionError(f"an isolated game may not {what}")

    sys.addaudithook(hook)


#: where the system keeps the shared libraries that modules load (lxml: libxml2)
SYSTEM_LIBRARIES = (
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
)


def python_paths() -> list[Path]:
    """What Python reads its modules from (the interpreter's folders and the hub's,
    the system's shared libraries)."""
    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    folders.update(Path(p) for p in sys.path if p and os.path.exists(p))
    folders.update(Path(p) for p in SYSTEM_LIBRARIES if os.path.exists(p))
    return sorted(folders)


def enter(
    cpu_seconds: int, memory_bytes: int, package: Path, workdir: Path, *, extra: Sequence[Path] = ()
) -> str:
    """Lock the worker in; returns what of the file-system protection is in force."""
    sys.dont_write_bytecode = True  # Python writes no cache next to the plugin's modules
    close_inherited()
    set_limits(cpu_seconds, memory_bytes)
    read = [*python_paths(), package, *extra]
    write = [workdir, Path(os.devnull)]
    state = landlock(read, write)
    sys.modules.pop("ctypes", None)
    audit(read, write)
    return state
