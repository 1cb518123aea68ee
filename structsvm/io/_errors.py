"""The error raised for a malformed data file: it names the file and the line."""

from __future__ import annotations

import os


class FileFormatError(ValueError):
    """A data file does not follow its format.

    The message starts with the file's name and the line (1-based), e.g.
    ``"train.dat, line 17: expected 'fid:value', got 'x'"``.

    Attributes
    ----------
    path : str
        The file, as given.
    line : int or None
        The line at fault, counted from 1; None when the fault is not on one line.
    reason : str
        What is wrong, without the location.
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, reason: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.reason = reason
        where = (
            os.path.basename(self.path)
            if line is None
            else (f"{os.path.basename(self.path)}, line {line}")
        )
        super().__init__(f"{where}: {reason}")
