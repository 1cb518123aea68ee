"""TaxonomyTask: path features, tree losses and oracles against the enumeration of the leaves."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import check_task
from tasks import TaxonomyTask, taxonomy_from_paths

PATHS = ["comp/sys/mac", "comp/sys/ibm", "comp/graphics", "rec/autos", "sci/med", "sci/space"]


@pytest.fixture
def taxonomy():
    return taxonomy_from_paths(PATHS)


def test_the_tree_has_a_node_per_prefix_and_the_classes_as_leaves(taxonomy):
    assert taxonomy.names[0] == "" and taxonomy.parents[0] == -1
    parent = {
        name: taxonomy.names[p] for name, p in zip(taxonomy.names, taxonomy.parents, strict=True)
    }
    assert parent["comp/sys/mac"] == "comp/sys" and parent["comp/sys"] == "comp"
    assert parent["comp"] == ""
    assert [taxonomy.names[node] for node in taxonomy.nodes] == PATHS
    task = TaxonomyTask(taxonomy.parents, 2)
    assert [taxonomy.names[leaf] for leaf in task.leaves] == sorted(PATHS)


def test_a_class_that_is_the_prefix_of_another_is_refused():
    with pytest.raises(ValueError, match="prefixes of other classes"):
        taxonomy_from_paths(["comp/sys", "comp/sys/mac", "rec"])
    with pytest.raises(ValueError, match="empty part"):
        taxonomy_from_paths(["comp//mac", "rec"])


def test_parents_must_form_one_tree():
    with pytest.raises(ValueError, match="exactly one root"):
        TaxonomyTask([-1, -1, 0], 2)
    with pytest.raises(ValueError, match="cycle"):
        TaxonomyTask([-1, 2, 3, 1], 2)


def leaf_index(taxonomy, task, path):
    return int(np.flatnonzero(task.leaves == taxonomy.names.index(path))[0])


def test_losses_count_edges_and_heights_of_common_ancestors(taxonomy):
    tree = TaxonomyTask(taxonomy.parents, 1, loss="tree")
    lca = TaxonomyTask(taxonomy.parents, 1, loss="lca")
    zero_one = TaxonomyTask(taxonomy.parents, 1, loss="zero_one")
    mac, ibm, graphics, autos = (
        leaf_index(taxonomy, tree, path)
        for path in ("comp/sys/mac", "comp/sys/ibm", "comp/graphics", "rec/autos")
    )
    assert tree.loss(mac, ibm) == 2 and tree.loss(mac, graphics) == 3
    assert tree.loss(mac, autos) == 5 and tree.loss(mac, mac) == 0
    assert lca.loss(mac, ibm) == 1 and lca.loss(mac, graphics) == 2 and lca.loss(mac, autos) == 3
    assert zero_one.loss(mac, autos) == 1 and tree.max_loss(mac) == 5


def joint_feature_by_hand(task, x, leaf):
    """λ(depth) x in the block of every ancestor of the leaf (itself and the root included)."""
    phi = np.zeros((len(task.parents), len(x)))
    node = task.leaves[leaf]
    while node >= 0:
        phi[node] = task.level_weights[task.depths[node]] * x
        node = task.parents[node]
    return phi.ravel()


def test_path_features_put_x_in_every_ancestors_block(taxonomy):
    task = TaxonomyTask(taxonomy.parents, 3, level_weights=[0.5, 1.0, 2.0, 3.0])
    x = np.array([1.0, -2.0, 0.5])
    for leaf in range(task.n_leaves):
        np.testing.assert_array_equal(
            task.joint_feature(x, leaf), joint_feature_by_hand(task, x, leaf)
        )


def test_flat_features_are_one_block_per_leaf(taxonomy):
    task = TaxonomyTask(taxonomy.parents, 2, features="leaf")
    assert task.size_joint_feature == 6 * 2
    assert task.joint_feature(np.array([1.0, 2.0]), 4).tolist() == [0] * 8 + [1, 2, 0, 0]


@pytest.mark.parametrize("loss", ["zero_one", "tree", "lca"])
@pytest.mark.parametrize("features", ["path", "normalized", "leaf"])
def test_the_oracles_find_the_best_leaf_by_enumeration(taxonomy, loss, features):
    rng = np.random.default_rng(0)
    task = TaxonomyTask(taxonomy.parents, 4, loss=loss, features=features)
    X, Y = rng.normal(size=(30, 4)), rng.integers(0, task.n_leaves, 30)
    for _ in range(5):
        w = rng.normal(size=task.size_joint_feature)
        for x, y in zip(X, Y, strict=True):
            scores = [task.joint_feature(x, leaf) @ w for leaf in range(task.n_leaves)]
            values = [task.loss(y, leaf) + scores[leaf] for leaf in range(task.n_leaves)]
            assert task.argmax(x, w) == int(np.argmax(scores))
            assert task.loss_augmented_argmax(x, y, w) == int(np.argmax(values))


@pytest.fixture(params=["dense", "sparse"])
def inputs(request):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 5))
    X[X < 0.3] = 0.0
    return (sp.csr_matrix(X) if request.param == "sparse" else X), rng.integers(0, 6, 25)


@pytest.mark.parametrize("loss", ["zero_one", "tree", "lca"])
@pytest.mark.parametrize("features", ["path", "normalized", "leaf"])
def test_check_task_passes(taxonomy, inputs, loss, features):
    task = TaxonomyTask(taxonomy.parents, 5, loss=loss, features=features)
    X, Y = task.check_data(*inputs)
    assert check_task(task, X, Y).ok


@pytest.mark.parametrize("features", ["path", "normalized", "leaf"])
def test_the_compiled_oracle_answers_as_the_python_methods(taxonomy, inputs, features):
    task = TaxonomyTask(taxonomy.parents, 5, features=features, level_weights=[0, 1, 2, 1])
    X, Y = task.check_data(*inputs)
    oracle = task.compiled_oracle(X, Y)
    scores, decode, phi, loss = oracle.functions()[:4]
    rng = np.random.default_rng(2)
    for _ in range(5):
        w = rng.normal(size=task.size_joint_feature)
        for i in range(len(Y)):
            best = decode(oracle.data, i, w, scores(oracle.data, i, w), False)
            violating = decode(oracle.data, i, w, scores(oracle.data, i, w), True)
            assert oracle.output(best) == task.argmax(X[i], w)
            assert oracle.output(violating) == task.loss_augmented_argmax(X[i], Y[i], w)
            indices, values = phi(oracle.data, i, violating)
            expected_indices, expected_values = task.sparse_joint_feature(X[i], violating[0])
            np.testing.assert_array_equal(indices, expected_indices)
            np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-15)
            assert loss(oracle.data, i, violating) == task.loss(Y[i], violating[0])


def test_normalized_paths_weigh_one_and_share_the_ancestors_blocks(taxonomy):
    task = TaxonomyTask(taxonomy.parents, 2, features="normalized")
    x = np.array([3.0, -4.0])
    for leaf in range(task.n_leaves):
        phi = task.joint_feature(x, leaf).reshape(-1, 2)
        assert np.linalg.norm(phi) == pytest.approx(5.0)
        assert np.all(phi[0] == 0.0)  # the root, shared by every class, has no block
        on_path = np.flatnonzero(np.any(phi != 0.0, axis=1))
        assert set(on_path) <= set(task.paths[leaf])
    mac, ibm = (
        int(np.searchsorted(task.leaves, taxonomy.names.index(name)))
        for name in ("comp/sys/mac", "comp/sys/ibm")
    )
    shared = [taxonomy.names.index(name) for name in ("comp", "comp/sys")]
    assert np.all(task.embedding[shared, ibm] > 0.0)
    np.testing.assert_array_equal(task.embedding[shared, ibm], task.embedding[shared, mac])


def test_normalized_features_of_a_star_are_the_flat_ones():
    star = taxonomy_from_paths(["a", "b", "c"])
    normalized = TaxonomyTask(star.parents, 2, features="normalized")
    flat = TaxonomyTask(star.parents, 2, features="leaf")
    x = np.array([1.0, 2.0])
    for leaf in range(3):
        np.testing.assert_allclose(
            normalized.joint_feature(x, leaf)[2:], flat.joint_feature(x, leaf)
        )


def test_a_chain_of_only_children_weighs_as_one_node():
    chained = taxonomy_from_paths(["a/b/c", "a/d", "e/f/g"])
    task = TaxonomyTask(chained.parents, 1, features="normalized")
    shares = task.embedding**2
    top, below = chained.names.index("e"), [chained.names.index(n) for n in ("e/f", "e/f/g")]
    assert shares[top, 2] == pytest.approx(1.0) and np.all(shares[below] == 0.0)
    assert shares[chained.names.index("a"), 0] == pytest.approx(0.5)
    assert shares[chained.names.index("a/b"), 0] == pytest.approx(0.5)
    assert shares[chained.names.index("a/d"), 1] == pytest.approx(0.5)


def test_level_weights_of_zero_leave_their_blocks_out(taxonomy):
    task = TaxonomyTask(taxonomy.parents, 2, level_weights=[0.0, 1.0, 1.0, 1.0])
    root_block = task.joint_feature(np.array([1.0, 1.0]), 0)[:2]
    assert root_block.tolist() == [0.0, 0.0]
    assert 0 not in task.path_blocks


def test_a_normalized_loss_averages_one_over_distinct_leaves(taxonomy):
    tree = TaxonomyTask(taxonomy.parents, 1, loss="tree")
    normalized = TaxonomyTask(taxonomy.parents, 1, loss="tree", normalize_loss=True)
    off_diagonal = ~np.eye(6, dtype=bool)
    assert normalized.loss_matrix[off_diagonal].mean() == pytest.approx(1.0)
    ratio = normalized.loss_matrix[off_diagonal] / tree.loss_matrix[off_diagonal]
    np.testing.assert_allclose(ratio, ratio[0])


def test_the_slack_rescaled_oracle_finds_the_best_leaf_by_enumeration(taxonomy):
    rng = np.random.default_rng(3)
    task = TaxonomyTask(taxonomy.parents, 4, loss="tree")
    X, Y = rng.normal(size=(30, 4)), rng.integers(0, task.n_leaves, 30)
    w = rng.normal(size=task.size_joint_feature)
    for x, y in zip(X, Y, strict=True):
        true_score = task.joint_feature(x, y) @ w
        values = [
            task.loss(y, leaf) * (1 + task.joint_feature(x, leaf) @ w - true_score)
            for leaf in range(task.n_leaves)
        ]
        assert task.slack_rescaled_argmax(x, y, w) == int(np.argmax(values))
