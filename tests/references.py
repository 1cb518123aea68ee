"""Independent ground truth for the tests: slow computations written from the definitions.

Nothing here calls the library's solvers or QP code. QPs with every constraint go to cvxopt
directly, optima and kernel values are found by enumeration or explicit feature maps, and the
learners are their textbook loops. Tasks and kernels come from the tests, which ask them only for
features, losses, oracles and kernel values.
"""

import itertools
from collections import Counter

import numpy as np
import scipy.sparse
from cvxopt import matrix, solvers
from sklearn.utils import check_random_state


# ------------------------------------------------------------------------ structural SVM
def solve_full_primal(task, X, Y, C, rescaling="margin", slack_norm=1, one_slack=False):
    """Return (w, ξ, objective) of the structural SVM with all constraints enumerated.

    The primal QP in the variables (w, ξ), with one constraint for every example i and every
    output y ≠ y_i, and ξ >= 0:

    * margin rescaling: w · ψ_i(y) >= Δ(y_i, y) − ξ_i;
    * slack rescaling: Δ(y_i, y) w · ψ_i(y) >= Δ(y_i, y) − ξ_i, that is
      ξ_i >= Δ(y_i, y) (1 − w · ψ_i(y)).

    The objective is ½‖w‖² + C Σ ξ_i (``slack_norm=1``), ½‖w‖² + (C/2) Σ ξ_i² (``slack_norm=2``)
    or, with ``one_slack`` and ``slack_norm=2``, ½‖w‖² + (C/2) (Σ ξ_i)²: the 1-slack problem
    with its one slack ξ = Σ_i ξ_i (with L1 slacks both formulations have the same optimum).
    """
    n, p = len(X), task.size_joint_feature
    rows, offsets = [], []
    for i, (x, y_true) in enumerate(zip(X, Y)):
        phi_true = task.joint_feature(x, y_true)
        for y in task.outputs(x):
            if task.outputs_equal(y, y_true):
                continue
            loss = task.loss(y_true, y)
            scale = loss if rescaling == "slack" else 1.0
            row = np.zeros(p + n)
            row[:p] = -scale * (phi_true - task.joint_feature(x, y))
            row[p + i] = -1.0
            rows.append(row)
            offsets.append(-loss)
    nonnegative_slacks = np.hstack([np.zeros((n, p)), -np.eye(n)])
    G = np.vstack([np.array(rows), nonnegative_slacks])
    h = np.concatenate([offsets, np.zeros(n)])
    P = np.zeros((p + n, p + n))
    P[:p, :p] = np.eye(p)
    q = np.zeros(p + n)
    if slack_norm == 1:
        q[p:] = C
    elif one_slack:
        P[p:, p:] = C
    else:
        P[p:, p:] = C * np.eye(n)
    options = {"show_progress": False, "abstol": 1e-11, "reltol": 1e-11, "feastol": 1e-10}
    solution = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h), options=options)
    z = np.array(solution["x"]).ravel()
    w, xi = z[:p], z[p:]
    return w, xi, 0.5 * z @ P @ z + q @ z


def brute_force_slack_rescaled_argmax(task, x, y_true, w):
    """Return the first output of ``task.outputs(x)`` maximising Δ(y_true, y)(1 − w·ψ(y)).

    Written out from the definition for tasks whose own oracle is under test.
    """
    candidates = list(task.outputs(x))
    true_score = task.joint_feature(x, y_true) @ w
    values = [
        task.loss(y_true, y) * (1.0 - true_score + task.joint_feature(x, y) @ w)
        for y in candidates
    ]
    best = int(np.argmax(values))
    return candidates[best], values[best]


