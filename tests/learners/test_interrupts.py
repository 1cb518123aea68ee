"""Interrupts at any moment of a fit: the estimator keeps its last completed iteration.

Faults are injected as real SIGINTs, sent from a timer thread at random moments of a fit
(Python code, Numba-compiled oracles, QP solves, checkpoint writes), and as a
KeyboardInterrupt surfacing from compiled code as a SystemError. Every time, the estimator
must predict and score (or be cleanly unfitted if no iteration completed), and a fit with
``warm_start=True`` must reach exactly the result of one uninterrupted fit.
"""

import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from structsvm import KernelMulticlassSVM, StructuredPerceptron, StructuredSVM
from structsvm.learners._iterative import is_interrupt
from tasks import ChainTask, MulticlassTask

# Faults injected per estimator; raise it to search harder (the outcomes print with -s).
TRIALS = int(os.environ.get("STRUCTSVM_FAULT_TRIALS", "6"))


def quietly(fit, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args)


def fit_interrupted_after(model, X, Y, delay):
    """Fit with a SIGINT sent ``delay`` seconds after the start; return the estimator.

    The SIGINT handler raises KeyboardInterrupt only inside ``fit``, so an early or late
    signal cannot hit the test itself.
    """
    fit_code = type(model).fit.__code__

    def handler(signum, frame):
        while frame is not None:
            if frame.f_code is fit_code:
                raise KeyboardInterrupt
            frame = frame.f_back

    previous = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(delay, signal.raise_signal, (signal.SIGINT,))
    try:
        timer.start()
        quietly(model.fit, X, Y)
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)
    return model


# Each estimator with an explicit iteration budget, so that a resumed fit can be given the
# rest of it and end exactly where one uninterrupted fit does, converged or not.
CASES = {
    "n-slack on multiclass": lambda p: (
        StructuredSVM(p["multiclass"][0], solver="n-slack", tol=1e-5, max_iter=200),
        "multiclass",
    ),
    "1-slack on chains": lambda p: (
        StructuredSVM(p["chain"][0], solver="1-slack", tol=1e-5, max_iter=300),
        "chain",
    ),
    "n-slack on chains, two worker processes": lambda p: (
        StructuredSVM(p["chain"][0], solver="n-slack", tol=1e-5, max_iter=200, n_jobs=2),
        "chain",
    ),
    "bcfw on chains": lambda p: (
        StructuredSVM(p["chain"][0], solver="bcfw", tol=1e-3, max_iter=100, random_state=0),
        "chain",
    ),
    "perceptron on chains": lambda p: (
        StructuredPerceptron(p["chain"][0], max_epochs=30, averaged=True, random_state=0),
        "chain",
    ),
    "kernel multiclass SVM": lambda p: (
        KernelMulticlassSVM(C=10.0, kernel="poly", degree=2, tol=1e-6, max_iter=200),
        "ordinal",
    ),
}


# Cases that start worker processes on every fit get fewer faults.
SLOW_CASES = {"n-slack on chains, two worker processes"}


@pytest.fixture
def problems(multiclass_problem, chain_problem, ordinal_classes):
    return {
        "multiclass": multiclass_problem(n=60),
        "chain": chain_problem(n_sequences=60),
        "ordinal": (None, *ordinal_classes(n=80)),
    }


def resume(model, X, Y, budget):
    """Continue a fit with what is left of ``budget`` iterations; return the estimator."""
    done = getattr(model, "n_iter_", 0)
    model.set_params(warm_start=True, checkpoint=None)
    if done < budget:
        quietly(model.set_params(**{model._budget[0]: budget - done}).fit, X, Y)
    return model


def same_model(model, reference):
    if isinstance(model, KernelMulticlassSVM):
        np.testing.assert_array_equal(model.support_, reference.support_)
        np.testing.assert_allclose(model.dual_coef_, reference.dual_coef_, rtol=1e-8, atol=1e-12)
    else:
        np.testing.assert_allclose(model.w_, reference.w_, rtol=1e-9, atol=1e-12)
    assert model.n_iter_ == reference.n_iter_


