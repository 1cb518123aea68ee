"""Structured learners behave as scikit-learn estimators: parameters, clone, model selection."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from structsvm import StructuredPerceptron, StructuredSVM
from tasks import ChainTask, MulticlassTask


@pytest.fixture
def problems(points_around, label_sequences):
    """(task, X, Y) by kind of data.

    Flat data: X of shape (n, d) with a constant feature, y of shape (n,) in three classes.
    Sequences: X a list of (T, d) arrays, Y a list of label arrays of matching lengths.
    """
    centres = [[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]]
    return {
        "multiclass": (
            MulticlassTask(3, 3),
            *points_around(centres, 45, 0.5, seed=0, constant_feature=True),
        ),
        "sequence": (ChainTask(2, 2), *label_sequences(24, 2, (2, 5), 0.3, seed=1)),
    }


LEARNERS = {
    "ssvm": lambda task: StructuredSVM(task, C=1.0, random_state=0),
    "perceptron": lambda task: StructuredPerceptron(task, max_epochs=5, random_state=0),
}
DATA = ["multiclass", "sequence"]


@pytest.mark.parametrize("learner", LEARNERS)
def test_get_params_lists_the_constructor_arguments_and_set_params_changes_them(learner):
    model = LEARNERS[learner](MulticlassTask(3, 2))
    params = model.get_params()
    assert "task" in params
    model.set_params(random_state=7)
    assert model.get_params()["random_state"] == 7


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("data", DATA)
def test_a_clone_is_unfitted_and_fits_to_the_same_weights(learner, data, problems):
    task, X, Y = problems[data]
    model = LEARNERS[learner](task).fit(X, Y)
    copy = clone(model)
    assert not hasattr(copy, "w_")
    assert copy.get_params().keys() == model.get_params().keys()
    np.testing.assert_allclose(copy.fit(X, Y).w_, model.w_)


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("data", DATA)
def test_cross_val_score_splits_flat_and_list_data(learner, data, problems):
    task, X, Y = problems[data]
    scores = cross_val_score(LEARNERS[learner](task), X, Y, cv=KFold(3))
    assert scores.shape == (3,)
    assert np.all(scores > 0.8)


@pytest.mark.parametrize("data", DATA)
def test_grid_search_over_C_refits_the_best_structural_svm(data, problems):
    task, X, Y = problems[data]
    search = GridSearchCV(StructuredSVM(task), {"C": [1e-4, 1.0]}, cv=KFold(3)).fit(X, Y)
    assert search.best_params_ == {"C": 1.0}
    assert search.best_estimator_.C == 1.0
    assert search.best_estimator_.score(X, Y) > 0.9


@pytest.mark.parametrize("learner", LEARNERS)
def test_fit_without_targets_says_that_y_is_required(learner, problems):
    task, X, _ = problems["multiclass"]
    with pytest.raises(ValueError, match="requires y to be passed"):
        LEARNERS[learner](task).fit(X, None)