# ------------------------------------------------------------------------ kernel multiclass SVM
def solve_full_multiclass_dual(kernel, X, Y, n_classes, C):
    """Solve the kernel Crammer–Singer dual over every constraint (i, ȳ ≠ y_i) with cvxopt.

    Return (α, pairs, D*): the multipliers, the constraint (i, ȳ) of each, the optimum.

    The Gram matrix is written out from the joint kernel J((x, y), (x', y')) = k(x, x')[y = y']:
    ⟨ψ_a, ψ_b⟩ = J(a_true, b_true) − J(a_true, b_bar) − J(a_bar, b_true) + J(a_bar, b_bar).
    """
    inputs = kernel(X)
    pairs = [(i, ybar) for i in range(len(Y)) for ybar in range(n_classes) if ybar != Y[i]]
    m = len(pairs)
    gram = np.zeros((m, m))

    def joint(i, y, j, y_other):
        return inputs[i, j] * float(y == y_other)

    for a, (i, ybar_i) in enumerate(pairs):
        for b, (j, ybar_j) in enumerate(pairs):
            gram[a, b] = (
                joint(i, Y[i], j, Y[j])
                - joint(i, Y[i], j, ybar_j)
                - joint(i, ybar_i, j, Y[j])
                + joint(i, ybar_i, j, ybar_j)
            )
    per_example = np.zeros((len(Y), m))
    for a, (i, _) in enumerate(pairs):
        per_example[i, a] = 1.0
    G = np.vstack([-np.eye(m), per_example])
    h = np.concatenate([np.zeros(m), np.full(len(Y), C)])
    options = {"show_progress": False, "abstol": 1e-11, "reltol": 1e-11, "feastol": 1e-10}
    solution = solvers.qp(matrix(gram), matrix(-np.ones(m)), matrix(G), matrix(h), options=options)
    alpha = np.array(solution["x"]).ravel()
    return alpha, pairs, float(alpha.sum() - 0.5 * alpha @ gram @ alpha)


def multiclass_dual_scores(kernel, X, Y, alpha, pairs, n_classes, X_new):
    """Score ``Σ_k α_k k(x_{i_k}, x)([y_{i_k} = y] − [ȳ_k = y])`` of every class y."""
    to_new = kernel(X, X_new)
    scores = np.zeros((len(X_new), n_classes))
    for a, (i, ybar) in enumerate(pairs):
        scores[:, Y[i]] += alpha[a] * to_new[i]
        scores[:, ybar] -= alpha[a] * to_new[i]
    return scores


# ------------------------------------------------------------------------ working-set QP
def dual_objective(alpha, vectors, offsets):
    """Return Σ_k α_k Δ_k − ½‖Σ_k α_k ψ_k‖², the objective of the working-set QP."""
    return offsets @ alpha - 0.5 * np.sum((vectors.T @ alpha) ** 2)


def assert_feasible(alpha, groups, C):
    """Assert α >= 0 with every group's sum at most C: the feasible set of the QP."""
    assert np.all(alpha >= 0)
    for g in np.unique(groups):
        assert alpha[groups == g].sum() <= C * (1 + 1e-12)


def brute_force_dual(vectors, offsets, groups, C):
    """Return the optimal dual value by enumerating supports and saturated groups.

    For every choice of the constraints allowed to be positive (F) and the groups whose sum is
    held at C (T), solve the stationarity equations of that face; the best feasible stationary
    point is the optimum of the concave QP.
    """
    gram = vectors @ vectors.T
    m = len(offsets)
    labels = np.unique(groups)
    best = 0.0
    for free in itertools.product([False, True], repeat=m):
        F = np.flatnonzero(free)
        for saturated in itertools.product([False, True], repeat=len(labels)):
            T = labels[np.asarray(saturated, dtype=bool)]
            S = (groups[F][None, :] == T[:, None]).astype(float)
            kkt = np.block([[gram[np.ix_(F, F)], S.T], [S, np.zeros((len(T), len(T)))]])
            rhs = np.concatenate([offsets[F], np.full(len(T), C)])
            solution = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
            if not np.allclose(kkt @ solution, rhs, atol=1e-9):
                continue
            alpha = np.zeros(m)
            alpha[F] = solution[: len(F)]
            sums = np.array([alpha[groups == g].sum() for g in labels])
            if alpha.min() >= -1e-12 and sums.max(initial=0.0) <= C + 1e-12:
                best = max(best, dual_objective(alpha, vectors, offsets))
    return best


