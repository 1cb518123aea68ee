"""Sequence labelling with a linear-chain model, decoded by compiled Viterbi."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import CompiledOracle, offsets_of
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import (
    check_class_weights,
    check_consistent_length,
    check_examples,
    check_feature_array,
    check_feature_shape,
    check_flag,
    check_labels,
    check_positive_int,
    check_weights,
)
from tasks._chain_constraints import check_forbidden, find_violation
from tasks._chain_features import (
    dense_rows_as_csr,
    features_csr,
    followed_by,
    sparse_unary_scores,
)
from tasks._chain_oracle import (
    DENSE_FROM,
    ChainData,
    batch_scores,
    chain_add_features,
    chain_decode,
    chain_decode_constrained,
    chain_decode_second_order,
    chain_features,
    chain_labelling_score,
    chain_loss,
    chain_scores,
    chain_weights,
    decoding_weights,
    first_order_weights,
)
from tasks._k_best import top_k_first_order, top_k_second_order
from tasks._max_marginals import max_marginals_first_order, max_marginals_second_order
from tasks._slack_rescaling import batch_slack_rescaled_viterbi, loss_states
from tasks._threads import row_blocks_product, stacked_rows, use_threads
from tasks._viterbi import add_hamming_loss, batch_viterbi
from tasks._viterbi_second_order import batch_viterbi_second_order

#: The most bytes of dense positions, counted as float64, that :meth:`ChainTask.batch_argmax`
#: stacks and scores at once (integer positions are stacked as they are, and converted to
#: float64 by the product).
STACKED_BYTES = 1 << 23


class ChainTask(Task):
    """Label every position of a sequence: a linear-chain model with a Hamming loss.

    An input ``x`` is a float or integer array or a ``scipy.sparse`` matrix of shape
    (T, n_features), one row per position; its output ``y`` is an int array of shape (T,) with
    labels in ``0 .. n_labels - 1``. With L labels and d features, the weight vector is laid
    out in blocks, in this order:

    * emissions, ``w[:L*d].reshape(L, d)``: row ``y`` scores the features seen with label ``y``;
    * if ``transitions``, the L×L transition matrix (row: previous label, column: next label);
    * if ``order=2``, the L×L×L second-order transitions,
      ``w[at:at + L**3].reshape(L, L, L)[y_{t-2}, y_{t-1}, y_t]``, *added* to the first-order
      block (as SVM^hmm's ``--t 2`` keeps both): a labelling scores its pairs and its triples;
    * if ``start_end``, L start weights (score of the first label) then L end weights (score
      of the last label);
    * if ``bias``, one bias per label, added at every position.

    The score of a labelling is ``Σ_t E[y_t]·x_t + Σ_t A[y_t, y_{t+1}] + Σ_t B[y_t, y_{t+1},
    y_{t+2}] + s[y_0] + e[y_T-1] + Σ_t b[y_t]`` and ``joint_feature`` returns the matching counts
    and feature sums (Collins, 2002; Taskar et al., 2003; SVM^hmm's second order, Joachims et
    al., 2009). The oracles, :meth:`top_k` (list Viterbi) and :meth:`max_marginals` run compiled
    Viterbi, L^(order+1) per position; large batches run on Numba's threads with the same
    results. The slack-rescaled oracle (first order) adds the loss so far as a dimension
    (Sarawagi & Gupta, 2008). Constraints rule labellings out whatever the weights (BIO tags:
    :func:`tasks.chunking.bio_constraints`) in every oracle and :meth:`outputs`, and
    :meth:`check_data` rejects training labels that break them; φ and scores ignore them.

    Data are lists of sequences, ``X[k]`` (T_k, n_features) dense or ``scipy.sparse`` (held as
    CSR float64; all sparse if any is), ``Y[k]`` (T_k,); concatenated data convert with
    :func:`split_sequences`. Dense integer arrays (pixels read as uint8) are held as they are
    and give the results of the float64 array of the same values. Sparse sequences cost time in
    proportion to their stored entries and give the results of the dense array of the same
    values.

    Parameters
    ----------
    n_labels : int
        Number of labels L (at least 2).
    n_features : int
        Width d of one position's feature vector.
    transitions : bool, default=True
        Score pairs of neighbouring labels with an L×L transition matrix.
    start_end : bool, default=False
        Score the first and the last label of a sequence.
    bias : bool, default=False
        Add a per-label bias at every position.
    label_weights : array of shape (n_labels,), optional
        The loss counts ``label_weights[y_true[t]]`` for every wrong position t (finite,
        non-negative). Default: all ones, the plain Hamming loss.
    order : {1, 2}, default=1
        1 scores neighbouring label pairs; 2 also scores label triples (second-order chain).
    forbidden_transitions : bool array of shape (n_labels, n_labels) or list of (int, int)
        Label b may never follow label a where ``forbidden_transitions[a, b]`` is true, or where
        ``(a, b)`` is in the list. Default: every transition is allowed.
    forbidden_first, forbidden_last : bool array of shape (n_labels,) or list of int
        Labels that may not start, or end, a sequence. Default: none.

    Attributes
    ----------
    size_joint_feature : int
        Length of φ(x, y) and of ``w``: ``L*d`` plus ``L*L``, ``L**3``, ``2*L`` and ``L`` for
        the optional blocks that are switched on.
    forbidden_transitions : ndarray of shape (n_labels, n_labels), bool
    forbidden_first, forbidden_last : ndarray of shape (n_labels,), bool
        The constraints as masks.

    Notes
    -----
    Ties go to the lexicographically smallest labelling (the first of :meth:`outputs`) when the
    scores are computed exactly. The oracles check the finiteness of the scores and of the
    weights they read, not of every emission weight.

    References
    ----------
    M. Collins. Discriminative training methods for hidden Markov models: theory and
    experiments with perceptron algorithms. In *EMNLP*, 2002.

    B. Taskar, C. Guestrin and D. Koller. Max-margin Markov networks. In *NIPS*, 2003.

    T. Joachims, T. Finley and C.-N. J. Yu. Cutting-plane training of structural SVMs.
    *Machine Learning*, 77(1):27–59, 2009 (SVM^hmm, its first- and second-order chains).

    N. Seshadri and C.-E. W. Sundberg. List Viterbi decoding algorithms with applications.
    *IEEE Transactions on Communications*, 42(234):313–323, 1994.

    M. J. Wainwright and M. I. Jordan. Graphical models, exponential families, and variational
    inference. *Foundations and Trends in Machine Learning*, 1(1–2):1–305, 2008 (max-marginals).
    """

    threaded_batches = True

    def __init__(
        self, n_labels: int, n_features: int, transitions: bool = True, start_end: bool = False,
        bias: bool = False, label_weights: np.ndarray | None = None, order: int = 1,
        forbidden_transitions: np.ndarray | Sequence[tuple[int, int]] | None = None,
        forbidden_first: np.ndarray | Sequence[int] | None = None,
        forbidden_last: np.ndarray | Sequence[int] | None = None,
    ) -> None:
        self.n_labels = check_positive_int(n_labels, "n_labels", minimum=2)
        self.n_features = check_positive_int(n_features, "n_features")
        self.transitions = check_flag(transitions, "transitions")
        self.start_end = check_flag(start_end, "start_end")
        self.bias = check_flag(bias, "bias")
        self.label_weights = check_class_weights(label_weights, self.n_labels, "label_weights")
        is_integer = isinstance(order, (int, np.integer)) and not isinstance(order, bool)
        if not is_integer or order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order!r}")
        self.order = int(order)
        n_labels, n_features = self.n_labels, self.n_features
        constraints = (forbidden_transitions, forbidden_first, forbidden_last)
        for name, value in zip(_CONSTRAINTS, constraints, strict=True):
            setattr(self, name, check_forbidden(value, n_labels, name))
        self._transitions_at = n_labels * n_features
        self._triples_at = self._transitions_at + (n_labels * n_labels if self.transitions else 0)
        self._start_at = self._triples_at + (n_labels**3 if self.order == 2 else 0)
        self._end_at = self._start_at + n_labels
        self._bias_at = self._start_at + (2 * n_labels if self.start_end else 0)
        self.size_joint_feature = self._bias_at + (n_labels if self.bias else 0)

    def __repr__(self) -> str:
        return (
            f"ChainTask(n_labels={self.n_labels}, n_features={self.n_features}, "
            f"transitions={self.transitions}, start_end={self.start_end}, bias={self.bias}, "
            f"order={self.order}{', constrained' if self._constrained else ''})"
        )

    @property
    def _constrained(self) -> bool:
        return bool(
            self.forbidden_transitions.any() or self.forbidden_first.any()
            or self.forbidden_last.any()
        )

    # ----------------------------------------------------------------- single examples
    def joint_feature(
        self, x: np.ndarray | scipy.sparse.spmatrix, y: np.ndarray
    ) -> np.ndarray | scipy.sparse.csr_matrix:
        """Return φ(x, y): per-label feature sums, then transition, start/end and label counts.

        Parameters
        ----------
        x : ndarray or scipy.sparse matrix of shape (T, n_features)
        y : ndarray of shape (T,), int

        Returns
        -------
        ndarray of shape (size_joint_feature,), or csr_matrix of shape (1, size_joint_feature)
            A dense vector for a dense ``x``; one sparse row for a sparse ``x``, whose φ would
            be mostly zeros.
        """
        row = self._features_csr([x], [y])
        if scipy.sparse.issparse(x):
            return row
        phi = np.zeros(self.size_joint_feature)
        phi[row.indices] = row.data
        return phi

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        """Return the weighted Hamming loss, ``Σ_t label_weights[y_true[t]]`` over wrong t."""
        y_true, y = np.asarray(y_true, dtype=np.int64), np.asarray(y, dtype=np.int64)
        if y_true.shape != y.shape:
            raise ValueError(f"y has shape {y.shape} but y_true has shape {y_true.shape}")
        return float(np.sum(self.label_weights[y_true] * (y != y_true)))

    def max_loss(self, y_true: np.ndarray) -> float:
        """Return the loss of getting every position wrong, ``Σ_t label_weights[y_true[t]]``."""
        return float(np.sum(self.label_weights[np.asarray(y_true, dtype=np.int64)]))

    def outputs(self, x: np.ndarray) -> Iterator[np.ndarray]:
        """Yield every allowed labelling of x in lexicographic order (tiny T only).

        Without constraints these are all ``n_labels ** T`` labellings.
        """
        length = _n_positions(x)
        offsets = np.array([0, length])
        for labels in itertools.product(range(self.n_labels), repeat=length):
            labels = np.array(labels, dtype=np.int64)
            if not self._constrained or self._violation(labels, offsets) is None:
                yield labels

    def argmax(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Return the labelling of x with the highest score (Viterbi)."""
        return self.batch_argmax([x], w)[0]

    def loss_augmented_argmax(
        self, x: np.ndarray, y_true: np.ndarray, w: np.ndarray
    ) -> np.ndarray:
        """Return the labelling maximising loss plus score (Viterbi on loss-augmented scores)."""
        return self.batch_loss_augmented_argmax([x], [y_true], w)[0]

    def top_k(
        self, x: np.ndarray | scipy.sparse.spmatrix, w: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return the k highest-scoring allowed labellings of x, best first, and their scores.

        Exact (list Viterbi: Seshadri & Sundberg, 1994), compiled with Numba, in
        O(T L^(order+1) k) time. Labellings of equal score come in lexicographic order,
        smallest first (exactly so when the scores are computed exactly), so the first row is
        :meth:`argmax`'s answer.

        Parameters
        ----------
        x : ndarray or scipy.sparse matrix of shape (T, n_features)
        w : ndarray of shape (size_joint_feature,)
        k : int
            How many labellings to return, at least 1.

        Returns
        -------
        labellings : ndarray of shape (min(k, n_allowed), T), int64
            One labelling a row; fewer than k when fewer labellings are allowed.
        scores : ndarray of shape (min(k, n_allowed),)
            ``w · φ(x, labellings[r])``, non-increasing.

        Raises
        ------
        ValueError
            If ``k`` is not a positive int, x is not a valid sequence, or no labelling of x
            keeps the constraints.
        """
        k = check_positive_int(k, "k")
        labellings, scores = self._sequence_oracle(x, w, top_k_first_order, top_k_second_order, k)
        if len(labellings) == 0:
            raise self._infeasible("x", labellings.shape[1])
        return labellings, scores

    def max_marginals(self, x: np.ndarray | scipy.sparse.spmatrix, w: np.ndarray) -> np.ndarray:
        """Return, for every position and label, the best score of an allowed labelling through it.

        ``max_marginals(x, w)[t, l]`` is the maximum of ``w · φ(x, y)`` over the allowed
        labellings y with ``y[t] == l``, ``-inf`` if there are none (Wainwright & Jordan, 2008,
        sec. 8.2); every row's maximum is the best score. One forward and one backward Viterbi
        pass, compiled with Numba.

        Parameters
        ----------
        x : ndarray or scipy.sparse matrix of shape (T, n_features)
        w : ndarray of shape (size_joint_feature,)

        Returns
        -------
        ndarray of shape (T, n_labels)

        Raises
        ------
        ValueError
            If x is not a valid sequence, or no labelling of x keeps the constraints.
        """
        marginals = self._sequence_oracle(
            x, w, max_marginals_first_order, max_marginals_second_order
        )
        if not np.isfinite(marginals[0].max()):
            raise self._infeasible("x", len(marginals))
        return marginals

    def slack_rescaled_argmax(
        self, x: np.ndarray, y_true: np.ndarray, w: np.ndarray
    ) -> np.ndarray:
        """Return the labelling maximising ``Δ(y_true, y) (1 + score(y) − score(y_true))``."""
        return self.batch_slack_rescaled_argmax([x], [y_true], w)[0]

    # ----------------------------------------------------------------- data
    def check_data(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray] | None = None
    ) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
        """Return X as a list of finite (T_k, n_features) sequences and Y as int64 labels.

        Dense integer and bool arrays come back as they are (uint8 pixels stay uint8: the task
        converts positions to float64 only where it stacks them, with the same results as for
        float64 input); other dense sequences as float64 arrays. Sparse sequences come back as
        CSR float64 matrices with sorted, distinct column indices. If any sequence is sparse,
        the dense ones are converted too, so that X is all sparse.

        Raises
        ------
        ValueError
            If X is not a non-empty sequence of non-empty 2-D arrays of width ``n_features``
            holding finite numbers, or if ``Y[k]`` does not hold one label in range for every
            position of ``X[k]``. The message names the offending ``X[k]`` or ``Y[k]``.
        """
        if isinstance(X, np.ndarray) and X.ndim != 3:
            raise ValueError(
                f"X must be a list of (T, n_features) arrays, one per sequence; got an array "
                f"of shape {X.shape}. Split concatenated sequences with split_sequences(X, lengths)"
            )
        check_examples(X, "X")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one sequence")
        X = [_check_sequence(x, f"X[{k}]", self.n_features) for k, x in enumerate(X)]
        if any(scipy.sparse.issparse(x) for x in X):
            # The sparse ones are CSR already, and kept as they are: a new matrix would copy a
            # view of a larger array (see _stacked_csr).
            X = [
                x if scipy.sparse.issparse(x) else scipy.sparse.csr_matrix(x, dtype=np.float64)
                for x in X
            ]
        if Y is None:
            return X, None
        check_consistent_length(X, Y, "Y")
        Y = [check_labels(y, f"Y[{k}]", n_labels=self.n_labels) for k, y in enumerate(Y)]
        for k, (x, y) in enumerate(zip(X, Y, strict=True)):
            if len(y) != x.shape[0]:
                raise ValueError(
                    f"Y[{k}] has {len(y)} labels but X[{k}] has {x.shape[0]} positions"
                )
        if self._constrained:
            violation = self._violation(np.concatenate(Y), offsets_of([len(y) for y in Y]))
            if violation is not None:
                k, how = violation
                raise ValueError(
                    f"Y[{k}] {how}, which the task's constraints (forbidden_transitions, "
                    "forbidden_first, forbidden_last) rule out: training labels must keep them"
                )
        return X, Y

    # ----------------------------------------------------------------- vectorised batches
    def batch_joint_feature(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray]
    ) -> scipy.sparse.csr_matrix:
        """Return φ(X[k], Y[k]) for every sequence as the rows of a sparse matrix.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_sequences, size_joint_feature)
        """
        return self._features_csr(X, Y)

    def sparse_joint_feature(
        self, x: np.ndarray | scipy.sparse.spmatrix, y: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero entries of φ(x, y): sorted column indices and their values.

        Costs time in proportion to the stored entries of ``x`` (its matrix of one row is built
        by :func:`tasks._chain_features.features_csr`).
        """
        row = self._features_csr([x], [y])
        return row.indices.astype(np.int64), row.data

    def compiled_oracle(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray]
    ) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        It decodes as :meth:`argmax` and :meth:`loss_augmented_argmax` do (same ties, never a
        forbidden labelling) and builds φ as :meth:`sparse_joint_feature` does
        (:mod:`tasks._chain_oracle`). A pass at a fixed w scores all positions at once from
        their stored entries or, for dense positions with more than
        :data:`tasks._chain_oracle.DENSE_FROM` of their entries non-zero, by a blocked BLAS
        product. None for a subclass that overrides an oracle, the loss or the joint feature.
        """
        if overrides_any(self, ChainTask, _COMPILED):
            return None
        data = self._chain_data(X, Y, dense_from=DENSE_FROM)
        if self.order == 2:
            decode = chain_decode_second_order
        else:
            decode = chain_decode_constrained if self._constrained else chain_decode
        return CompiledOracle(
            data, chain_scores, decode, chain_features, chain_loss,
            n_examples=len(data.offsets) - 1, batch_scores=batch_scores,
            labelling_score=chain_labelling_score, add_features=chain_add_features,
        )

    def batch_loss(self, Y_true: Sequence[np.ndarray], Y: Sequence[np.ndarray]) -> np.ndarray:
        """Return the weighted Hamming loss of every sequence, shape (n_sequences,)."""
        if len(Y_true) != len(Y):
            raise ValueError(
                f"Y_true and Y have different lengths: {len(Y_true)} and {len(Y)} sequences"
            )
        truth = _stacked_labels(Y_true, "Y_true", self.n_labels)
        guess = _stacked_labels(Y, "Y", self.n_labels)
        lengths = np.array([len(y) for y in Y_true], dtype=np.int64)
        if not np.array_equal(lengths, [len(y) for y in Y]):
            raise ValueError("every Y[k] must have as many labels as Y_true[k]")
        costs = self.label_weights[truth] * (guess != truth)
        return np.bincount(np.repeat(np.arange(len(lengths)), lengths), costs, len(lengths))

    def batch_argmax(self, X: Sequence[np.ndarray], w: np.ndarray) -> list[np.ndarray]:
        """Return the best labelling of every sequence (matrix products, compiled Viterbi).

        Dense sequences are decoded in runs of at most :data:`STACKED_BYTES` of stacked
        positions (one product and one call each), so that a large batch is never copied
        whole; the labellings do not depend on the runs.
        """
        w = check_weights(w, self.size_joint_feature, finite=False)
        labels: list[np.ndarray] = []
        for begin, stop in _stacked_runs(X, self.n_features):
            unary, offsets = self._unary_scores(X[begin:stop], w)
            labels += self._decode(unary, offsets, w)
        return labels

    def batch_loss_augmented_argmax(
        self, X: Sequence[np.ndarray], Y_true: Sequence[np.ndarray], w: np.ndarray
    ) -> list[np.ndarray]:
        """Return the labelling maximising loss plus score of every sequence."""
        w, unary, offsets, y_true = self._labelled_scores(X, Y_true, w, "Y_true")
        add_hamming_loss(unary, y_true, self.label_weights)
        return self._decode(unary, offsets, w)

    def batch_slack_rescaled_argmax(
        self, X: Sequence[np.ndarray], Y_true: Sequence[np.ndarray], w: np.ndarray
    ) -> list[np.ndarray]:
        """Return the slack-rescaled best labelling of every sequence.

        First-order chains decode all sequences in one compiled call; the constraints are kept.
        Second-order chains have no such dynamic program here: their labellings are enumerated
        (the base class's :meth:`~structsvm.Task.slack_rescaled_argmax`), which costs
        ``L**T`` per sequence and suits short sequences only.
        """
        if self.order == 2:
            return [
                Task.slack_rescaled_argmax(self, x, y_true, w)
                for x, y_true in zip(X, Y_true, strict=True)
            ]
        w, unary, offsets, y_true = self._labelled_scores(X, Y_true, w, "Y_true")
        transitions, _, start, end = self._decoding_weights(w)
        steps, state_offsets, state_losses = loss_states(
            self.label_weights, np.split(y_true, offsets[1:-1])
        )
        labels = batch_slack_rescaled_viterbi(
            unary, offsets, transitions, start, end, y_true, steps, state_offsets, state_losses,
            self.batch_score(X, Y_true, w),
        )
        return [labels[begin:stop] for begin, stop in itertools.pairwise(offsets.tolist())]

    def batch_score(
        self, X: Sequence[np.ndarray], Y: Sequence[np.ndarray], w: np.ndarray
    ) -> np.ndarray:
        """Return ``w · φ(X[k], Y[k])`` for every sequence, shape (n_sequences,)."""
        w, unary, offsets, labels = self._labelled_scores(X, Y, w, "Y")
        transitions, _, start, end = self._decoding_weights(w, constrained=False)
        position_scores = unary[np.arange(len(labels)), labels]
        is_last = ~followed_by(offsets, 1)
        following = np.where(is_last, 0, np.roll(labels, -1))
        position_scores += np.where(is_last, end[labels], transitions[labels, following])
        if self.order == 2:
            has_two_more = followed_by(offsets, 2)
            after_next = np.where(has_two_more, np.roll(labels, -2), 0)
            n = self.n_labels
            triples = w[self._triples_at : self._start_at].reshape(n, n, n)
            triples = triples[labels, following, after_next]
            position_scores += np.where(has_two_more, triples, 0.0)
        return np.add.reduceat(position_scores, offsets[:-1]) + start[labels[offsets[:-1]]]

    # ----------------------------------------------------------------- weight blocks
    def _features_csr(
        self, X: Sequence[np.ndarray | scipy.sparse.spmatrix], Y: Sequence[np.ndarray]
    ) -> scipy.sparse.csr_matrix:
        """Return the joint features of every sequence as the rows of a CSR matrix."""
        return features_csr(self._chain_data(X, Y), self.size_joint_feature)

    def _chain_data(
        self, X: Sequence[np.ndarray | scipy.sparse.spmatrix] | None = None,
        Y: Sequence[np.ndarray] | None = None, dense_from: float | None = None,
    ) -> ChainData:
        """Return the batch (X, Y), or the weight layout alone, as a :class:`ChainData`.

        Dense positions storing more than ``dense_from`` of their entries are also kept as one
        dense array. Labels are checked by :func:`_stacked_labels`.
        """
        if X is None:
            X_all, offsets = np.zeros((0, self.n_features)), np.zeros(1, dtype=np.int64)
        else:
            X_all, offsets = _concatenate(X)
        indptr, indices, values = _csr_arrays(X_all)
        if Y is None:
            labels = np.zeros(0, dtype=np.int64)
        else:
            labels = _stacked_labels(Y, "Y", self.n_labels, offsets[-1])
        blas = (
            dense_from is not None and not scipy.sparse.issparse(X_all)
            and len(values) > dense_from * X_all.size
        )
        return ChainData(
            indptr, indices, values, offsets, labels, self.label_weights, self.n_labels,
            self.n_features, self._transitions_at, self._triples_at, self._start_at,
            self._end_at, self._bias_at, self.transitions, self.order == 2, self.start_end,
            self.bias, self._constrained, self.forbidden_transitions, self.forbidden_first,
            self.forbidden_last,
            np.ascontiguousarray(X_all, dtype=np.float64) if blas else np.zeros((0, 0)),
        )

    def _unary_scores(
        self, X: Sequence[np.ndarray], w: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Score every label at every position of the batch: ``X_all @ E.T + b``.

        Raises ValueError if a score, or a transition, start, end or bias weight, is not finite.
        """
        X_all, offsets = _concatenate(X)
        emissions = w[: self._transitions_at].reshape(self.n_labels, self.n_features)
        if scipy.sparse.issparse(X_all):
            unary = sparse_unary_scores(*_csr_arrays(X_all), emissions)
        elif use_threads(len(offsets) - 1) or X_all.dtype != np.float64:
            # In blocks of rows, which threads share and which the product converts to float64
            # one at a time (integer positions as a whole would take a float64 copy of them).
            unary = row_blocks_product(X_all, emissions.T)
        else:
            unary = X_all @ emissions.T
        if self.bias:
            unary += w[self._bias_at : self.size_joint_feature]
        chain_part = w[self._transitions_at :]
        # One sum each is a cheaper test than element-wise isfinite; a sum that overflows
        # sends finite values to the exact test.
        if not np.isfinite(unary.sum() + chain_part.sum()) and not (
            np.all(np.isfinite(unary)) and np.all(np.isfinite(chain_part))
        ):
            check_weights(w, self.size_joint_feature)
            raise ValueError("the scores of X under w overflow: they are not finite")
        return unary, offsets

    def _labelled_scores(
        self, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray, name: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Check w; return it, the unary scores and offsets of X and the labels of Y, stacked."""
        w = check_weights(w, self.size_joint_feature, finite=False)
        unary, offsets = self._unary_scores(X, w)
        return w, unary, offsets, _stacked_labels(Y, name, self.n_labels, len(unary))

    def _decoding_weights(
        self, w: np.ndarray, constrained: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return copies of the pair, triple, start and end scores of ``w`` that the decoders
        read, the constraints kept (``-inf`` where they forbid) or not: those of
        :func:`tasks._chain_oracle.decoding_weights`, whose triples have shape (0, 0, 0) for a
        first-order chain (:func:`tasks._chain_oracle.chain_weights`). Without constraints, a
        first-order chain's are read by NumPy, without compiling, as its compiled decoder reads
        them (:func:`tasks._chain_oracle.first_order_weights`)."""
        layout = self._chain_data()
        if not constrained:
            layout = layout._replace(constrained=False)
        w = np.ascontiguousarray(w)
        if self.order == 2:
            return decoding_weights(layout, w)
        if layout.constrained:
            transitions, start, end = chain_weights(layout, w)
        else:
            zeros = np.zeros((self.n_labels + 2, self.n_labels))
            views = first_order_weights.py_func(layout, w, zeros)
            transitions, start, end = (view.copy() for view in views)
        return transitions, np.zeros((0, 0, 0)), start, end

    def _decode(
        self, unary: np.ndarray, offsets: np.ndarray, w: np.ndarray
    ) -> list[np.ndarray]:
        transitions, triples, start, end = self._decoding_weights(w)
        if self.order == 1:
            labels = batch_viterbi(unary, offsets, transitions, start, end)
        else:
            labels = batch_viterbi_second_order(unary, offsets, transitions, triples, start, end)
        if self._constrained:
            # A decoder returns a forbidden labelling only when every labelling is forbidden.
            violation = self._violation(labels, offsets)
            if violation is not None:
                k = violation[0]
                raise self._infeasible(f"X[{k}]", offsets[k + 1] - offsets[k])
        return [labels[begin:stop] for begin, stop in itertools.pairwise(offsets.tolist())]

    def _sequence_oracle(
        self, x: np.ndarray | scipy.sparse.spmatrix, w: np.ndarray, first_order: Callable,
        second_order: Callable, *args: Any,
    ) -> Any:
        """Check one sequence and w; run the first- or second-order oracle on their scores."""
        x = _check_sequence(x, "x", self.n_features)
        w = check_weights(w, self.size_joint_feature, finite=False)
        unary, _ = self._unary_scores([x], w)
        pairs, triples, start, end = self._decoding_weights(w)
        if self.order == 1:
            return first_order(unary, pairs, start, end, *args)
        return second_order(unary, pairs, triples, start, end, *args)

    def _violation(self, labels: np.ndarray, offsets: np.ndarray) -> tuple[int, str] | None:
        return find_violation(
            labels, offsets, self.forbidden_transitions, self.forbidden_first, self.forbidden_last
        )

    def _infeasible(self, name: str, length: int) -> ValueError:
        return ValueError(
            f"no labelling of {name} ({length} positions) keeps the task's constraints "
            "(forbidden_transitions, forbidden_first, forbidden_last)"
        )


# The methods whose answers the compiled oracle reproduces.
_COMPILED = (
    "argmax", "batch_argmax", "loss_augmented_argmax", "batch_loss", "is_certified",
    "batch_loss_augmented_argmax", "loss", "joint_feature", "sparse_joint_feature",
    "batch_joint_feature", "_features_csr", "_unary_scores", "_labelled_scores", "_chain_data",
    "_decoding_weights", "_decode",
)

_CONSTRAINTS = ("forbidden_transitions", "forbidden_first", "forbidden_last")


def split_sequences(X: np.ndarray, lengths: Sequence[int]) -> list[np.ndarray]:
    """Split sequences stored one after another into a list of sequences.

    Converts data held as in hmmlearn or seqlearn, one array with the positions of all
    sequences and an array of sequence lengths, to the list form :class:`ChainTask` takes.

    Parameters
    ----------
    X : array of shape (N, ...)
        Positions of all sequences, one sequence after another (features, or labels).
    lengths : array of shape (n_sequences,), int
        Positive sequence lengths summing to N.

    Returns
    -------
    list of ndarray
        ``X[offset_k : offset_k + lengths[k]]`` for every k.
    """
    X = np.asarray(X)
    if X.ndim == 0:
        raise ValueError("X must be an array with one entry per position, got a scalar")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or len(lengths) == 0 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(
            f"lengths must be a non-empty 1-D array of integers, got {lengths.dtype} "
            f"array of shape {lengths.shape}"
        )
    if np.any(lengths <= 0):
        raise ValueError(f"lengths must all be positive, found {lengths.min()}")
    if lengths.sum() != len(X):
        raise ValueError(f"lengths sum to {lengths.sum()} but X has {len(X)} positions")
    return np.split(X, np.cumsum(lengths)[:-1])


def _n_positions(x: np.ndarray | scipy.sparse.spmatrix) -> int:
    """Return the number of positions (rows) of a dense or sparse sequence."""
    return x.shape[0] if scipy.sparse.issparse(x) else len(x)


def _concatenate(
    X: Sequence[np.ndarray | scipy.sparse.spmatrix],
) -> tuple[np.ndarray | scipy.sparse.csr_matrix, np.ndarray]:
    """Stack sequences into one (N, d) array; return it and the start offsets (n + 1,).

    The stack is a CSR matrix if any sequence is sparse, else a dense array: of the arrays'
    common integer or bool type if they have one (:func:`_stacked_dtype`), which holds their
    values exactly and which products and :func:`_csr_arrays` convert to float64 as they read
    it; float64 otherwise.

    Raises
    ------
    ValueError
        If a sequence is empty: the compiled decoder needs at least one position in each.
    """
    # Arrays, the common case, are told apart by one exact type test each.
    all_arrays = all(type(x) is np.ndarray for x in X)
    lengths = np.array(
        [len(x) for x in X] if all_arrays else [_n_positions(x) for x in X], dtype=np.int64
    )
    if np.any(lengths == 0):
        raise _empty_sequence(f"X[{int(np.argmin(lengths))}]")
    offsets = offsets_of(lengths)
    if len(X) == 1:
        x = X[0]
        if scipy.sparse.issparse(x):
            return (x if scipy.sparse.isspmatrix_csr(x) else scipy.sparse.csr_matrix(x)), offsets
        return np.asarray(x, dtype=_stacked_dtype(X)), offsets
    if all_arrays:
        return stacked_rows(X, offsets, _stacked_dtype(X)), offsets
    if not any(scipy.sparse.issparse(x) for x in X):
        return np.concatenate(X).astype(np.float64, copy=False), offsets
    return _stacked_csr(X), offsets


def _stacked_dtype(X: Sequence[Any]) -> np.dtype:
    """Return the type of a dense stack of the sequences X: the common type of integer or bool
    arrays (uint8 pixels stay uint8, an eighth of float64), float64 for any other batch."""
    if not all(isinstance(x, np.ndarray) for x in X):
        return np.dtype(np.float64)
    common = functools.reduce(np.promote_types, {x.dtype for x in X})
    return common if common.kind in "biu" else np.dtype(np.float64)


def _stacked_csr(X: Sequence[np.ndarray | scipy.sparse.spmatrix]) -> scipy.sparse.csr_matrix:
    """Return the sequences stacked into one CSR matrix.

    Sequences that are consecutive runs of one pair of stored arrays, as the matrices of
    :class:`tasks.ChunkingFeatures` are, give a matrix on views of those arrays: no copy of
    the data, whose stored entries are the largest arrays of a sparse training set.
    """
    data = indices = None
    if all(scipy.sparse.isspmatrix_csr(x) and x.indptr[0] == 0 for x in X):
        lengths = [int(x.indptr[-1]) for x in X]
        data = _consecutive_runs([x.data for x in X], lengths)
        indices = _consecutive_runs([x.indices for x in X], lengths)
    if data is None or indices is None:
        return scipy.sparse.vstack(X, format="csr")
    starts = np.cumsum([0, *lengths[:-1]], dtype=np.int64)
    indptr = np.concatenate(
        [np.zeros(1, dtype=np.int64)]
        + [x.indptr[1:] + start for x, start in zip(X, starts, strict=True)]
    )
    return scipy.sparse.csr_matrix(
        (data, indices, indptr), shape=(len(indptr) - 1, X[0].shape[1])
    )


def _consecutive_runs(parts: Sequence[np.ndarray], lengths: Sequence[int]) -> np.ndarray | None:
    """Return one view of the 1-D arrays ``parts`` if they are views, of ``lengths`` entries,
    that lie one right after another in the same array; else None."""
    base = parts[0].base
    if not isinstance(base, np.ndarray) or base.ndim != 1 or not base.flags.c_contiguous:
        return None
    itemsize, origin = base.itemsize, base.__array_interface__["data"][0]
    first = expected = parts[0].__array_interface__["data"][0]
    for part, length in zip(parts, lengths, strict=True):
        if (
            part.base is not base or part.dtype != base.dtype or part.ndim != 1
            or len(part) != length or (length > 1 and part.strides[0] != itemsize)
            or part.__array_interface__["data"][0] != expected
        ):
            return None
        expected += length * itemsize
    begin = (first - origin) // itemsize
    return base[begin : begin + (expected - first) // itemsize]


def _stacked_runs(X: Sequence[Any], n_features: int) -> list[tuple[int, int]]:
    """Return the runs ``(begin, stop)`` of consecutive sequences that are stacked together.

    Dense arrays are cut into as few runs as keep each near :data:`STACKED_BYTES` of float64
    positions, of about equal numbers of positions (so that no run is left too short for
    threads); any other batch is one run.
    """
    if not X or not all(type(x) is np.ndarray for x in X):
        return [(0, len(X))]
    ends = np.cumsum([len(x) for x in X])
    n_runs = -(-int(ends[-1]) * 8 * max(n_features, 1) // STACKED_BYTES)
    cuts = np.searchsorted(ends, np.arange(1, n_runs) * ends[-1] / n_runs) + 1
    bounds = [0, *sorted(set(cuts.tolist()) - {0, len(X)}), len(X)]
    return list(itertools.pairwise(bounds))


def _csr_arrays(
    X_all: np.ndarray | scipy.sparse.csr_matrix,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(indptr, indices, data)`` of a stack of positions as int64, int, float64.

    The column indices of a sparse stack keep their type (int32 or int64): the compiled
    functions take either, and an int64 copy of a large stack's int32 indices would double
    their memory. Dense positions are converted on the calling thread (one pass over memory,
    which threads do not make faster).
    """
    if not scipy.sparse.issparse(X_all):
        return dense_rows_as_csr(X_all)
    indptr = X_all.indptr.astype(np.int64, copy=False)
    return indptr, X_all.indices, X_all.data.astype(np.float64, copy=False)


def _empty_sequence(name: str) -> ValueError:
    """Return the error for an empty sequence: a chain has at least one position."""
    return ValueError(f"{name} is an empty sequence: expected at least one position")


def _check_sequence(
    x: np.ndarray | scipy.sparse.spmatrix, name: str, n_features: int
) -> np.ndarray | scipy.sparse.csr_matrix:
    """Return a checked sequence: dense as a float64 or integer array, sparse as CSR float64
    with sorted, distinct columns.

    A dense integer or bool array is returned as it is: it is finite by construction, and
    uint8 takes an eighth of the memory of float64; the task converts positions to float64
    where it stacks them (:func:`_concatenate`), which gives the same values as converting
    here. A sparse matrix that already is CSR float64 with sorted, distinct columns is returned
    as it is too (the tasks never write into their data); any other sequence is converted into
    a new float64 array or matrix.
    """
    if scipy.sparse.issparse(x):
        check_feature_shape(x, name, ndim=2, n_features=n_features)
        if x.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be a numeric array, got a sparse matrix of {x.dtype}")
        canonical = (
            scipy.sparse.isspmatrix_csr(x) and x.dtype == np.float64 and x.has_canonical_format
        )
        if not canonical:
            x = scipy.sparse.csr_matrix(x, dtype=np.float64, copy=True)
            x.sum_duplicates()
        if not np.all(np.isfinite(x.data)):
            raise ValueError(f"{name} contains NaN or infinite values")
    elif isinstance(x, np.ndarray) and x.dtype.kind in "biu":
        check_feature_shape(x, name, ndim=2, n_features=n_features)
    else:
        x = check_feature_array(x, name, ndim=2, n_features=n_features)
    if x.shape[0] == 0:
        raise _empty_sequence(name)
    return x


def _stacked_labels(
    Y: Sequence[Any], name: str, n_labels: int, n_positions: int | None = None
) -> np.ndarray:
    """Return the labellings of ``Y`` concatenated as one int64 array of labels in range.

    The compiled oracles index their arrays by label, so a label outside ``0 .. n_labels - 1``
    is refused here (a ValueError naming ``name``) rather than read or written out of bounds,
    as is a total other than ``n_positions`` (when given).
    """
    try:
        labels = np.concatenate([np.asarray(y, dtype=np.int64) for y in Y])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a list of 1-D integer label arrays: {error}") from None
    if labels.ndim != 1:
        raise ValueError(
            f"{name} must be a list of 1-D integer label arrays, got {labels.ndim}-D labellings"
        )
    if labels.size and (labels.min() < 0 or labels.max() >= n_labels):
        raise ValueError(
            f"{name} has labels outside 0 .. {n_labels - 1}: found {labels.min()} .. {labels.max()}"
        )
    if n_positions is not None and len(labels) != n_positions:
        raise ValueError(f"every {name}[k] must have one label per position of X[k]")
    return labels

