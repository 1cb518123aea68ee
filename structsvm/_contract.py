"""The task contract as enforced during a fit: cheap checks of what the oracles return.

:func:`structsvm.check_task` checks a task thoroughly before training; these checks run on every
oracle pass of a fit and raise :class:`TaskContractViolation`, naming the user's task class.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task


class TaskContractViolation(ValueError):
    """A task broke its contract during a fit (see :func:`structsvm.check_task`)."""


def check_oracle_results(
    task: Task,
    true_features: np.ndarray | sp.csr_matrix,
    features: np.ndarray | sp.csr_matrix,
    losses: np.ndarray,
) -> None:
    """Raise TaskContractViolation if the oracle's outputs have malformed features or losses.

    Cheap checks run on every oracle pass: the joint features have one row per example and
    ``size_joint_feature`` columns and are finite; the losses are finite and non-negative.
    """
    expected = (true_features.shape[0], task.size_joint_feature)
    if features.shape != expected:
        raise TaskContractViolation(
            f"{_class_name(task)}.batch_joint_feature returned shape {features.shape} for "
            f"the oracle's outputs, expected {expected} (n examples × size_joint_feature)"
        )
    values = features.data if sp.issparse(features) else np.asarray(features)
    if not np.all(np.isfinite(values)):
        raise TaskContractViolation(
            f"{_class_name(task)}.batch_joint_feature returned NaN or infinite values"
        )
    if losses.shape != (expected[0],) or not np.all(np.isfinite(losses)) or np.any(losses < 0):
        bad = np.flatnonzero(~np.isfinite(losses) | (losses < 0))
        raise TaskContractViolation(
            f"{_class_name(task)}.batch_loss must return one finite loss >= 0 per example; "
            f"got shape {losses.shape}"
            + (f", and {losses[bad[0]]} for example {bad[0]}" if len(bad) else "")
        )


def check_violations(
    violations: np.ndarray, score_gaps: np.ndarray, losses: np.ndarray | None = None
) -> None:
    """Raise TaskContractViolation if the most-violated-constraint oracle lost to the true output.

    The true output has loss 0 and the same score as itself, so a correct oracle's output has
    a violation that is never negative beyond rounding: ``Δ − w·ψ`` for the loss-augmented
    oracle (margin rescaling), ``Δ · (1 − w·ψ)`` for the slack-rescaled one, which is meant
    when ``losses`` (the Δ of the outputs) are given. ``score_gaps`` are the ``w·ψ`` the
    violations were computed from.
    """
    scale = 1.0 + np.abs(score_gaps)
    if losses is not None:
        scale *= 1.0 + losses
    worse = np.flatnonzero(violations < -1e-8 * scale)
    if len(worse):
        i = int(worse[0])
        oracle, value = (
            ("loss_augmented_argmax", "Δ + w·φ")
            if losses is None
            else ("slack_rescaled_argmax", "Δ · (1 − w·ψ)")
        )
        raise TaskContractViolation(
            f"{oracle} is not a maximiser: for example {i} its output has "
            f"{value} {-violations[i]:.6g} below the true output's (loss 0); "
            f"{len(worse)} example(s) affected. Run structsvm.check_task on the task"
        )


def _class_name(task: Task) -> str:
    """Return the name of the user's task class, looking through a wrapper's ``task``.

    Learners call the user's task itself; a user may still hand them a wrapped task, such as a
    :class:`~structsvm.ParallelTask`.
    """
    inner = getattr(task, "task", None)
    return type(inner if isinstance(inner, Task) else task).__name__