# ------------------------------------------------------------------------ learners
def dense_bcfw_passes(task, X, Y, C, n_passes, averaging, order, random_state):
    """Yield the reported (w, loss) after every pass of textbook BCFW with dense blocks."""
    rng = check_random_state(random_state)
    n, size = len(X), task.size_joint_feature
    blocks, block_losses = np.zeros((n, size)), np.zeros(n)
    w, total_loss = np.zeros(size), 0.0
    iterates, losses = [], []
    yield w.copy(), 0.0
    for _ in range(n_passes):
        for i in rng.permutation(n) if order == "random" else range(n):
            y_hat = task.loss_augmented_argmax(X[i], Y[i], w)
            phi = [
                np.ravel(scipy.sparse.csr_matrix(task.joint_feature(X[i], y)).toarray())
                for y in (Y[i], y_hat)
            ]
            corner = C * (phi[0] - phi[1])
            corner_loss = C * task.loss(Y[i], y_hat)
            direction = corner - blocks[i]
            curvature = direction @ direction
            gap = corner_loss - block_losses[i] - w @ direction
            step = 0.0 if curvature <= 0 else min(max(gap / curvature, 0.0), 1.0)
            blocks[i] += step * direction
            w = w + step * direction
            total_loss += step * (corner_loss - block_losses[i])
            block_losses[i] += step * (corner_loss - block_losses[i])
            iterates.append(w)
            losses.append(total_loss)
        if averaging:
            # w̄ after k steps is Σ_j j w_j / Σ_j j: the weights 2 / (k + 1) unrolled.
            weights = np.arange(1, len(iterates) + 1, dtype=float)
            weights /= weights.sum()
            yield weights @ np.array(iterates), weights @ np.array(losses)
        else:
            yield w.copy(), total_loss


def perceptron_iterates(task, X, Y, epochs):
    """Return w = 0 and w after every example of ``epochs`` in-order passes of the perceptron.

    The textbook structured perceptron: on a mistake ŷ = argmax_y w · φ(x, y) ≠ y, add
    φ(x, y) − φ(x, ŷ) to w.
    """
    w = np.zeros(task.size_joint_feature)
    iterates = [w]
    for _ in range(epochs):
        for x, y in zip(X, Y, strict=True):
            y_hat = task.argmax(x, w)
            if not task.outputs_equal(y_hat, y):
                w = w + task.joint_feature(x, y) - task.joint_feature(x, y_hat)
            iterates.append(w)
    return iterates


def primal_perceptron(X, signs, fit_intercept, max_epochs=100):
    """The textbook perceptron: on y_i(⟨w, x_i⟩ + b) <= 0 add y_i x_i to w and y_i to b."""
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(max_epochs):
        mistakes = 0
        for x, s in zip(X, signs, strict=True):
            if s * (w @ x + b) <= 0:
                w += s * x
                b += s if fit_intercept else 0.0
                mistakes += 1
        if mistakes == 0:
            break
    return w, b


# ------------------------------------------------------------------------ chain task
def all_labelings(n_labels, length):
    """Every labelling of a sequence of ``length``, one per row, in lexicographic order."""
    return np.array(list(itertools.product(range(n_labels), repeat=length)), dtype=np.int64)


def chain_scores(task, x, labelings, w):
    """Score every row of ``labelings`` straight from the documented layout of w."""
    L, d = task.n_labels, task.n_features
    emissions, rest = w[: L * d].reshape(L, d), w[L * d :]
    scores = (x @ emissions.T)[np.arange(len(x)), labelings].sum(axis=1)
    if task.transitions:
        transitions, rest = rest[: L * L].reshape(L, L), rest[L * L :]
        scores += transitions[labelings[:, :-1], labelings[:, 1:]].sum(axis=1)
    if task.order == 2:
        triples, rest = rest[: L**3].reshape(L, L, L), rest[L**3 :]
        scores += triples[labelings[:, :-2], labelings[:, 1:-1], labelings[:, 2:]].sum(axis=1)
    if task.start_end:
        start, end, rest = rest[:L], rest[L : 2 * L], rest[2 * L :]
        scores += start[labelings[:, 0]] + end[labelings[:, -1]]
    if task.bias:
        scores += rest[labelings].sum(axis=1)
    return scores


