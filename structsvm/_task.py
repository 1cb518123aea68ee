"""The task contract: the four things a user writes to define a structured prediction problem.

A structured prediction task maps an input ``x`` to an output ``y`` from a set ``Y(x)`` that is
too large to treat as plain classes (a labelling of a sequence, a parse, …). A linear model scores
every candidate output with ``w · φ(x, y)`` and predicts the best one. Learners in this package
need only what :class:`Task` states: the joint feature map φ, the task loss Δ and the two oracles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import CompiledOracle
from structsvm._utils.validation import (
    check_consistent_length,
    check_examples,
    check_weights,
)


class Task:
    """Base class of structured prediction tasks.

    Subclass it and provide:

    ``size_joint_feature`` : int
        Length of the joint feature vector φ(x, y) (and so of the weight vector ``w``).
    ``joint_feature(x, y)``
        φ(x, y) as a 1-D ``float64`` array of length ``size_joint_feature``.
    ``loss(y_true, y)``
        Δ(y_true, y): a finite float, ``>= 0``, and exactly ``0`` when ``y`` equals ``y_true``.
    ``argmax(x, w)``
        An output maximising ``w · φ(x, y)`` over ``Y(x)``.
    ``loss_augmented_argmax(x, y_true, w)``
        An output maximising ``Δ(y_true, y) + w · φ(x, y)`` over ``Y(x)``.

    and, optionally, for training with slack rescaling (``StructuredSVM(rescaling="slack")``):

    ``slack_rescaled_argmax(x, y_true, w)``
        An output maximising ``Δ(y_true, y) · (1 − w · (φ(x, y_true) − φ(x, y)))`` over
        ``Y(x)`` (Tsochantaridis, Joachims, Hofmann & Altun 2005). The true output has value 0,
        so the maximum is never negative. The base class enumerates ``outputs(x)``; a task that
        does not enumerate its outputs and is trained with slack rescaling must override it
        (and ``batch_slack_rescaled_argmax`` for speed).

    The oracles must be exact (return a true maximiser) and deterministic (the same arguments
    give the same output); among tied maximisers a task picks by a fixed rule that its docstring
    states. The base class implements both oracles by enumeration when the task provides
    ``outputs(x)``, the list of every output of ``x``: it returns the first maximiser in the
    order ``outputs`` yields them. That is only for small output spaces (tests, tiny problems);
    real tasks override the oracles with dynamic programs or other exact solvers.

    An oracle that cannot guarantee an exact maximiser (approximate inference, a relaxation)
    may say so output by output: :meth:`is_certified` tells the solvers whether an output is a
    certified maximiser, and the history of a fit records, for every iteration, whether all
    of its oracle outputs were (``certified``), so that a duality gap is only called certified
    when it is. Such a task may also return outputs outside ``Y(x)`` — the fractional solution
    of a relaxation (Finley & Joachims, ICML 2008) — as long as ``joint_feature`` and ``loss``
    accept them; :meth:`output_key` then gives the solvers a key that tells outputs apart.

    Learners call the ``batch_*`` methods, which loop over examples here; tasks override them
    with vectorised or compiled versions, and :meth:`sparse_joint_feature` when φ is long and
    sparse. A task whose oracle is compiled with Numba may also hand it to the solvers as
    :meth:`compiled_oracle`, on which every solver runs its passes in compiled code. Inputs
    ``X`` and outputs ``Y`` are sequences indexable by example (a list, or an array whose first
    axis runs over examples).
    """

    size_joint_feature: int
    #: Whether the batch methods run compiled code on threads of their own (Numba's parallel
    #: loops): learners then pass their ``n_jobs`` as the number of threads
    #: (:func:`structsvm._utils.parallel.oracle_threads`) instead of joblib worker processes.
    threaded_batches: bool = False

    # ----------------------------------------------------------------- the contract itself
    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Return φ(x, y), a 1-D float64 array of length ``size_joint_feature``."""
        raise NotImplementedError(f"{type(self).__name__} must implement joint_feature(x, y)")

    def loss(self, y_true: Any, y: Any) -> float:
        """Return Δ(y_true, y) >= 0, with Δ(y_true, y_true) == 0."""
        raise NotImplementedError(f"{type(self).__name__} must implement loss(y_true, y)")

    def outputs(self, x: Any) -> Iterable[Any]:
        """Enumerate every output in Y(x). Optional; enables brute-force oracles and checks."""
        raise NotImplementedError(
            f"{type(self).__name__} does not enumerate its outputs: implement outputs(x), "
            "or override argmax and loss_augmented_argmax"
        )

    def argmax(self, x: Any, w: np.ndarray) -> Any:
        """Return an output maximising ``w · φ(x, y)`` (by enumeration in this base class)."""
        w = check_weights(w, check_size_joint_feature(self))
        return first_best(self.outputs(x), lambda y: self.score(x, y, w))

    def loss_augmented_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> Any:
        """Return an output maximising ``Δ(y_true, y) + w · φ(x, y)`` (by enumeration here)."""
        w = check_weights(w, check_size_joint_feature(self))
        return first_best(self.outputs(x), lambda y: self.loss(y_true, y) + self.score(x, y, w))

    def slack_rescaled_argmax(self, x: Any, y_true: Any, w: np.ndarray) -> Any:
        """Return an output maximising ``Δ(y_true, y) · (1 − w · (φ(x, y_true) − φ(x, y)))``.

        The most violated constraint of slack rescaling; this base class finds it by
        enumerating ``outputs(x)`` and returns the first maximiser in their order.

        Raises
        ------
        NotImplementedError
            If the task neither overrides this method nor implements ``outputs(x)``.

        References
        ----------
        I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun, "Large margin methods for
        structured and interdependent output variables", JMLR 6, 2005 (section 2.2).
        """
        try:
            candidates = list(self.outputs(x))
        except NotImplementedError:
            raise NotImplementedError(
                f"{type(self).__name__} has no slack-rescaled oracle: implement "
                "slack_rescaled_argmax(x, y_true, w) (and batch_slack_rescaled_argmax), or "
                "outputs(x) so that the base class can enumerate them"
            ) from None
        true_score = self.score(x, y_true, w)
        return first_best(
            candidates, lambda y: self.loss(y_true, y) * (1.0 - true_score + self.score(x, y, w))
        )

    # ----------------------------------------------------------------- derived helpers
    def score(self, x: Any, y: Any, w: np.ndarray) -> float:
        """Return the model score ``w · φ(x, y)``."""
        return np.asarray(self.joint_feature(x, y) @ w).item()

    def max_loss(self, y_true: Any) -> float:
        """Return the largest loss any output can have against ``y_true``.

        Optional; estimators' ``score`` uses it to normalise the loss to ``[0, 1]``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement max_loss(y_true) to be scored"
        )

    def outputs_equal(self, y: Any, other: Any) -> bool:
        """Tell whether two outputs are the same (element-wise equality of arrays)."""
        return bool(np.array_equal(np.asarray(y), np.asarray(other)))

    def output_key(self, y: Any) -> Hashable:
        """Return a hashable key that tells different outputs apart (of their array bytes).

        Solvers keep constraints by it. Tasks whose outputs are not arrays override it.
        """
        return array_key(y)

    def is_certified(self, y: Any) -> bool:
        """Tell whether an output of the oracles is a certified maximiser (always, here).

        Tasks with approximate oracles override it to return False for outputs that their
        inference could not certify, including relaxed (fractional) outputs. A duality gap is
        certified only when every output of the oracle pass it comes from is.
        """
        return True

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Validate a data set for this task and return it (possibly converted).

        The base class checks only that ``X`` and ``Y`` are non-empty and of the same length;
        tasks extend it with their own checks (feature width, label range, finiteness).

        Raises
        ------
        ValueError
            Naming the argument and what was expected.
        """
        check_examples(X, "X")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one example")
        if Y is not None:
            check_consistent_length(X, Y, "Y")
        return X, Y

    # ----------------------------------------------------------------- batch versions
    def batch_joint_feature(self, X: Sequence[Any], Y: Sequence[Any]) -> np.ndarray:
        """Return the joint features of many examples stacked as rows, shape (n, size).

        A dense array, or a CSR matrix when ``joint_feature`` returns sparse rows.
        """
        rows = [self.joint_feature(x, y) for x, y in zip(X, Y, strict=True)]
        if any(scipy.sparse.issparse(row) for row in rows):
            return scipy.sparse.vstack(
                [scipy.sparse.csr_matrix(row).reshape(1, -1) for row in rows], format="csr"
            )
        return np.array(rows)

    def sparse_joint_feature(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero entries of φ(x, y) as sorted column indices and their values.

        Solvers that keep their iterates sparse (bcfw) call it once per step, so its cost
        should grow with the entries, not with ``size_joint_feature``. The base class takes the
        only row of ``batch_joint_feature([x], [y])``; tasks with long, sparse joint features
        override it to skip building a matrix.

        Returns
        -------
        indices : ndarray of int64
            Distinct column indices in increasing order.
        values : ndarray of float64
            φ(x, y) at those columns (a task may keep entries that happen to be zero).
        """
        phi = self.batch_joint_feature([x], [y])
        if not scipy.sparse.issparse(phi):
            row = np.asarray(phi, dtype=np.float64).ravel()
            indices = np.flatnonzero(row)
            return indices, row[indices]
        row = scipy.sparse.csr_matrix(phi, dtype=np.float64)
        if not row.has_canonical_format:
            row = row.copy()
            row.sum_duplicates()
        return row.indices.astype(np.int64, copy=False), row.data

    def compiled_oracle(self, X: Sequence[Any], Y: Sequence[Any]) -> CompiledOracle | None:
        """Return the task's oracle compiled with Numba over (X, Y), or None.

        Every solver's compiled passes (1-slack, BCFW, n-slack, the perceptron, dual
        coordinate descent) run on it: see :class:`~structsvm.CompiledOracle` for its four
        functions, and "making your task fast" in the user guide for a complete example. The
        functions must answer exactly as :meth:`loss_augmented_argmax`, :meth:`argmax`,
        :meth:`loss` and :meth:`sparse_joint_feature` do (:func:`~structsvm.check_task` checks
        them against each other), so a subclass that overrides any of those should not keep
        its parent's compiled oracle (:func:`overrides_any` tells). The base class returns
        None: solvers then call the Python methods, and say so in the ``structsvm`` log.

        Parameters
        ----------
        X, Y : sequences of training inputs and outputs, as ``check_data`` returned them

        Returns
        -------
        CompiledOracle or None
        """
        return None

    def batch_loss(self, Y_true: Sequence[Any], Y: Sequence[Any]) -> np.ndarray:
        """Return Δ(Y_true[i], Y[i]) for every example, shape (n,)."""
        return np.array(
            [self.loss(y_true, y) for y_true, y in zip(Y_true, Y, strict=True)], dtype=float
        )

    def batch_argmax(self, X: Sequence[Any], w: np.ndarray) -> list[Any]:
        """Return ``argmax(x, w)`` for every input."""
        return [self.argmax(x, w) for x in X]

    def batch_loss_augmented_argmax(
        self, X: Sequence[Any], Y_true: Sequence[Any], w: np.ndarray
    ) -> list[Any]:
        """Return ``loss_augmented_argmax(x, y_true, w)`` for every example."""
        return [
            self.loss_augmented_argmax(x, y_true, w) for x, y_true in zip(X, Y_true, strict=True)
        ]

    def batch_slack_rescaled_argmax(
        self, X: Sequence[Any], Y_true: Sequence[Any], w: np.ndarray
    ) -> list[Any]:
        """Return ``slack_rescaled_argmax(x, y_true, w)`` for every example."""
        return [
            self.slack_rescaled_argmax(x, y_true, w) for x, y_true in zip(X, Y_true, strict=True)
        ]

    def batch_score(self, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray) -> np.ndarray:
        """Return ``w · φ(X[i], Y[i])`` for every example, shape (n,)."""
        w = check_weights(w, check_size_joint_feature(self))
        return np.asarray(self.batch_joint_feature(X, Y) @ w, dtype=float).ravel()


class LatentTask(Task):
    """Base class of tasks with hidden variables: outputs are pairs ``(y, h)``.

    A latent task scores an observed output y together with a hidden completion h (a sub-class,
    a hidden state per position, …) by ``w · φ(x, (y, h))``. Only y is observed in the training
    data and only y is predicted; h is completed by the learner
    (:class:`~structsvm.LatentStructuredSVM`, after Yu & Joachims 2009). On top of the
    :class:`Task` contract, where every output is a pair ``(y, h)``:

    ``joint_feature(x, (y, h))``
        φ(x, (y, h)), which may depend on both.
    ``loss((y_true, h_true), (y, h))``
        Δ(y_true, y): it looks at y only, so the hidden parts never count.
    ``argmax(x, w)`` and ``loss_augmented_argmax(x, (y_true, h_true), w)``
        Return the pair maximising ``w · φ`` (plus Δ) jointly over y and h.
    ``latent_argmax(x, y, w)``
        The completion: an h maximising ``w · φ(x, (y, h))`` for the known y. Exact and
        deterministic like the other oracles; the base class enumerates
        :meth:`latent_outputs`.
    ``initial_latent(X, Y, random_state)``
        The completions the learner starts from, one h per example; the task documents its
        rule (the ready-made tasks cluster the inputs of each label with k-means).
    ``check_data(X, Y)``
        Takes the observed outputs Y (not pairs), as ``fit`` receives them.

    and optionally ``latent_outputs(x, y)``, every h of an observed y, which enables the
    enumerating :meth:`latent_argmax` and lets :func:`~structsvm.check_task` verify the
    completion oracle exactly. ``batch_latent_argmax`` loops over examples here; tasks override
    it for speed.

    References
    ----------
    C.-N. J. Yu and T. Joachims, "Learning structural SVMs with latent variables", ICML 2009.
    """

    def latent_outputs(self, x: Any, y: Any) -> Iterable[Any]:
        """Enumerate every hidden completion h of an observed output y. Optional."""
        raise NotImplementedError(
            f"{type(self).__name__} does not enumerate its hidden completions: implement "
            "latent_outputs(x, y), or override latent_argmax"
        )

    def latent_argmax(self, x: Any, y: Any, w: np.ndarray) -> Any:
        """Return an h maximising ``w · φ(x, (y, h))`` (the first in ``latent_outputs`` order)."""
        return first_best(self.latent_outputs(x, y), lambda h: self.score(x, (y, h), w))

    def batch_latent_argmax(
        self, X: Sequence[Any], Y: Sequence[Any], w: np.ndarray
    ) -> list[Any]:
        """Return ``latent_argmax(x, y, w)`` for every example."""
        return [self.latent_argmax(x, y, w) for x, y in zip(X, Y, strict=True)]

    def initial_latent(
        self, X: Sequence[Any], Y: Sequence[Any], random_state: int | None = None
    ) -> list[Any]:
        """Return the completions h of the observed outputs Y that training starts from."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement initial_latent(X, Y, random_state)"
        )

    def outputs_equal(self, y: Any, other: Any) -> bool:
        """Tell whether two pairs ``(y, h)`` are equal part by part."""
        return all(
            np.array_equal(np.asarray(part), np.asarray(other_part))
            for part, other_part in zip(y, other, strict=True)
        )

    def output_key(self, y: Any) -> Hashable:
        """Return a key of a pair ``(y, h)``: the keys of its two parts."""
        return (array_key(y[0]), array_key(y[1]))


