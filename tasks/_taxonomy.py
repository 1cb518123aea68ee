"""Classification into the leaves of a taxonomy, with losses and features that follow the tree.

After Cai & Hofmann (CIKM 2004) and Tsochantaridis et al. (JMLR 2005, section 4.1): the
classes are the leaves of a tree; φ(x, y) puts x into the block of every node on the path from
the root to y, so that classes sharing ancestors share weights; the loss may count how far apart
two classes lie in the tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from structsvm._compiled_oracle import CompiledOracle
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import (
    check_feature_array,
    check_labels,
    check_positive_int,
    check_weights,
)
from tasks._multiclass import SparseRows
from tasks._taxonomy_oracle import (
    taxonomy_decode,
    taxonomy_features,
    taxonomy_loss,
    taxonomy_scores,
)

LOSSES = ("zero_one", "tree", "lca")
FEATURES = ("path", "normalized", "leaf")


class Taxonomy(NamedTuple):
    """A tree read from class paths: its nodes' parents and names, and the node of each path.

    Attributes
    ----------
    parents : ndarray of shape (n_nodes,), int64
        The parent of every node, -1 for the root (node 0, named "").
    names : list of str
        Every node's path from the root, the parts joined by the separator; sorted.
    nodes : ndarray of shape (n_paths,), int64
        The node of every path given.
    """

    parents: np.ndarray
    names: list[str]
    nodes: np.ndarray


def taxonomy_from_paths(paths: Sequence[str], separator: str = "/") -> Taxonomy:
    """Return the tree whose leaves are the class ``paths`` (e.g. ``"comp/sys/mac"``).

    Every prefix of a path is a node; the root is the empty path.

    Raises
    ------
    ValueError
        If a path is empty, has an empty part, or is the prefix of another path (an inner node
        cannot be a class).
    """
    distinct = sorted({str(path) for path in paths})
    names = {""}
    for path in distinct:
        parts = path.split(separator)
        if not path or any(part == "" for part in parts):
            raise ValueError(f"class path {path!r} has an empty part (separator {separator!r})")
        names.update(separator.join(parts[: depth + 1]) for depth in range(len(parts)))
    ordered = sorted(names)
    index = {name: k for k, name in enumerate(ordered)}
    parents = np.full(len(ordered), -1, dtype=np.int64)
    for name in ordered[1:]:
        parents[index[name]] = index[name.rpartition(separator)[0] if separator in name else ""]
    inner = [path for path in distinct if np.any(parents == index[path])]
    if inner:
        raise ValueError(f"class paths {inner} are prefixes of other classes: classes are leaves")
    nodes = np.array([index[str(path)] for path in paths], dtype=np.int64)
    return Taxonomy(parents, ordered, nodes)


class TaxonomyTask(Task):
    """Multiclass classification where the classes are the leaves of a tree.

    x is a feature vector (dense or a sparse row); y is a leaf, numbered ``0..n_leaves-1`` in
    node order (``leaves[y]`` is its node). With ``features="path"`` the joint feature map puts
    ``λ(depth(v)) x`` into the block of every node v on the path from the root to y, so that
    ``w.reshape(n_nodes, n_features)`` holds one row per node and the score of y is the sum of
    its ancestors' scores (Cai & Hofmann 2004); ``features="normalized"`` puts ``√α(v) x``
    there instead, with node weights α that sum to 1 along every path (Choi, Sasaki & Srebro
    2016), so that every class's ``‖φ(x, y)‖`` is ``‖x‖``, as under the flat map, whatever its
    depth; ``features="leaf"`` keeps only y's own block, ``w.reshape(n_leaves, n_features)``:
    the flat Crammer–Singer map.

    Parameters
    ----------
    parents : array of shape (n_nodes,)
        The parent of every node and -1 for the one root; the leaves (nodes with no child)
        are the classes.
    n_features : int
    loss : {"zero_one", "tree", "lca"}, default="tree"
        0/1; the number of edges between the two leaves in the tree; or the height of their
        lowest common ancestor (its longest way down to a leaf), 0 for equal leaves.
    features : {"path", "normalized", "leaf"}, default="path"
        With ``"normalized"`` the root, shared by every class, has no block weight (α = 0);
        every other node v takes ``α(v) = (1 − A) / (b(v) + 1)``, A the weight of its
        ancestors and b(v) the most branching nodes (of two children or more) on a way down
        from v: an equal share of what is left for each level of branching below, a leaf all
        that is left. A chain of nodes with one child each weighs as one node: its top takes
        the share, the others none (their blocks are left off).
    level_weights : array of shape (depth + 1,), optional
        λ of every depth, the root's first (all ones by default); read with ``features="path"``.
    normalize_loss : bool, default=False
        Divide the loss by its mean over pairs of distinct leaves, so that it averages 1 as
        the 0/1 loss does. Scaling the loss by k is scaling C by 1/k (and w by k): without it,
        the tree loss asks margins of several units and acts as a much smaller C.

    Notes
    -----
    Ties between leaves go to the smallest leaf number.

    References
    ----------
    L. Cai and T. Hofmann, "Hierarchical document categorization with support vector
    machines", CIKM 2004.

    H. Choi, Y. Sasaki and N. Srebro, "Normalized hierarchical SVM", arXiv:1508.02479, 2016.
    """

    def __init__(
        self,
        parents: Any,
        n_features: int,
        loss: str = "tree",
        features: str = "path",
        level_weights: Any = None,
        normalize_loss: bool = False,
    ) -> None:
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        if features not in FEATURES:
            raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
        self.parents = _check_parents(parents)
        self.n_features = check_positive_int(n_features, "n_features")
        self.loss_name = loss
        self.features = features
        n_nodes = len(self.parents)
        self.depths = _depths(self.parents)
        has_child = np.zeros(n_nodes, dtype=bool)
        has_child[self.parents[self.parents >= 0]] = True
        self.leaves = np.flatnonzero(~has_child)
        if len(self.leaves) < 2:
            raise ValueError("the tree must have at least two leaves (classes)")
        self.n_leaves = len(self.leaves)
        if level_weights is None:
            self.level_weights = np.ones(self.depths.max() + 1)
        else:
            self.level_weights = check_feature_array(
                level_weights, "level_weights", ndim=1, n_features=self.depths.max() + 1
            )
        self.paths = [_path(self.parents, leaf) for leaf in self.leaves]
        self.normalize_loss = bool(normalize_loss)
        self.loss_matrix = self._loss_matrix(loss)
        if self.normalize_loss:
            self.loss_matrix /= self.loss_matrix.sum() / (self.n_leaves * (self.n_leaves - 1))
        if features != "leaf":
            self.n_blocks = n_nodes
            if features == "path":
                node_coefficients = self.level_weights[self.depths]
            else:
                node_coefficients = np.sqrt(_path_shares(self.parents, self.depths))
            # Nodes of weight 0 add nothing: their blocks are left off the paths.
            blocks = [np.sort(path[node_coefficients[path] != 0]) for path in self.paths]
            coefficients = [node_coefficients[path] for path in blocks]
        else:
            self.n_blocks = self.n_leaves
            blocks = [np.array([k]) for k in range(self.n_leaves)]
            coefficients = [np.ones(1) for _ in range(self.n_leaves)]
        self.path_offsets = np.zeros(self.n_leaves + 1, dtype=np.int64)
        np.cumsum([len(path) for path in blocks], out=self.path_offsets[1:])
        self.path_blocks = np.concatenate(blocks).astype(np.int64)
        self.path_coefficients = np.concatenate(coefficients).astype(np.float64)
        # Λ: column k holds the coefficient of every block on leaf k's path.
        self.embedding = np.zeros((self.n_blocks, self.n_leaves))
        for k in range(self.n_leaves):
            span = slice(self.path_offsets[k], self.path_offsets[k + 1])
            self.embedding[self.path_blocks[span], k] = self.path_coefficients[span]
        self.size_joint_feature = self.n_blocks * self.n_features

    def __repr__(self) -> str:
        return (
            f"TaxonomyTask(n_nodes={len(self.parents)}, n_leaves={self.n_leaves}, "
            f"n_features={self.n_features}, loss={self.loss_name!r}, features={self.features!r})"
        )

    def _loss_matrix(self, loss: str) -> np.ndarray:
        """Return the (n_leaves, n_leaves) losses of predicting leaf k for leaf j."""
        if loss == "zero_one":
            return 1.0 - np.eye(self.n_leaves)
        heights = _heights(self.parents, self.depths)
        matrix = np.zeros((self.n_leaves, self.n_leaves))
        for j, first in enumerate(self.paths):
            for k, second in enumerate(self.paths):
                if j == k:
                    continue
                common = np.intersect1d(first, second)
                ancestor = common[np.argmax(self.depths[common])]
                if loss == "tree":
                    distance = len(first) + len(second) - 2 * (self.depths[ancestor] + 1)
                    matrix[j, k] = distance
                else:
                    matrix[j, k] = heights[ancestor]
        return matrix

    # ----------------------------------------------------------------- single examples
    def joint_feature(self, x: Any, y: int) -> np.ndarray:
        """Return Λ[:, y] ⊗ x, shape (n_blocks * n_features,) (dense, also for a sparse x)."""
        row = x.toarray().ravel() if sp.issparse(x) else np.asarray(x, dtype=float)
        return np.outer(self.embedding[:, y], row).ravel()

    def loss(self, y_true: int, y: int) -> float:
        """Return ``loss_matrix[y_true, y]``."""
        return float(self.loss_matrix[y_true, y])

    def max_loss(self, y_true: int) -> float:
        """Return the largest loss in row ``y_true`` of the loss matrix."""
        return float(self.loss_matrix[y_true].max())

    def outputs(self, x: Any) -> range:
        """Every leaf."""
        return range(self.n_leaves)

    def argmax(self, x: Any, w: np.ndarray) -> int:
        """Return the leaf with the highest score."""
        return int(self.batch_argmax(_rows([x]), w)[0])

    def loss_augmented_argmax(self, x: Any, y_true: int, w: np.ndarray) -> int:
        """Return the leaf maximising ``loss_matrix[y_true, y] + score(y)``."""
        return int(self.batch_loss_augmented_argmax(_rows([x]), [y_true], w)[0])

    def check_data(self, X, Y=None):
        """Return X as a finite (n, n_features) array or CSR rows and Y as leaf numbers.

        Sparse inputs (a scipy.sparse matrix or a list of one-row matrices) come back as
        :class:`~tasks._multiclass.SparseRows`, which answer ``len``.
        """
        if sp.issparse(X) or (isinstance(X, list | tuple) and X and sp.issparse(X[0])):
            X = _rows(X)
            if X.shape[1] != self.n_features:
                raise ValueError(
                    f"X has {X.shape[1]} features per row, expected n_features={self.n_features}"
                )
            if not np.all(np.isfinite(X.data)):
                raise ValueError("X contains NaN or infinite values")
        else:
            X = check_feature_array(X, "X", ndim=2, n_features=self.n_features)
        if X.shape[0] == 0:
            raise ValueError("X is empty: expected at least one example")
        if Y is not None:
            Y = check_labels(Y, "Y", n_labels=self.n_leaves)
            if len(Y) != X.shape[0]:
                raise ValueError(
                    f"X and Y have different lengths: X has {X.shape[0]} examples, "
                    f"Y has {len(Y)}"
                )
        return X, Y

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        It scores the leaves on the stored entries of x_i and writes φ(x_i, y) on them, as
        :meth:`batch_joint_feature` does; ties to the smallest leaf. None for a subclass that
        overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, TaxonomyTask, _COMPILED_METHODS):
            return None
        rows = _rows(X)
        data = (
            rows.indptr.astype(np.int64),
            rows.indices.astype(np.int64),
            rows.data,
            np.asarray(Y, dtype=np.int64),
            self.loss_matrix,
            self.n_features,
            self.path_offsets,
            self.path_blocks,
            self.path_coefficients,
            self.n_blocks,
        )
        return CompiledOracle(
            data,
            taxonomy_scores,
            taxonomy_decode,
            taxonomy_features,
            taxonomy_loss,
            n_examples=rows.shape[0],
            to_output=_leaf_of,
        )

    # ----------------------------------------------------------------- vectorised batches
    def leaf_scores(self, X: Any, w: np.ndarray) -> np.ndarray:
        """Return the (n, n_leaves) scores: the block scores ``W[v] · x`` summed on each path."""
        w = check_weights(w, self.size_joint_feature, finite=False)
        weights = w.reshape(self.n_blocks, self.n_features)
        X = _rows(X) if _is_sparse(X) else np.asarray(X, dtype=float)
        scores = np.asarray(X @ weights.T) @ self.embedding
        if not np.all(np.isfinite(scores)):
            check_weights(w, self.size_joint_feature)
            raise ValueError("the scores of X under w overflow: they are not finite")
        return scores

    def batch_argmax(self, X, w) -> np.ndarray:
        """Return the best leaf of every row of X."""
        return np.argmax(self.leaf_scores(X, w), axis=1)

    def batch_loss_augmented_argmax(self, X, Y_true, w) -> np.ndarray:
        """Return the most violating leaf of every example."""
        Y_true = np.asarray(Y_true, dtype=np.int64)
        return np.argmax(self.leaf_scores(X, w) + self.loss_matrix[Y_true], axis=1)

    def slack_rescaled_argmax(self, x: Any, y_true: int, w: np.ndarray) -> int:
        """Return the leaf maximising ``Δ(y_true, y) (1 + score(y) − score(y_true))``."""
        return int(self.batch_slack_rescaled_argmax(_rows([x]), [y_true], w)[0])

    def batch_slack_rescaled_argmax(self, X, Y_true, w) -> np.ndarray:
        """Return the slack-rescaled most violating leaf of every example (ties: smallest)."""
        Y_true = np.asarray(Y_true, dtype=np.int64)
        scores = self.leaf_scores(X, w)
        true_scores = scores[np.arange(len(Y_true)), Y_true]
        values = self.loss_matrix[Y_true] * (1.0 + scores - true_scores[:, None])
        return np.argmax(values, axis=1)

    def batch_loss(self, Y_true, Y) -> np.ndarray:
        """Return ``loss_matrix[Y_true[i], Y[i]]`` for every example."""
        return self.loss_matrix[np.asarray(Y_true, dtype=np.int64), np.asarray(Y, dtype=np.int64)]

    def batch_joint_feature(self, X, Y) -> sp.csr_matrix:
        """Return the rows Λ[:, Y[i]] ⊗ X[i] on the stored entries of X[i], as a CSR matrix."""
        rows = _rows(X)
        paths = sp.csr_matrix(self.embedding[:, np.asarray(Y, dtype=np.int64)].T)
        return _row_kronecker(paths, rows, self.size_joint_feature)

    def batch_score(self, X, Y, w) -> np.ndarray:
        """Return the score of leaf Y[i] for every example."""
        scores = self.leaf_scores(X, w)
        return scores[np.arange(scores.shape[0]), np.asarray(Y, dtype=np.int64)]


_COMPILED_METHODS = (
    "loss_augmented_argmax",
    "argmax",
    "loss",
    "joint_feature",
    "sparse_joint_feature",
    "batch_joint_feature",
    "batch_loss",
    "batch_argmax",
    "batch_loss_augmented_argmax",
    "leaf_scores",
)


def _leaf_of(labels: np.ndarray) -> int:
    """Return the leaf whose labels are ``labels``."""
    return int(labels[0])


def _is_sparse(X: Any) -> bool:
    """Tell whether X is a sparse matrix or a list of sparse rows."""
    return sp.issparse(X) or (isinstance(X, list | tuple) and len(X) > 0 and sp.issparse(X[0]))


def _rows(X: Any) -> sp.csr_matrix:
    """Return inputs (an array, a sparse matrix, or a list of rows) as CSR rows, columns sorted.

    The rows are a :class:`~tasks._multiclass.SparseRows` matrix, which answers ``len``.
    """
    if sp.issparse(X):
        rows = sp.csr_matrix(X, dtype=np.float64, copy=True)
    elif isinstance(X, list | tuple) and len(X) > 0 and sp.issparse(X[0]):
        rows = sp.csr_matrix(sp.vstack([sp.csr_matrix(x).reshape(1, -1) for x in X]))
        rows = rows.astype(np.float64)
    else:
        rows = sp.csr_matrix(np.atleast_2d(np.asarray(X, dtype=np.float64)))
    rows.sum_duplicates()
    rows.eliminate_zeros()
    return SparseRows(rows)


def _row_kronecker(left: sp.csr_matrix, right: sp.csr_matrix, width: int) -> sp.csr_matrix:
    """Return the row-wise Kronecker product: row i is ``left[i] ⊗ right[i]``, columns sorted."""
    left.sum_duplicates()
    left_counts, right_counts = np.diff(left.indptr), np.diff(right.indptr)
    repeats = np.repeat(right_counts, left_counts)  # per entry of left: its row's right entries
    left_entry = np.repeat(np.arange(left.nnz), repeats)
    starts = np.repeat(right.indptr[:-1], left_counts)
    first = np.repeat(np.cumsum(repeats) - repeats, repeats)
    right_entry = np.repeat(starts, repeats) + np.arange(len(left_entry)) - first
    n_columns = right.shape[1]
    columns = left.indices[left_entry].astype(np.int64) * n_columns + right.indices[right_entry]
    values = left.data[left_entry] * right.data[right_entry]
    indptr = np.zeros(left.shape[0] + 1, dtype=np.int64)
    np.cumsum(left_counts * right_counts, out=indptr[1:])
    return sp.csr_matrix((values, columns, indptr), shape=(left.shape[0], width))


def _check_parents(parents: Any) -> np.ndarray:
    """Return a parent array as int64, checked to be a tree with one root (-1)."""
    array = np.asarray(parents)
    if array.ndim != 1 or len(array) < 3 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError("parents must be a 1-D integer array over at least 3 nodes")
    array = array.astype(np.int64)
    if np.count_nonzero(array == -1) != 1:
        raise ValueError("parents must have exactly one root (one entry -1)")
    if np.any(array < -1) or np.any(array >= len(array)):
        raise ValueError(f"parents must hold node numbers in [0, {len(array)}) or -1")
    _depths(array)
    return array


def _depths(parents: np.ndarray) -> np.ndarray:
    """Return every node's depth (the root's 0); raise ValueError on a cycle."""
    depths = np.full(len(parents), -1, dtype=np.int64)
    for node in range(len(parents)):
        chain = []
        current = node
        while current != -1 and depths[current] < 0:
            if len(chain) > len(parents):
                raise ValueError(f"parents has a cycle through node {node}: not a tree")
            chain.append(current)
            current = parents[current]
        depth = -1 if current == -1 else depths[current]
        for member in reversed(chain):
            depth += 1
            depths[member] = depth
    return depths


def _heights(parents: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """Return every node's height: the most edges from it down to a leaf."""
    heights = np.zeros(len(parents), dtype=np.int64)
    for node in np.argsort(-depths, kind="stable"):
        if parents[node] >= 0:
            heights[parents[node]] = max(heights[parents[node]], heights[node] + 1)
    return heights


