"""Convergence plots of fitted learners.

Needs matplotlib, which the ``plot`` extra of the ``structsvm-learn`` distribution installs
(``pip install -e ".[plot]"`` from a clone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# (history key, axis label, axis scale) of the horizontal axes: one column of panels each.
PROGRESS_AXES = (("time", "time (s)", "log"), ("iteration", "iteration", "symlog"))
# (history key, axis label) of the vertical axes: one row of panels each, on a log scale.
MEASURE_AXES = (("primal", "primal objective"), ("relative_gap", "relative duality gap"))


def plot_convergence(models: Mapping[str, Any] | Any, path: str | Path) -> Path:
    """Draw the primal objective and the relative duality gap against time and iterations.

    Four panels on log scales: the primal objective (top) and the relative duality gap
    (bottom), against elapsed time (left) and solver iterations (right), one line per model.

    Parameters
    ----------
    models : fitted estimator, or mapping of label to fitted estimator or history
        Estimators with a ``history_`` whose records hold ``time``, ``iteration`` and
        ``primal``, such as :class:`~structsvm.StructuredSVM`, or such histories themselves
        (a caller that keeps only ``model.history_`` need not keep the model). Records without
        a positive ``relative_gap`` (learners without a dual) are left out of the gap panels;
        estimators without such a history (the perceptron) are skipped.
    path : str or Path
        Where to write the PNG.

    Returns
    -------
    Path
        The written file.
    """
    # A figure of its own, drawn by the Agg renderer: pyplot's current backend and figures
    # are left as they are.
    from matplotlib.figure import Figure

    if not isinstance(models, Mapping):
        models = {type(models).__name__: models}
    figure = Figure(figsize=(11, 8))
    axes = figure.subplots(2, 2, squeeze=False)
    for label, model in models.items():
        history = model if isinstance(model, Sequence) else getattr(model, "history_", [])
        records = [r for r in history if "primal" in r]
        for column, (progress, _, _) in enumerate(PROGRESS_AXES):
            for row, (measure, _) in enumerate(MEASURE_AXES):
                points = [
                    (r[progress], r[measure])
                    for r in records
                    if r.get(measure, 0) > 0 and progress in r
                ]
                if points:
                    axes[row, column].plot(*zip(*points, strict=True), label=label)
    for column, (_, progress_label, scale) in enumerate(PROGRESS_AXES):
        for row, (_, measure_label) in enumerate(MEASURE_AXES):
            axis = axes[row, column]
            axis.set(xlabel=progress_label, ylabel=measure_label, yscale="log")
            axis.set_xscale(scale)
            if scale == "symlog":  # linear from iteration 0 to 1, logarithmic beyond
                axis.set_xlim(left=0)
            axis.grid(True, which="both", alpha=0.3)
            if axis.lines:
                axis.legend()
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path
