"""The stopping rule every solver shares, and what it makes of a pass that missed labellings."""

import warnings

import pytest

from structsvm import ConvergenceWarning, StructuredSVM
from structsvm.solvers._state import meets_tolerance
from tasks import MulticlassTask


@pytest.mark.parametrize(
    ("primal", "dual", "met"),
    [
        (100.0, 99.95, True),  # a gap of 0.05 within 1e-3 of the primal
        (100.0, 99.8, False),  # a gap of 0.2 beyond it
        (100.0, 100.0 + 1e-12, True),  # a primal under the dual by rounding only
        (100.0, 100.5, False),  # a primal under the dual: the pass missed a labelling
    ],
)
def test_the_gap_meets_the_tolerance_within_tol_times_the_primal_on_either_side(
    primal, dual, met
):
    assert meets_tolerance(primal, dual, 1e-3) is met


class MissesOnePass(MulticlassTask):
    """Multiclass, with an oracle that misses every violated labelling in one pass (an
    approximate oracle's worst pass): it returns the true classes."""

    def __init__(self, n_classes, n_features, missed_pass):
        super().__init__(n_classes, n_features)
        self.missed_pass = missed_pass
        self.passes = 0

    def compiled_oracle(self, X, Y):
        return None

    def batch_loss_augmented_argmax(self, X, Y, w):
        self.passes += 1
        if self.passes == self.missed_pass:
            return list(Y)
        return super().batch_loss_augmented_argmax(X, Y, w)


def test_a_pass_that_misses_every_violation_certifies_nothing(one_hot_multiclass):
    # Its slacks are all zero, so its primal objective falls below the dual: the fit does not
    # stop as converged there.
    _, X, y = one_hot_multiclass(n=40, noise=0.8)
    task = MissesOnePass(3, 4, missed_pass=2)
    model = StructuredSVM(task, C=1.0, solver="n-slack", tol=1e-3).fit(X, y)

    assert task.passes > 2
    missed = model.history_[1]
    assert missed["primal"] < missed["dual"]
    assert not meets_tolerance(missed["primal"], missed["dual"], 1e-3)


@pytest.mark.parametrize("solver", ["n-slack", "1-slack"])
def test_a_pass_that_adds_nothing_does_not_stall_a_fit_whose_next_pass_finds_more(
    one_hot_multiclass, solver
):
    # The iteration after the missed pass adds no constraint and leaves the dual where it
    # was; the pass it makes finds the violations again, so the fit goes on to the objective
    # of a fit whose every pass is exact, without a warning that it stalled.
    _, X, y = one_hot_multiclass(n=40, noise=0.8)
    exact = StructuredSVM(MulticlassTask(3, 4), C=1.0, solver=solver, tol=1e-3).fit(X, y)
    task = MissesOnePass(3, 4, missed_pass=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = StructuredSVM(task, C=1.0, solver=solver, tol=1e-3).fit(X, y)

    assert model.converged_
    assert model.history_[2]["dual"] == pytest.approx(model.history_[1]["dual"], rel=1e-9)
    assert model.primal_objective_ == pytest.approx(exact.primal_objective_, rel=2e-3)
