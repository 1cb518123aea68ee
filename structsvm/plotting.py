"""Convergence plots of fitted learners (needs matplotlib: ``pip install structsvm[plot]``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def plot_convergence(models: Mapping[str, Any], path: str | Path) -> Path:
    """Draw the primal objective and the relative duality gap against time, and save a PNG.

    Parameters
    ----------
    models : mapping of label to fitted estimator
        Estimators with a ``history_`` whose records hold ``time`` and ``primal`` (and
        ``relative_gap`` where the learner has a dual); others are skipped.
    path : str or Path
        Where to write the PNG.

    Returns
    -------
    Path
        The written file.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (objective_axis, gap_axis) = plt.subplots(1, 2, figsize=(11, 4))
    for label, model in models.items():
        history = getattr(model, "history_", [])
        records = [r for r in history if "primal" in r]
        if not records:
            continue
        times = [max(r["time"], 1e-3) for r in records]
        objective_axis.plot(times, [r["primal"] for r in records], label=label)
        gaps = [(t, r["relative_gap"]) for t, r in zip(times, records, strict=True)]
        gaps = [(t, g) for t, g in gaps if g > 0]
        if gaps:
            gap_axis.plot(*zip(*gaps, strict=True), label=label)
    objective_axis.set(xscale="log", yscale="log", xlabel="time (s)", ylabel="primal objective")
    gap_axis.set(xscale="log", yscale="log", xlabel="time (s)", ylabel="relative duality gap")
    for axis in (objective_axis, gap_axis):
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