def first_best(candidates: Iterable[Any], value: Callable[[Any], float]) -> Any:
    """Return the first of the candidates of the largest ``value``."""
    candidates = list(candidates)
    return candidates[int(np.argmax([value(y) for y in candidates]))]


def array_key(y: Any) -> bytes:
    """Return a fingerprint of an output that is an array (its bytes, shape and dtype)."""
    array = np.ascontiguousarray(y)
    return hashlib.blake2b(
        array.tobytes() + str(array.shape).encode(), digest_size=16
    ).digest()


ORACLE_METHODS = (
    "argmax",
    "loss_augmented_argmax",
    "loss",
    "joint_feature",
    "sparse_joint_feature",
    "is_certified",
    "batch_argmax",
    "batch_loss_augmented_argmax",
    "batch_loss",
    "batch_joint_feature",
)
"""The methods of the contract that a task's compiled oracle stands for."""


def overrides_any(task: Task, base: type, names: Iterable[str] = ORACLE_METHODS) -> bool:
    """Tell whether the class of ``task`` redefines any of the methods ``names`` of ``base``.

    A task's compiled code stands for its Python methods; a subclass that changes one of them
    must not run its parent's compiled code.
    """
    return any(getattr(type(task), name) is not getattr(base, name) for name in names)


def check_size_joint_feature(task: Task) -> int:
    """Return ``task.size_joint_feature``, checked to be a positive integer.

    Raises
    ------
    TypeError
        If the task does not set it, or sets something other than a positive integer: a
        task states the length of φ(x, y), which is also the length of the weights ``w``.
    """
    size = getattr(task, "size_joint_feature", None)
    if size is None:
        raise TypeError(
            f"{type(task).__name__} has no size_joint_feature: set it (a class or instance "
            "attribute) to the length of the joint feature vector φ(x, y), which is also the "
            "length of the weight vector w"
        )
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise TypeError(
            f"{type(task).__name__}.size_joint_feature must be a positive integer (the length "
            f"of φ(x, y)), got {size!r}"
        )
    return int(size)
