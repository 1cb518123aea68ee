"""Measurement helpers shared by the experiment scripts: peak memory, fresh processes, timings,
plain-text tables."""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any


def peak_rss_megabytes() -> float:
    """Return this process's peak resident set size in megabytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


class Stopwatch:
    """Wall-clock and CPU seconds (this process) of a ``with`` block."""

    def __enter__(self) -> Stopwatch:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def run_in_fresh_process(function: Callable[..., Any], *args: Any) -> Any:
    """Call ``function(*args)`` in a newly spawned process and return its result.

    A fresh process makes the peak memory it reports its own, and starts every measurement
    from the same cold state. ``function`` must be importable (defined at module level).
    """
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


def run_in_fresh_processes(
    function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], jobs: int = 1
) -> list[Any]:
    """Return ``function(*args)`` for every ``args`` of ``calls``, each call in a fresh process
    (:func:`run_in_fresh_process`), ``jobs`` of them at a time, in the order of ``calls``."""
    with ThreadPoolExecutor(jobs) as threads:
        return list(threads.map(lambda args: run_in_fresh_process(function, *args), calls))


def first_record(history: list[dict[str, Any]], key: str, threshold: float) -> dict | None:
    """Return the first certified history record whose ``key`` is at most ``threshold``.

    A record is certified unless it says otherwise (``certified``: its primal and gap are
    then lower bounds). Returns None when no record reaches it.
    """
    return next(
        (r for r in history if r.get("certified", True) and r[key] <= threshold), None
    )


def first_time(history: list[dict[str, Any]], key: str, threshold: float) -> float:
    """Return the ``time`` of :func:`first_record`, nan when no record reaches ``threshold``."""
    record = first_record(history, key, threshold)
    return float("nan") if record is None else record["time"]


def format_table(rows: list[dict[str, object]]) -> str:
    """Return the rows as a plain-text table."""
    columns = list(rows[0])
    cells = [
        [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in columns]
        for row in rows
    ]
    widths = [max(len(c), *(len(line[k]) for line in cells)) for k, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)) for line in cells]
    return "\n".join(lines)
