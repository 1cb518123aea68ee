"""Where the experiments look for the data sets that are not part of the project."""

from __future__ import annotations

import os
from pathlib import Path


def candidate_directories(data_dir: str | None, folder: str) -> list[Path]:
    """Return the directories that may hold a data set, in the order to try them.

    ``data_dir`` (else the environment variable ``STRUCTSVM_DATA``) and its sub-directory
    ``folder``; an empty list when neither is given.
    """
    given = data_dir or os.environ.get("STRUCTSVM_DATA")
    return [Path(given), Path(given) / folder] if given else []
