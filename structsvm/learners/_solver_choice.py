"""``solver="auto"``: the one table that picks a structural SVM's solver for a problem.

As scikit-learn's ``dual="auto"``, the choice depends on the problem, never on the data's
values: what the task offers (a compiled oracle, and whether its outputs are few enough to
enumerate: ``CompiledOracle.n_outputs``), the length of φ and the objective (rescaling, slack
norm). The rows,
first match wins, and what they rest on (times to a certified relative duality gap of 0.1%
on the benchmarks of the documentation, one machine):

========================================  ==========  =================================
problem                                   solver      measured
========================================  ==========  =================================
squared slacks (``slack_norm=2``)         n-slack     1-slack's one slack squares the
                                                      sum: another problem; dual-cd
                                                      takes L1 slacks only
slack rescaling                           1-slack     the compiled oracles decode the
                                                      loss-augmented problem only; of
                                                      the Python passes, 1-slack calls
                                                      the oracle least
compiled oracle with few outputs          dual-cd     digits, multiclass: 1.1× the time
                                                      of LinearSVC, n-slack 3.5×
compiled oracle, φ of ``LONG_FEATURES``   bcfw        a 1-slack cutting plane is a dense
entries or more                                       vector of φ's length: UD English
                                                      parsing (φ of 2²⁰ entries), 2,000
                                                      sentences, to the same dev UAS:
                                                      bcfw 78 s in 0.94 GB, 1-slack
                                                      313 s in 1.8 GB; CoNLL-2000
                                                      chunking (8.3 million) is
                                                      trained with bcfw likewise
compiled oracle                           1-slack     OCR chain, C=0.1: 1.03 s; bcfw
                                                      pairwise 4.46 s, n-slack 12.8 s,
                                                      bcfw with its defaults above 10 s
no compiled oracle                        1-slack     OCR chain through its batch
                                                      oracles alone: about 30 times
                                                      faster than n-slack
========================================  ==========  =================================
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from structsvm._task import Task

LOGGER = logging.getLogger("structsvm")

AUTO = "auto"

#: φ at least this long makes every dense cutting plane of 1-slack costly (8 MB or more): BCFW,
#: whose blocks stay as sparse as φ, is picked instead.
LONG_FEATURES = 2**20


class SolverChoice(NamedTuple):
    """A solver picked for a problem, and why (for the log and the user)."""

    solver: str
    reason: str


def choose_solver(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    rescaling: str,
    slack_norm: int,
) -> SolverChoice:
    """Return the solver of the table above for training ``task`` on (X, Y).

    Parameters
    ----------
    task : Task
    X, Y : the training set, as the task's ``check_data`` returned it
        Only passed to ``task.compiled_oracle``, to learn whether the task offers one.
    rescaling : {"margin", "slack"}
    slack_norm : {1, 2}

    Returns
    -------
    SolverChoice
    """
    if slack_norm == 2:
        return SolverChoice(
            "n-slack",
            "squared slacks: n-slack penalises every example's slack squared, whereas "
            "1-slack squares their sum and dual-cd takes L1 slacks only",
        )
    if rescaling == "slack":
        return SolverChoice(
            "1-slack",
            "slack rescaling runs the Python oracles, which 1-slack calls the fewest times",
        )
    oracle = task.compiled_oracle(X, Y)
    name = type(task).__name__
    if oracle is None:
        return SolverChoice(
            "1-slack",
            f"{name} offers no compiled oracle; 1-slack calls its Python oracles the fewest "
            "times",
        )
    if getattr(oracle, "n_outputs", None) is not None:
        return SolverChoice(
            "dual-cd",
            f"{name}'s compiled oracle has {oracle.n_outputs} outputs per example, whose "
            "subproblems dual coordinate descent solves exactly",
        )
    if task.size_joint_feature >= LONG_FEATURES:
        return SolverChoice(
            "bcfw",
            f"{name}'s joint feature has {task.size_joint_feature} entries: 1-slack would keep "
            "each cutting plane as a dense vector that long, BCFW's blocks stay sparse",
        )
    return SolverChoice(
        "1-slack",
        f"{name} offers a compiled oracle, on which 1-slack's passes are fastest",
    )


def resolve_solver(
    solver: str,
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    rescaling: str,
    slack_norm: int,
    estimator: str,
    log: bool,
) -> str:
    """Return ``solver``, or the table's choice if it is ``"auto"``.

    With ``log``, the choice and its reason go to the ``structsvm`` logger at INFO level,
    naming the ``estimator``.
    """
    if solver != AUTO:
        return solver
    choice = choose_solver(task, X, Y, rescaling=rescaling, slack_norm=slack_norm)
    if log:
        LOGGER.info("%s: solver='auto' picks %r: %s", estimator, choice.solver, choice.reason)
    return choice.solver
