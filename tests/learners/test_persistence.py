"""Fitted estimators survive model files, pickle and joblib round trips and predict exactly as
before."""

import inspect
import io
import pickle
import tempfile
from pathlib import Path

import joblib
import numpy as np
import pytest
import scipy.sparse

import structsvm
from structsvm import (
    SVR,
    BinarySVM,
    KernelMulticlassSVM,
    KernelPerceptron,
    KernelRidge,
    LatentStructuredSVM,
    MulticlassSVM,
    MultiLabelSVM,
    OneClassSVM,
    PerformanceSVM,
    RankingSVM,
    SequenceTagger,
    StructuredPerceptron,
    StructuredSVM,
    TaxonomySVM,
)
from structsvm._utils.estimator import BaseEstimator
from tasks import ChainTask, LatentMulticlassTask, MulticlassTask


@pytest.fixture
def data(label_sequences, points_around):
    """Training sets by name: label sequences, and flat data of three or of two classes."""
    return {
        "sequences": label_sequences(20, 3, (1, 5), 0.5, seed=0),
        "3 classes": points_around(np.eye(3), 40, 0.5, seed=1),
        "2 classes": points_around(np.eye(3)[:2], 40, 0.5, seed=1),
        "graded documents": _graded_documents(30, seed=2),
        "label sets": _label_sets(30, seed=3),
    }


def _graded_documents(n, seed):
    """Documents of one query with relevance grades 0 to 3 from a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.clip(np.round(X[:, 0] + 0.5 * rng.normal(size=n)), 0, 3)


def _label_sets(n, seed):
    """Inputs with three labels each, two of them thresholds of a feature and one their AND."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    on = X[:, :2] > 0
    return X, np.column_stack([on, on[:, 0] & on[:, 1]]).astype(int)


def pickle_round_trip(model):
    return pickle.loads(pickle.dumps(model))


def joblib_round_trip(model):
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


def model_file_round_trip(model):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "estimator.model")
        structsvm.save(model, path)
        return structsvm.load(path)


ROUND_TRIPS = [model_file_round_trip, pickle_round_trip, joblib_round_trip]


FITTED = {
    "perceptron on chains": lambda data: (
        StructuredPerceptron(ChainTask(3, 3), max_epochs=5, random_state=0),
        *data["sequences"],
    ),
    **{
        f"ssvm {solver} on chains": lambda data, solver=solver: (
            StructuredSVM(ChainTask(3, 3), solver=solver, random_state=0),
            *data["sequences"],
        )
        for solver in ("n-slack", "1-slack", "bcfw")
    },
    "ssvm dual-cd on multiclass": lambda data: (
        StructuredSVM(MulticlassTask(3, 3), solver="dual-cd", random_state=0),
        *data["3 classes"],
    ),
    "ssvm on multiclass": lambda data: (StructuredSVM(MulticlassTask(3, 3)), *data["3 classes"]),
    "MulticlassSVM": lambda data: (MulticlassSVM(), *data["3 classes"]),
    "KernelMulticlassSVM": lambda data: (KernelMulticlassSVM(max_iter=20), *data["3 classes"]),
    "LatentStructuredSVM": lambda data: (
        LatentStructuredSVM(LatentMulticlassTask(2, 2, 3), max_outer=2, random_state=0),
        *data["2 classes"],
    ),
    "PerformanceSVM": lambda data: (PerformanceSVM(C=100.0), *data["2 classes"]),
    "RankingSVM": lambda data: (RankingSVM(), *data["graded documents"]),
    "MultiLabelSVM on a tree": lambda data: (MultiLabelSVM(edges="tree"), *data["label sets"]),
    "TaxonomySVM": lambda data: (
        TaxonomySVM(),
        data["3 classes"][0],
        np.array(["a/x", "a/y", "b/z"])[data["3 classes"][1]],
    ),
    "BinarySVM": lambda data: (BinarySVM(C=1.0, kernel="rbf"), *data["2 classes"]),
    "KernelPerceptron": lambda data: (
        KernelPerceptron(kernel="poly", random_state=0),
        *data["2 classes"],
    ),
    "SVR": lambda data: (SVR(C=10.0), *data["2 classes"]),
    "SequenceTagger": lambda data: (
        SequenceTagger(segments=2, random_state=0),
        [[{"w": str(w)} for w in x.argmax(axis=1)] for x in data["sequences"][0]],
        [["B-X" if label else "O" for label in y] for y in data["sequences"][1]],
    ),
    "KernelRidge": lambda data: (KernelRidge(kernel="rbf"), *data["2 classes"]),
}


def test_every_public_estimator_is_tried(data):
    public = {
        name
        for name in structsvm.__all__
        if inspect.isclass(getattr(structsvm, name))
        and issubclass(getattr(structsvm, name), BaseEstimator)
    }
    tried = {type(make(data)[0]).__name__ for make in FITTED.values()}
    # The outlier detector has its own test below; the vectorizer is saved with the tagger.
    assert public == tried | {"OneClassSVM", "SequenceVectorizer"}


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
@pytest.mark.parametrize("name", FITTED)
def test_a_restored_model_predicts_what_the_original_predicted(name, round_trip, data):
    model, X, Y = FITTED[name](data)
    model.fit(X, Y)
    restored = round_trip(model)
    assert type(restored) is type(model)
    assert restored.get_params().keys() == model.get_params().keys()
    for before, after in zip(model.predict(X), restored.predict(X)):
        np.testing.assert_array_equal(after, before)
    assert restored.score(X, Y) == model.score(X, Y)


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_a_restored_outlier_detector_scores_what_the_original_scored(round_trip, data):
    X, _ = data["2 classes"]
    model = OneClassSVM(nu=0.2).fit(X)
    restored = round_trip(model)
    np.testing.assert_array_equal(restored.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    assert restored.offset_ == model.offset_


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


CONTINUED = {
    **{
        f"ssvm {solver} on multiclass": lambda data, solver=solver: (
            StructuredSVM(MulticlassTask(3, 3), solver=solver, random_state=0, tol=1e-8),
            *data["3 classes"],
        )
        for solver in ("n-slack", "1-slack", "dual-cd")
    },
    **{
        f"ssvm {solver} on chains": lambda data, solver=solver: (
            StructuredSVM(ChainTask(3, 3), solver=solver, random_state=0, tol=1e-8),
            *data["sequences"],
        )
        for solver in ("n-slack", "1-slack", "bcfw")
    },
    "perceptron": lambda data: (
        StructuredPerceptron(ChainTask(3, 3), max_epochs=2, random_state=0),
        *data["sequences"],
    ),
    "KernelMulticlassSVM": lambda data: (KernelMulticlassSVM(tol=1e-8), *data["3 classes"]),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", CONTINUED)
def test_a_fit_continued_from_a_checkpoint_file_continues_as_in_memory(name, data, tmp_path):
    model, X, Y = CONTINUED[name](data)
    budget = "max_epochs" if "perceptron" in name else "max_iter"
    model.set_params(**{budget: 2}).fit(X, Y)
    model.save_checkpoint(tmp_path / "fit.ckpt")
    resumed = type(model).load_checkpoint(tmp_path / "fit.ckpt")
    for estimator in (model, resumed):
        estimator.set_params(warm_start=True, **{budget: 3}).fit(X, Y)
    assert resumed.n_iter_ == model.n_iter_
    np.testing.assert_array_equal(
        resumed.predict(X) if "Kernel" in name else resumed.w_,
        model.predict(X) if "Kernel" in name else model.w_,
    )
    assert [r.keys() for r in resumed.history_] == [r.keys() for r in model.history_]