def allowed_labelings(task, length):
    """Every labelling of ``length`` that keeps the task's constraints, in lexicographic order."""
    kept = [
        y
        for y in all_labelings(task.n_labels, length)
        if not task.forbidden_first[y[0]]
        and not task.forbidden_last[y[-1]]
        and not any(task.forbidden_transitions[a, b] for a, b in itertools.pairwise(y))
    ]
    return np.array(kept, dtype=np.int64).reshape(len(kept), length)


def chain_losses(task, y_true, labelings):
    """Weighted Hamming loss of every row of ``labelings`` against ``y_true``."""
    return (task.label_weights[y_true] * (labelings != y_true)).sum(axis=1)


# ------------------------------------------------------------------------ kernels
def quadratic_features(X):
    """Explicit map of (⟨x, z⟩ + 1)²: 1, √2·x_i, x_i², √2·x_i·x_j (i < j)."""
    d = X.shape[1]
    columns = [np.ones(len(X))]
    columns += [np.sqrt(2) * X[:, i] for i in range(d)]
    columns += [X[:, i] ** 2 for i in range(d)]
    columns += [np.sqrt(2) * X[:, i] * X[:, j] for i in range(d) for j in range(i + 1, d)]
    return np.column_stack(columns)


def subsequence_counts(s):
    """How often each subsequence occurs in s, over all index sets (the empty one included)."""
    return Counter(
        "".join(s[i] for i in indices)
        for size in range(len(s) + 1)
        for indices in itertools.combinations(range(len(s)), size)
    )


def brute_force_subsequence_kernel(s, t):
    """The all-subsequences kernel of s and t: pairs of equal subsequences, counted."""
    counts_s, counts_t = subsequence_counts(s), subsequence_counts(t)
    return sum(count * counts_t[u] for u, count in counts_s.items())


# ------------------------------------------------------------------------ ranking
def preference_pairs(grades):
    """Every pair (i, j) of documents with grades[i] > grades[j], listed one by one."""
    m = len(grades)
    return [(i, j) for i in range(m) for j in range(m) if grades[i] > grades[j]]


def ranking_value(x, grades, w, signs):
    """Return (Δ + w·φ, φ, Δ) of a sign assignment to the pairs, from the definitions.

    φ = ½ Σ_{(i, j)} sign_ij (x_i − x_j) over the preference pairs and Δ the number of pairs
    with sign −1.
    """
    pairs = preference_pairs(grades)
    phi = np.zeros(x.shape[1])
    for (i, j), sign in zip(pairs, signs, strict=True):
        phi += 0.5 * sign * (x[i] - x[j])
    loss = float(sum(sign < 0 for sign in signs))
    return loss + phi @ w, phi, loss


def brute_force_ranking_oracle(x, grades, w):
    """Return the largest Δ + w·φ over all 2^|P| sign assignments to the preference pairs."""
    n_pairs = len(preference_pairs(grades))
    return max(
        ranking_value(x, grades, w, signs)[0]
        for signs in itertools.product([1, -1], repeat=n_pairs)
    )


def pairwise_differences(queries, grades):
    """Stack x_i − x_j for every preference pair of every query, one row per pair."""
    rows = [
        query[i] - query[j]
        for query, g in zip(queries, grades, strict=True)
        for i, j in preference_pairs(g)
    ]
    return np.array(rows)


def solve_pairwise_svm(differences, C):
    """Return (w, objective) of the linear SVM without intercept on the pair differences.

    The primal QP in (w, ξ): ½‖w‖² + C Σ ξ_k subject to w · d_k >= 1 − ξ_k and ξ_k >= 0,
    one slack per difference vector d_k (every pair labelled +1).
    """
    n, p = differences.shape
    P = np.zeros((p + n, p + n))
    P[:p, :p] = np.eye(p)
    q = np.concatenate([np.zeros(p), np.full(n, C)])
    G = np.block([[-differences, -np.eye(n)], [np.zeros((n, p)), -np.eye(n)]])
    h = np.concatenate([-np.ones(n), np.zeros(n)])
    options = {"show_progress": False, "abstol": 1e-11, "reltol": 1e-11, "feastol": 1e-10}
    solution = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h), options=options)
    z = np.array(solution["x"]).ravel()
    w = z[:p]
    hinge = np.maximum(0.0, 1.0 - differences @ w)
    return w, 0.5 * w @ w + C * hinge.sum()