def _path_shares(parents: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """Return every node's weight α, 0 for the root, summing to 1 along every root-leaf path.

    A node takes an equal share of what its ancestors left for each branching node on its
    longest way down, ``(1 − A) / (branchings + 1)``; a node with one child counts as that
    child, so the top of a chain takes the chain's share and the nodes under it none.
    """
    children = np.bincount(parents[parents >= 0], minlength=len(parents))
    branchings = np.zeros(len(parents), dtype=np.int64)  # branching nodes below, at most
    for node in np.argsort(-depths, kind="stable"):
        parent = parents[node]
        if parent >= 0:
            below = branchings[node] + (children[parent] > 1)
            branchings[parent] = max(branchings[parent], below)
    shares = np.zeros(len(parents))
    above = np.zeros(len(parents))  # the weight of every node's ancestors and itself
    for node in np.argsort(depths, kind="stable"):
        parent = parents[node]
        if parent >= 0:
            shares[node] = (1.0 - above[parent]) / (branchings[node] + 1)
            above[node] = above[parent] + shares[node]
    return shares


def _path(parents: np.ndarray, leaf: int) -> np.ndarray:
    """Return the nodes from the root down to ``leaf``."""
    nodes = [leaf]
    while parents[nodes[-1]] >= 0:
        nodes.append(parents[nodes[-1]])
    return np.array(nodes[::-1], dtype=np.int64)
