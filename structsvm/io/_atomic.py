"""Files written atomically: the target is always the old file or the complete new one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from structsvm._utils.validation import PATH, check_value


def write_atomically(path: str | os.PathLike[str], write: Callable[[IO[bytes]], None]) -> None:
    """Write a file through ``write(stream)`` so that ``path`` is never partly written.

    The data go to a temporary file in the same directory, are flushed and synced to disk,
    and the file is then renamed over ``path`` (:func:`os.replace`, atomic on POSIX and
    Windows). If anything fails, the temporary file is removed and ``path`` is unchanged.

    Raises
    ------
    TypeError
        If ``path`` is not a str or path-like (an integer would be taken for an open file
        descriptor).
    """
    check_value(path, "path", [PATH])
    target = Path(path)
    directory = target.parent
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_directory(directory)


def _sync_directory(directory: Path) -> None:
    """Flush a directory entry to disk after a rename, where the platform allows it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
