"""Collins' mistake bound for the structured perceptron on separable sequence data."""

import pytest

from structsvm import StructuredPerceptron, margin, mistake_bound, radius
from structsvm.datasets import make_separable
from tasks import ChainTask


@pytest.mark.parametrize("min_margin", [0.2, 0.4])
def test_updates_never_exceed_the_mistake_bound_on_chains(min_margin):
    task = ChainTask(n_labels=3, n_features=4)
    X, Y, u = make_separable(
        task,
        lambda rng: rng.normal(size=(int(rng.integers(2, 5)), task.n_features)),
        n_examples=40,
        min_margin=min_margin,
        random_state=5,
    )
    delta = margin(task, X, Y, u)
    assert delta >= min_margin
    R = radius(task, X)

    model = StructuredPerceptron(task, max_epochs=500, random_state=0).fit(X, Y)

    assert model.converged_
    assert 1 <= model.n_updates_ <= mistake_bound(R, delta)
    assert model.score(X, Y) == 1.0