# ------------------------------------------------------------------------ pairwise graphical models
def pairwise_model_score(unary, edges, pairwise, labels):
    """Return Σ_i unary[i, y_i] + Σ_e pairwise[e, y_u, y_v], one term at a time.

    ``pairwise`` is one table per edge or a single table shared by all edges.
    """
    unary, pairwise = np.asarray(unary), np.asarray(pairwise)
    score = 0.0
    for i, label in enumerate(labels):
        score += unary[i, label]
    for e, (u, v) in enumerate(np.asarray(edges).reshape(-1, 2)):
        table = pairwise if pairwise.ndim == 2 else pairwise[e]
        score += table[labels[u], labels[v]]
    return score


def weighted_hamming_loss(y_true, labels, node_weights=None, class_weights=None):
    """Return Σ_i w_i · c_{y_true[i]} · [labels[i] ≠ y_true[i]] (weights 1 unless given)."""
    loss = 0.0
    for i, (truth, label) in enumerate(zip(y_true, labels)):
        if truth != label:
            w = 1.0 if node_weights is None else node_weights[i]
            c = 1.0 if class_weights is None else class_weights[truth]
            loss += w * c
    return loss


def brute_force_map(unary, edges, pairwise, loss=None):
    """Return (max score, a best labelling) over all labellings, by enumeration.

    ``loss``, a function of the labelling, is added to the score when given (loss-augmented
    inference).
    """
    n_nodes, n_states = np.shape(unary)
    best, best_labels = -np.inf, None
    for labels in itertools.product(range(n_states), repeat=n_nodes):
        value = pairwise_model_score(unary, edges, pairwise, labels)
        if loss is not None:
            value += loss(labels)
        if value > best:
            best, best_labels = value, np.array(labels)
    return best, best_labels


# ------------------------------------------------------------------------ graph tasks
def graph_block_kinds(task):
    """The kind of every pairwise block, from the task's documented parameters."""
    if hasattr(task, "n_edge_features"):
        return [
            "symmetric"
            if f in task.symmetric_edge_features
            else "antisymmetric"
            if f in task.antisymmetric_edge_features
            else "free"
            for f in range(task.n_edge_features)
        ]
    return ["free" if task.directed else "symmetric"]


def graph_joint_feature(task, x, y):
    """φ(x, y) of a graph labelling, one node and one edge at a time, from the documented layout.

    The unary block sums the features of the nodes in each state; edge feature f (1 for every
    edge of a GraphTask) adds itself to the count of the state pair of each edge, and the block
    keeps the free matrix row by row, the upper triangle of M + Mᵀ (diagonal once) for a
    symmetric block, or of M − Mᵀ above the diagonal for an antisymmetric one.
    """
    nodes = x[0].toarray() if scipy.sparse.issparse(x[0]) else np.asarray(x[0], dtype=float)
    edges = np.asarray(x[1]).reshape(-1, 2)
    kinds = graph_block_kinds(task)
    edge_features = (
        np.asarray(x[2]) if hasattr(task, "n_edge_features") else np.ones((len(edges), 1))
    )
    S = task.n_states
    unary = np.zeros((S, task.n_features))
    for i, state in enumerate(y):
        unary[state] += nodes[i]
    blocks = [unary.ravel()]
    for f, kind in enumerate(kinds):
        counts = np.zeros((S, S))
        for e, (u, v) in enumerate(edges):
            counts[y[u], y[v]] += edge_features[e, f]
        if kind == "free":
            blocks.append(counts.ravel())
        elif kind == "symmetric":
            blocks.append(
                [
                    counts[a, b] + counts[b, a] if a < b else counts[a, a]
                    for a in range(S)
                    for b in range(a, S)
                ]
            )
        else:
            blocks.append([counts[a, b] - counts[b, a] for a in range(S) for b in range(a + 1, S)])
    return np.concatenate([np.asarray(block, dtype=float) for block in blocks])


