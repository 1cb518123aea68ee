"""TaxonomySVM: a classifier into the leaves of a tree read from label paths or parents."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import TaxonomySVM

PATHS = np.array(
    ["comp/sys/mac", "comp/sys/ibm", "comp/graphics", "rec/autos", "sci/med", "sci/space"]
)


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 6, 120)
    return rng.normal(scale=3.0, size=(6, 8))[y] + rng.normal(size=(120, 8)), y


def test_path_labels_are_predicted_back(blobs):
    X, y = blobs
    model = TaxonomySVM(C=1.0).fit(X, PATHS[y])
    assert model.classes_.tolist() == sorted(PATHS)
    assert model.score(X, PATHS[y]) > 0.9
    assert model.decision_function(X).shape == (120, 6)
    assert model.loss_matrix_[0].tolist() == [0, 3, 3, 4, 4, 4]  # from comp/graphics


def test_normalized_features_reach_the_task(blobs):
    X, y = blobs
    model = TaxonomySVM(features="normalized").fit(X, PATHS[y])
    assert model.task_.features == "normalized" and model.score(X, PATHS[y]) > 0.9


def test_sparse_inputs_give_the_same_model(blobs):
    X, y = blobs
    dense = TaxonomySVM(loss="zero_one", features="leaf").fit(X, PATHS[y])
    sparse = TaxonomySVM(loss="zero_one", features="leaf").fit(sp.csr_matrix(X), PATHS[y])
    np.testing.assert_allclose(sparse.svm_.w_, dense.svm_.w_, atol=1e-6)


def test_a_parent_array_takes_node_numbers_as_labels(blobs):
    X, y = blobs
    parents = [-1, 0, 0, 1, 1, 2, 2, 2, 1]  # leaves 3, 4, 5, 6, 7, 8
    leaves = np.array([3, 4, 5, 6, 7, 8])
    model = TaxonomySVM().fit(X, leaves[y])
    assert model.node_names_ is not None  # numbers read as one-level paths
    model = TaxonomySVM(parents=parents).fit(X, leaves[y])
    assert model.node_names_ is None and model.classes_.tolist() == leaves.tolist()
    assert set(model.predict(X)) <= set(leaves.tolist())
    with pytest.raises(ValueError, match="leaves of the tree"):
        TaxonomySVM(parents=parents).fit(X, np.where(y == 0, 1, leaves[y]))


def test_numeric_labels_keep_their_values():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    y = np.array([10, 2, 10, 2])
    model = TaxonomySVM(C=10.0).fit(X, y)
    assert model.predict(X).tolist() == y.tolist()


def test_slack_rescaling_reaches_the_structural_svm(blobs):
    X, y = blobs
    model = TaxonomySVM(rescaling="slack", normalize_loss=True).fit(X, PATHS[y])
    assert model.svm_.rescaling == "slack" and model.score(X, PATHS[y]) > 0.9
