"""SVM^struct's learning options and what they become in StructuredSVM and the tasks.

One home for every translation: ``-c`` to C, ``-w`` to the solver, ``-o`` to the rescaling,
``-p`` to the slack norm and ``--t`` to the chain's transitions. The tables below are also what
``structsvm learn --help`` prints.
"""

from __future__ import annotations

import argparse
from typing import Any

MULTICLASS_LOSS_SCALE = 100.0
"""SVM^multiclass's loss of a wrong class (its ``-c`` is read with this loss)."""

C_CONVENTION_HELP = f"""\
C convention. StructuredSVM minimises 1/2 |w|^2 + C * sum_i xi_i. SVM^struct's -c weighs the
average slack, 1/2 |w|^2 + (c/n) * sum_i xi_i, so -c c is C = c / n, with n the number of
training examples: rows (multiclass), sequences (hmm), queries (rank). The losses are those of
the SVM^struct tools:
  multiclass  SVM^multiclass: a wrong class costs {MULTICLASS_LOSS_SCALE:g}, so with -c the problem
              is SVM^multiclass's, with its weights and scores. Its solution is
              {MULTICLASS_LOSS_SCALE:g} times that of the 0/1 loss (MulticlassTask's default,
              LinearSVC(multi_class="crammer_singer", fit_intercept=False)) with
              C = c / ({MULTICLASS_LOSS_SCALE:g} n): the same predictions.
  hmm         SVM^hmm: the number of mistagged tokens (ChainTask's Hamming loss); C = c / n.
  rank        SVM^rank (its default -l 1): the number of swapped pairs (RankingTask's loss);
              C = c / n is SVM^light's '-z p' C and RankingSVM's C.
--C C instead gives StructuredSVM's C directly, on the task's own loss (0/1 for multiclass).
"""

OPTIONS_HELP = """\
SVM^struct options and their meaning here:
  -c c      C = c / n (see above)       --C C    StructuredSVM's C
  -e tol    stop at a relative duality gap <= tol, certified by a full oracle pass (tol of
            StructuredSVM). Not SVM^struct's -e, an absolute tolerance on the slacks in the
            units of the loss: its values 0.1-0.5 are far too loose here.
  -w        0, 1: "n-slack"   2, 3, 4: "1-slack"   or a name: n-slack, 1-slack, bcfw;
            default 1-slack (SVM^struct's -w 4), n-slack with -p 2
  -o        2: margin rescaling (rescaling="margin", the default); 1: slack rescaling
            (rescaling="slack": a violated constraint costs its loss times its margin
            shortfall; it needs the task's slack-rescaled oracle)
  -p        1: C * sum_i xi_i (slack_norm=1, the default); 2: squared slacks (slack_norm=2),
            (C/2) * sum_i xi_i^2 with the n-slack (its default) and bcfw solvers, or
            (C/2) * (sum_i xi_i)^2 with -w 1-slack; C = c / n as with -p 1
  --t       hmm only: 1: first-order transitions (ChainTask(order=1)); 2: also second-order
            ones (ChainTask(order=2)); 0: no transitions (ChainTask(transitions=False))
  -v        0: quiet; 1: a summary (and a progress bar on a terminal); 2, 3: also one log line
            per iteration
"""

SOLVERS_BY_ALGORITHM = {
    "0": "n-slack",
    "1": "n-slack",
    "2": "1-slack",
    "3": "1-slack",
    "4": "1-slack",
}
"""SVM^struct's ``-w`` algorithms: n-slack (0, 1 with shrinking) and 1-slack (2 primal, 3 dual,
4 dual with a constraint cache); the working-set QPs here differ, the problem is the same."""

SOLVER_NAMES = ("n-slack", "1-slack", "bcfw")


def default_solver(slack_norm: int) -> str:
    """Return the solver used without ``-w``.

    SVM^struct's default, 1-slack (``-w 4``); but n-slack with squared slacks, whose objective
    (C/2) Σ ξᵢ² is SVM^struct's ``-p 2`` (the 1-slack solver squares the sum of the slacks).
    """
    return "n-slack" if slack_norm == 2 else "1-slack"


def solver_for(algorithm: str) -> str:
    """Return the solver for ``-w``: an SVM^struct algorithm number or a solver name.

    Raises
    ------
    argparse.ArgumentTypeError
        For any other value (so argparse reports it as an invalid ``-w``).
    """
    if algorithm in SOLVER_NAMES:
        return algorithm
    if algorithm in SOLVERS_BY_ALGORITHM:
        return SOLVERS_BY_ALGORITHM[algorithm]
    raise argparse.ArgumentTypeError(
        f"expected 0, 1 (n-slack), 2, 3, 4 (1-slack) or a solver name "
        f"({', '.join(SOLVER_NAMES)}), got {algorithm!r}"
    )


def structured_C(c: float | None, C: float | None, n_examples: int) -> float:
    """Return StructuredSVM's C from ``-c c`` (``c / n``) or ``--C C`` (C itself)."""
    return C if C is not None else c / n_examples


def multiclass_loss_scale(C: float | None) -> float:
    """Return the cost of a wrong class: SVM^multiclass's with ``-c``, 1 with ``--C``."""
    return 1.0 if C is not None else MULTICLASS_LOSS_SCALE


RESCALINGS = {1: "slack", 2: "margin"}
"""SVM^struct's ``-o``: its number of each of StructuredSVM's rescalings."""


def loss_options(rescaling: int, slack_norm: int) -> dict[str, Any]:
    """Return StructuredSVM's ``rescaling`` and ``slack_norm`` for ``-o`` and ``-p``."""
    return {"rescaling": RESCALINGS[rescaling], "slack_norm": slack_norm}


def chain_options(transition_order: int) -> dict[str, Any]:
    """Return ChainTask's parameters for SVM^hmm's ``--t``: 0, 1 or 2."""
    if transition_order == 0:
        return {"transitions": False}
    return {"order": transition_order}