def graph_brute_force(task, x, y_true, w, node_weights, class_weights):
    """Return the largest score and the largest loss plus score over every labelling of x."""
    best_score = best_augmented = -np.inf
    for y in itertools.product(range(task.n_states), repeat=len(y_true)):
        score = graph_joint_feature(task, x, y) @ w
        best_score = max(best_score, score)
        best_augmented = max(
            best_augmented, score + weighted_hamming_loss(y_true, y, node_weights, class_weights)
        )
    return best_score, best_augmented


# ------------------------------------------------------------------------ multi-label
def multilabel_brute_force(x, y_true, unary_weights, pairwise, edges):
    """Return (best value, labelling) of Σ_j y_j W[j]·x + Σ_e P[e, y_u, y_v], plus the Hamming
    loss against ``y_true`` when given, over all of {0, 1}^k in lexicographic order."""
    best, best_labels = -np.inf, None
    for labels in itertools.product((0, 1), repeat=len(unary_weights)):
        value = sum(unary_weights[j] @ x for j, on in enumerate(labels) if on)
        value += sum(pairwise[e, labels[u], labels[v]] for e, (u, v) in enumerate(edges))
        if y_true is not None:
            value += sum(a != b for a, b in zip(labels, y_true))
        if value > best:
            best, best_labels = value, np.array(labels)
    return best, best_labels


def maximum_spanning_tree_weight(weights):
    """Return the largest total weight of a spanning tree of the complete graph, by trying
    every set of n − 1 edges and keeping those without a cycle."""
    n = len(weights)
    pairs = list(itertools.combinations(range(n), 2))
    best = -np.inf
    for chosen in itertools.combinations(pairs, n - 1):
        component = list(range(n))
        for u, v in chosen:
            old, new = component[u], component[v]
            if old == new:
                break
            component = [new if c == old else c for c in component]
        else:
            best = max(best, sum(weights[u][v] for u, v in chosen))
    return best


def binary_hinge_svm_objective(X, signs, C):
    """Return the optimum of ½‖w‖² + C Σ_i max(0, 1 − s_i w·x_i) (no intercept), from its dual
    max Σ α − ½ αᵀ (s sᵀ ∘ X Xᵀ) α over 0 ≤ α ≤ C, solved by cvxopt."""
    n = len(X)
    Q = np.outer(signs, signs) * (X @ X.T)
    G = np.vstack([-np.eye(n), np.eye(n)])
    h = np.concatenate([np.zeros(n), np.full(n, C)])
    options = {"show_progress": False, "abstol": 1e-11, "reltol": 1e-11, "feastol": 1e-10}
    solution = solvers.qp(matrix(Q), matrix(-np.ones(n)), matrix(G), matrix(h), options=options)
    alpha = np.array(solution["x"]).ravel()
    return alpha.sum() - 0.5 * alpha @ Q @ alpha


def every_tree(n, projective):
    """Yield the heads of every single-root tree over n words (only projective ones if asked).

    ``heads[d - 1]`` is word d's head, 0 the root: each word reaches the root, one word hangs
    from it, and a projective tree's arcs span only descendants of their heads.
    """
    for heads in itertools.product(range(n + 1), repeat=n):
        if sum(h == 0 for h in heads) != 1:
            continue
        parent = dict(enumerate(heads, start=1))
        if not all(_reaches_root(d, parent, n) for d in parent):
            continue
        if projective and not all(
            _descends(v, h, parent)
            for d, h in parent.items()
            for v in range(min(h, d) + 1, max(h, d))
        ):
            continue
        yield np.array(heads)


def _reaches_root(d, parent, n):
    for _ in range(n + 1):
        if d == 0:
            return True
        d = parent[d]
    return False


def _descends(v, h, parent):
    while v not in (0, h):
        v = parent[v]
    return v == h
