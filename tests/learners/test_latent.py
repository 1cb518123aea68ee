"""The latent structural SVM: completion oracles against enumeration, CCCP's objective never
increasing (recomputed by enumeration), planted sub-classes recovered, check_task on both tasks."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from structsvm import LatentStructuredSVM, check_task
from tasks import LatentChainTask, LatentMulticlassTask


def _chain_data(n=6, length=4, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.standard_normal((length, n_features)) for _ in range(n)]
    Y = [rng.integers(0, 2, length) for _ in range(n)]
    return X, Y


def test_latent_argmax_matches_enumeration_on_both_tasks():
    rng = np.random.default_rng(1)
    multiclass = LatentMulticlassTask(n_classes=3, n_subclasses=4, n_features=5)
    chain = LatentChainTask(n_labels=2, n_substates=3, n_features=3)
    X_chain, Y_chain = _chain_data()
    cases = [
        (multiclass, rng.standard_normal((8, 5)), rng.integers(0, 3, 8)),
        (chain, X_chain, Y_chain),
    ]
    for task, X, Y in cases:
        for _ in range(5):
            w = rng.standard_normal(task.size_joint_feature)
            for x, y in zip(X, Y, strict=True):
                if task is multiclass:
                    hidden = [np.int64(h) for h in range(task.n_subclasses)]
                else:
                    hidden = [np.array(h) for h in itertools.product(range(3), repeat=len(y))]
                best = max(float(task.joint_feature(x, (y, h)) @ w) for h in hidden)
                found = task.latent_argmax(x, y, w)
                value = float(task.joint_feature(x, (y, found)) @ w)
                assert value == pytest.approx(best, abs=1e-9)


def _enumerated_objective(task, X, Y, w, C):
    """f(w) by enumerating every (y, h) of every example."""
    total = 0.0
    for x, y in zip(X, Y, strict=True):
        pairs = list(task.outputs(x))
        augmented = max(task.loss((y, 0), p) + float(task.joint_feature(x, p) @ w) for p in pairs)
        completed = max(
            float(task.joint_feature(x, p) @ w) for p in pairs if np.array_equal(p[0], y)
        )
        total += augmented - completed
    return 0.5 * float(w @ w) + C * total


@pytest.mark.parametrize("solver", ["1-slack", "n-slack"])
def test_cccp_objective_never_increases(solver):
    rng = np.random.default_rng(2)
    centres = rng.standard_normal((6, 4)) * 2
    subclass = rng.integers(0, 6, 60)
    X = centres[subclass] + 0.8 * rng.standard_normal((60, 4))
    Y = subclass % 2
    task = LatentMulticlassTask(n_classes=2, n_subclasses=3, n_features=4)
    C = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LatentStructuredSVM(
            task, C=C, solver=solver, tol=1e-4, max_outer=8, random_state=0
        ).fit(X, Y)
    objectives = [record["objective"] for record in model.history_]
    assert np.all(np.diff(objectives) <= 1e-9 * objectives[0])
    assert model.objective_ == pytest.approx(_enumerated_objective(task, X, Y, model.w_, C))
    for record in model.history_:
        assert record["objective"] <= record["inner_objective"] + 1e-9


def test_chain_objective_matches_enumeration_and_never_increases():
    X, Y = _chain_data(n=8, length=3)
    task = LatentChainTask(n_labels=2, n_substates=2, n_features=3)
    model = LatentStructuredSVM(task, C=1.0, tol=1e-4, max_outer=5, random_state=0).fit(X, Y)
    objectives = [record["objective"] for record in model.history_]
    assert np.all(np.diff(objectives) <= 1e-9 * objectives[0])
    assert model.objective_ == pytest.approx(_enumerated_objective(task, X, Y, model.w_, 1.0))
    assert all(len(y) == len(x) for x, y in zip(X, model.predict(X), strict=True))


def test_planted_subclasses_are_recovered():
    rng = np.random.default_rng(3)
    n_classes, n_subclasses, n_features = 2, 3, 6
    centres = 5.0 * np.eye(n_classes * n_subclasses, n_features)
    planted = rng.integers(0, n_classes * n_subclasses, 150)
    X = centres[planted] + 0.3 * rng.standard_normal((150, n_features))
    X = np.hstack([X, np.ones((150, 1))])
    Y = planted // n_subclasses
    task = LatentMulticlassTask(n_classes, n_subclasses, n_features + 1)
    model = LatentStructuredSVM(task, C=10.0, random_state=0).fit(X, Y)
    for label in range(n_classes):
        members = Y == label
        found = np.asarray(model.latent_)[members]
        assert adjusted_rand_score(planted[members], found) == pytest.approx(1.0)
    assert model.score(X, Y) == 1.0


def test_check_task_passes_on_both_latent_tasks():
    rng = np.random.default_rng(4)
    multiclass = LatentMulticlassTask(n_classes=3, n_subclasses=2, n_features=4)
    X, Y = rng.standard_normal((6, 4)), rng.integers(0, 3, 6)
    report = check_task(multiclass, X, Y)
    assert report.ok, str(report)
    assert report.n_enumerated == 6
    chain = LatentChainTask(n_labels=2, n_substates=2, n_features=3)
    X, Y = _chain_data(n=4, length=3)
    report = check_task(chain, X, Y)
    assert report.ok, str(report)
    assert report.n_enumerated == 4


def test_check_task_reports_a_wrong_latent_argmax():
    class FirstSubclass(LatentMulticlassTask):
        def latent_argmax(self, x, y, w):
            return 0

        def batch_latent_argmax(self, X, Y, w):
            return np.zeros(len(Y), dtype=np.int64)

    task = FirstSubclass(n_classes=2, n_subclasses=3, n_features=4)
    rng = np.random.default_rng(5)
    report = check_task(task, rng.standard_normal((4, 4)), rng.integers(0, 2, 4))
    assert any(
        problem.kind == "not_a_maximiser" and problem.method == "latent_argmax"
        for problem in report.problems
    )


def test_rejects_a_task_without_latent_variables():
    from tasks import MulticlassTask

    with pytest.raises(TypeError, match="LatentTask"):
        LatentStructuredSVM(MulticlassTask(2, 3)).fit(np.eye(3), [0, 1, 0])


def test_interrupt_keeps_the_last_completed_round(monkeypatch):
    rng = np.random.default_rng(6)
    X, Y = rng.standard_normal((30, 4)), rng.integers(0, 2, 30)
    task = LatentMulticlassTask(2, 2, 4)
    calls = {"n": 0}
    solve = LatentStructuredSVM._solve_round

    def interrupted_in_round_two(self, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return solve(self, *args)

    monkeypatch.setattr(LatentStructuredSVM, "_solve_round", interrupted_in_round_two)
    with pytest.warns(RuntimeWarning, match="last completed round"):
        model = LatentStructuredSVM(task, tol=1e-6, random_state=0).fit(X, Y)
    assert model.interrupted_ and model.n_outer_ == 1 and len(model.history_) == 1
    assert len(model.predict(X)) == 30
