"""Collins' mistake bound for the structured perceptron on separable sequence data."""

import numpy as np
import pytest

from structsvm import StructuredPerceptron, margin, mistake_bound, radius
from tasks import ChainTask


def planted_separable_chains(task, n_sequences, min_margin, random_state):
    """Sample chains labelled by a random unit separator u, each with margin >= min_margin."""
    rng = np.random.default_rng(random_state)
    u = rng.normal(size=task.size_joint_feature)
    u /= np.linalg.norm(u)
    X, Y = [], []
    while len(X) < n_sequences:
        x = rng.normal(size=(int(rng.integers(2, 5)), task.n_features))
        y = task.argmax(x, u)
        if margin(task, [x], [y], u) >= min_margin:
            X.append(x)
            Y.append(y)
    return X, Y, u


@pytest.mark.parametrize("min_margin", [0.2, 0.4])
def test_updates_never_exceed_the_mistake_bound_on_chains(min_margin):
    task = ChainTask(n_labels=3, n_features=4)
    X, Y, u = planted_separable_chains(task, 40, min_margin, random_state=5)
    delta = margin(task, X, Y, u)
    assert delta >= min_margin
    R = radius(task, X)

    model = StructuredPerceptron(task, max_epochs=500, random_state=0).fit(X, Y)

    assert model.converged_
    assert 1 <= model.n_updates_ <= mistake_bound(R, delta)
    assert model.score(X, Y) == 1.0