@pytest.mark.parametrize("case", CASES)
def test_a_sigint_at_a_random_moment_keeps_a_usable_model_that_resumes_exactly(
    case, problems, tmp_path
):
    reference, data = CASES[case](problems)
    _, X, Y = problems[data]
    start = time.perf_counter()
    quietly(reference.fit, X, Y)
    duration = time.perf_counter() - start
    rng = np.random.default_rng(sum(map(ord, case)))
    outcomes = {"finished": 0, "interrupted": 0, "unfitted": 0}
    trials = max(2, TRIALS // 3) if case in SLOW_CASES else TRIALS
    for trial in range(trials):
        model, _ = CASES[case](problems)
        if trial % 2:  # interrupts also land in checkpoint writes
            model.set_params(checkpoint=tmp_path / f"{trial}.ckpt", checkpoint_every=1)
        fit_interrupted_after(model, X, Y, rng.uniform(0.0, duration))
        if not model.interrupted_:
            outcomes["finished"] += 1
        elif not hasattr(model, "n_iter_"):
            outcomes["unfitted"] += 1
            with pytest.raises(NotFittedError):
                model.predict(X)
        else:
            outcomes["interrupted"] += 1
            assert len(model.history_) >= 1
            assert len(model.predict(X)) == len(X)
            assert np.isfinite(model.score(X, Y))
        budget = reference.get_params()[reference._budget[0]]
        if trial % 2 and (tmp_path / f"{trial}.ckpt").exists():
            loaded = type(model).load_checkpoint(tmp_path / f"{trial}.ckpt")
            assert loaded.n_iter_ <= model.n_iter_
            same_model(resume(loaded, X, Y, budget), reference)
        resumed = resume(model, X, Y, budget)
        assert not resumed.interrupted_
        same_model(resumed, reference)
    print(f"{case}: {outcomes}")
    assert sum(outcomes.values()) == trials


class SystemErrorFromInterrupt(MulticlassTask):
    """Its loss-augmented oracle fails once, as a SIGINT inside compiled code does."""

    def __init__(self, *args, at, **kwargs):
        super().__init__(*args, **kwargs)
        self.at = at
        self.calls = 0

    def batch_loss_augmented_argmax(self, X, Y_true, w):
        self.calls += 1
        if self.calls == self.at:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as interrupt:
                raise SystemError("returned a result with an exception set") from interrupt
        return super().batch_loss_augmented_argmax(X, Y_true, w)


@pytest.mark.parametrize("solver", ["n-slack", "1-slack", "bcfw"])
def test_an_interrupt_surfacing_from_compiled_code_is_an_interrupt(solver, multiclass_problem):
    task, X, Y = multiclass_problem(n=60)
    settings = {"solver": solver, "max_iter": 60, "random_state": 0}
    reference = quietly(StructuredSVM(task, **settings).fit, X, Y)
    model = StructuredSVM(
        SystemErrorFromInterrupt(3, 3, loss_matrix=task.loss_matrix, at=4), **settings
    )
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert model.interrupted_ and model.n_iter_ == len(model.history_) - 1
    model.predict(X)
    resume(model, X, Y, budget=60)
    np.testing.assert_allclose(model.w_, reference.w_, rtol=1e-9, atol=1e-12)


def test_other_system_errors_are_not_taken_for_interrupts(multiclass_problem):
    class Broken(MulticlassTask):
        def batch_loss_augmented_argmax(self, X, Y_true, w):
            raise SystemError("a real bug")

    _, X, Y = multiclass_problem(n=20)
    with pytest.raises(SystemError, match="a real bug"):
        StructuredSVM(Broken(3, 3)).fit(X, Y)


def test_a_fresh_fit_interrupted_before_its_first_iteration_is_left_unfitted(
    multiclass_problem,
):
    task, X, Y = multiclass_problem(n=20)
    fitted = StructuredSVM(task, random_state=0).fit(X, Y)  # an earlier fit, other settings
    broken = SystemErrorFromInterrupt(3, 3, loss_matrix=task.loss_matrix, at=1)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        fitted.set_params(task=broken, C=2.0).fit(X, Y)
    assert fitted.interrupted_
    assert not hasattr(fitted, "w_") and not hasattr(fitted, "n_iter_")
    with pytest.raises(NotFittedError):
        fitted.predict(X)
    cold = StructuredSVM(task, C=2.0, random_state=0).fit(X, Y)
    fitted.set_params(task=task, warm_start=True).fit(X, Y)
    np.testing.assert_allclose(fitted.w_, cold.w_, rtol=1e-12)


def test_a_continued_fit_interrupted_before_its_first_iteration_keeps_the_earlier_model(
    multiclass_problem,
):
    task, X, Y = multiclass_problem(n=60)
    interrupting = SystemErrorFromInterrupt(3, 3, loss_matrix=task.loss_matrix, at=0)
    model = quietly(StructuredSVM(interrupting, max_iter=3, tol=1e-8, warm_start=True).fit, X, Y)
    assert not model.converged_
    before = model.w_.copy()
    interrupting.at = interrupting.calls + 1  # the first oracle pass of the continued fit
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert model.interrupted_ and model.n_iter_ == 3
    np.testing.assert_array_equal(model.w_, before)


def test_an_interrupt_in_a_chain_fit_on_compiled_oracles_keeps_the_last_iteration():
    # A ChainTask whose batch oracle (Numba Viterbi) is interrupted on its third pass.
    class Interrupted(ChainTask):
        calls = 0

        def batch_loss_augmented_argmax(self, X, Y_true, w):
            Interrupted.calls += 1
            if Interrupted.calls == 3:
                raise KeyboardInterrupt
            return super().batch_loss_augmented_argmax(X, Y_true, w)

    rng = np.random.default_rng(0)
    Y = [rng.integers(0, 3, size=5) for _ in range(20)]
    X = [np.eye(3)[y] + 0.5 * rng.normal(size=(5, 3)) for y in Y]
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model = StructuredSVM(Interrupted(3, 3), solver="1-slack").fit(X, Y)
    assert model.n_iter_ == 1 and len(model.history_) == 2
    assert len(model.predict(X)) == len(X)


def chained(first, *wrappers):
    """Return the last of ``wrappers`` raised from the one before, the first from ``first``."""
    error = first
    for wrapper in wrappers:
        try:
            raise wrapper from error
        except BaseException as caught:
            error = caught
    return error


def test_a_chain_of_system_errors_from_an_interrupt_is_an_interrupt():
    # A compiled pass handing back several arrays fails on each in turn after a SIGINT.
    nested = chained(KeyboardInterrupt(), *(SystemError("an exception set") for _ in range(3)))
    assert is_interrupt(nested)
    assert not is_interrupt(chained(ValueError("a bug"), SystemError("returned a result")))
    assert not is_interrupt(SystemError("a real bug"))


class InterruptedInsideErrorState(MulticlassTask):
    """Its oracle is interrupted inside NumPy's error-state context, before its exit.

    As a SIGINT can land in ``np.errstate.__enter__`` of an ``np.linalg`` call once the state
    is set and before the context is entered, leaving the state set.
    """

    def batch_loss_augmented_argmax(self, X, Y_true, w):
        np.errstate(invalid="raise", call=print).__enter__()
        raise KeyboardInterrupt


@pytest.mark.parametrize("solver", ["n-slack", "bcfw"])
def test_an_interrupted_fit_leaves_numpys_error_state_as_it_found_it(solver, multiclass_problem):
    _, X, Y = multiclass_problem(n=20)
    before = np.geterr(), np.geterrcall()
    model = StructuredSVM(InterruptedInsideErrorState(3, 3), solver=solver, max_iter=3)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        model.fit(X, Y)
    assert (np.geterr(), np.geterrcall()) == before
    assert np.isnan(np.array(np.inf) - np.inf)  # no error raised, as before the fit
