"""Fitted estimators survive pickle and joblib round trips and predict exactly as before."""

import io
import pickle

import joblib
import numpy as np
import pytest
import scipy.sparse

from structsvm import (
    BinarySVM,
    KernelPerceptron,
    MulticlassSVM,
    StructuredPerceptron,
    StructuredSVM,
)
from tasks import ChainTask, MulticlassTask


def sequences():
    rng = np.random.default_rng(0)
    X, Y = [], []
    for _ in range(20):
        labels = rng.integers(0, 3, size=rng.integers(1, 6))
        X.append(np.eye(3)[labels] + 0.5 * rng.normal(size=(len(labels), 3)))
        Y.append(labels)
    return X, Y


def flat(n_classes):
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, size=40)
    return np.eye(3)[y] + 0.5 * rng.normal(size=(40, 3)), y


def pickle_round_trip(model):
    return pickle.loads(pickle.dumps(model))


def joblib_round_trip(model):
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


FITTED = {
    "perceptron on chains": lambda: (
        StructuredPerceptron(ChainTask(3, 3), max_epochs=5, random_state=0),
        *sequences(),
    ),
    **{
        f"ssvm {solver} on chains": lambda solver=solver: (
            StructuredSVM(ChainTask(3, 3), solver=solver, random_state=0),
            *sequences(),
        )
        for solver in ("n-slack", "1-slack", "bcfw")
    },
    "ssvm on multiclass": lambda: (StructuredSVM(MulticlassTask(3, 3)), *flat(3)),
    "MulticlassSVM": lambda: (MulticlassSVM(), *flat(3)),
    "BinarySVM": lambda: (BinarySVM(C=1.0, kernel="rbf"), *flat(2)),
    "KernelPerceptron": lambda: (KernelPerceptron(kernel="poly", random_state=0), *flat(2)),
}


@pytest.mark.parametrize("round_trip", [pickle_round_trip, joblib_round_trip])
@pytest.mark.parametrize("name", FITTED)
def test_a_restored_model_predicts_what_the_original_predicted(name, round_trip):
    model, X, Y = FITTED[name]()
    model.fit(X, Y)
    restored = round_trip(model)
    assert type(restored) is type(model)
    assert restored.get_params().keys() == model.get_params().keys()
    for before, after in zip(model.predict(X), restored.predict(X)):
        np.testing.assert_array_equal(after, before)
    assert restored.score(X, Y) == model.score(X, Y)


def test_the_data_digest_tells_sparse_dense_and_other_data_apart():
    from structsvm._utils.fingerprint import data_digest

    sentences = [scipy.sparse.csr_matrix(np.eye(3)), np.arange(4.0), np.int64(2), "label"]
    assert data_digest(sentences) == data_digest([s.copy() for s in sentences[:2]] + sentences[2:])
    changed = [scipy.sparse.csr_matrix(2 * np.eye(3)), *sentences[1:]]
    assert data_digest(changed) != data_digest(sentences)
    assert data_digest([np.array([1, 2])]) != data_digest([np.array([1.0, 2.0])])
    assert data_digest([np.array([[1, 2]])]) != data_digest([np.array([[1], [2]])])
    assert data_digest([np.array(["a", None], dtype=object)]) != data_digest(
        [np.array(["b", None], dtype=object)]
    )
