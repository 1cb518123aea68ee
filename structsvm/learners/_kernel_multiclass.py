"""The kernel multiclass structural SVM: Crammer–Singer with any kernel, by n-slack cutting planes.

The structural SVM of :class:`~structsvm.StructuredSVM` on the multiclass task, with the
joint feature map ``φ(x, y) = e_y ⊗ φ_k(x)`` known only through the kernel k
(:class:`~structsvm.solvers._joint_kernel.MulticlassJointKernel`), trained by the cutting-plane
loop of every structural SVM (:func:`~structsvm.solvers.joint_kernel_n_slack`).
"""

from __future__ import annotations

import os
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from structsvm._utils.estimator import ClassifierMixin
from structsvm._utils.fingerprint import data_digest
from structsvm._utils.validation import (
    Interval,
    ParameterConstraints,
    check_class_labels,
    check_consistent_length,
)
from structsvm.kernels._kernels import Kernel
from structsvm.kernels._machine import KernelMachine, expansion_attributes
from structsvm.learners._iterative import IterativeEstimator, interruptible_fit
from structsvm.solvers import SolverState, joint_kernel_n_slack
from structsvm.solvers._joint_kernel import MulticlassJointKernel


class KernelMulticlassSVM(IterativeEstimator, ClassifierMixin, KernelMachine):
    r"""Multiclass structural SVM with a kernel (Crammer & Singer, JMLR 2001).

    Minimises, over functions ``f_y(x) = ⟨w_y, φ_k(x)⟩`` in the feature space of the kernel k,

    .. math:: \tfrac12 \sum_y \|w_y\|^2 + C \sum_i \max_y \big([y \ne y_i]
              + f_y(x_i) − f_{y_i}(x_i)\big),

    the objective of :class:`~structsvm.StructuredSVM` on the multiclass task with the 0/1 loss
    and margin rescaling. The n-slack cutting-plane algorithm (Tsochantaridis, Joachims, Hofmann
    & Altun, JMLR 2005) runs on the joint kernel ``k(x, x')·[y = y']``: the weights are a kernel
    expansion over the working set, the QP sees only its Gram matrix, and the model keeps the
    training points with a nonzero coefficient (the support vectors). With ``kernel="linear"``
    it finds the model of ``StructuredSVM(MulticlassTask(...), solver="n-slack")``.

    The n × n kernel matrix of the training inputs is computed once per fit and kept in memory,
    which suits up to a few thousand examples (5000 examples take 200 MB).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slacks; larger C fits the training data more closely.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, Kernel or callable, default="rbf"
        The input kernel k; see :class:`~structsvm.kernels._machine.KernelMachine`.
    degree : int, default=3
        Degree p of the "poly" kernel ``(γ⟨x, z⟩ + r)^p``.
    gamma : float or "scale", default="scale"
        γ of the "rbf", "poly" and "sigmoid" kernels; "scale" is ``1 / (n_features · X.var())``.
    coef0 : float, default=0.0
        r of the "poly" and "sigmoid" kernels.
    tol : float, default=1e-3
        Stop when the duality gap ``P − D`` is at most ``tol · P``.
    max_iter : int, default=200
        Most iterations (QP solves).
    inactive_window : int, default=1
        Drop a constraint after its dual variable stayed zero for this many iterations.
    progress : bool, default=False
        Show a tqdm progress bar during fit (see :class:`~structsvm.StructuredSVM`).
    verbose : int, default=0
        1 or more also logs every iteration and a summary to the ``structsvm`` logger.
    warm_start : bool, default=False
        If True and the estimator is already fitted (also after an interrupted fit, or when
        loaded by :meth:`load_checkpoint`), ``fit`` continues the earlier optimisation from its
        working set for up to ``max_iter`` further iterations, as one uninterrupted fit would
        have gone on. Another number of examples or classes, or another C, raises ValueError, and
        so do other training data, labels or kernel if the earlier fit ran with
        ``warm_start=True`` or a ``checkpoint`` (which record a digest of its Gram matrix).
    checkpoint : str or path-like, optional
        File to which the estimator is written atomically every ``checkpoint_every``
        iterations and when fit ends; resume with
        ``KernelMulticlassSVM.load_checkpoint(path).fit(X, y)``.
    checkpoint_every : int, default=10
        Write the checkpoint after every iteration whose number is a multiple of this.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; column y of :meth:`class_scores` scores ``classes_[y]``.
    support_ : ndarray of shape (n_support,)
        Indices of the support vectors among the training examples.
    support_vectors_ : ndarray or sequence
        The support vectors (None for ``kernel="precomputed"``).
    dual_coef_ : ndarray of shape (n_support, n_classes)
        Coefficients A of the expansion: the score of class y is ``Σ_s k(x_s, x) A[s, y]``.
    kernel_ : Kernel or None
        The kernel used (None for "precomputed").
    history_ : list of dict
        One record per iteration: ``iteration``, ``primal``, ``dual``, ``gap``,
        ``relative_gap``, ``n_constraints`` (working-set size), ``oracle_calls``, ``qp_time``
        and ``time`` (cumulative seconds).
    n_iter_ : int
        Iterations run (QP solves).
    converged_ : bool
        Whether the relative duality gap reached ``tol``. A fit that used up ``max_iter``
        without reaching it warns with a :class:`~structsvm.ConvergenceWarning`.
    primal_objective_, dual_objective_, duality_gap_ : float
        The last iteration's values; the primal objective is exact (``½αᵀGα`` plus C times the
        slacks found by the oracle).
    interrupted_ : bool
        Whether fit was stopped by KeyboardInterrupt (the last iteration's model is kept, and a
        fit with ``warm_start=True`` continues from it).
    dual_state_ : CuttingPlaneDual
        The solver's state after the last iteration, from which a warm start continues.
    """

    _parameter_constraints: ClassVar[ParameterConstraints] = {
        "C": [Interval(Real, 0, None, closed="neither")],
        **KernelMachine._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "inactive_window": [Interval(Integral, 1, None, closed="left")],
        **IterativeEstimator._parameter_constraints,
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        kernel: str | Kernel | Any = "rbf",
        degree: int = 3,
        gamma: float | str = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        max_iter: int = 200,
        inactive_window: int = 1,
        progress: bool = False,
        verbose: int = 0,
        warm_start: bool = False,
        checkpoint: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 10,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.inactive_window = inactive_window
        self.progress = progress
        self.verbose = verbose
        self.warm_start = warm_start
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every

    @interruptible_fit
    def fit(self, X: Any, y: Any) -> KernelMulticlassSVM:
        """Train on inputs X and labels y (at least two distinct values); return self.

        With ``warm_start=True`` on a fitted estimator, continue the earlier fit.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        inputs, gram = self._fit_gram(X)  # validates every hyper-parameter first
        C = float(self.C)
        options = {
            "tol": float(self.tol),
            "max_iter": self.max_iter,
            "inactive_window": self.inactive_window,
        }
        check_consistent_length(gram, y)
        y = check_class_labels(y)
        classes, labels = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"y must hold at least two classes, got 1 class: {classes[0]!r}")
        labels = labels.reshape(-1)
        key = {
            "solver": "n-slack",
            "task": f"multiclass, {len(classes)} classes",
            "n_examples": len(labels),
            "C": C,
        }
        if self.warm_start or self.checkpoint is not None:
            # Only a continuation checks the data: the Gram matrix stands for inputs and kernel.
            key["data"] = data_digest([gram, labels])
        initial = self._continued_state(key)
        problem = MulticlassJointKernel(gram, labels, len(classes))
        self._fit_inputs, self._fit_classes = inputs, classes
        try:
            self._run_solver(
                joint_kernel_n_slack(problem, C, initial_state=initial, **options),
                initial_state=initial,
                max_iter=options["max_iter"],
                verbose=self.verbose,
                checkpoint_every=self.checkpoint_every,
                key=key,
            )
        finally:
            del self._fit_inputs, self._fit_classes
        return self

    _kept_on_refit = ("kernel_", "n_features_in_")  # set by _fit_gram before the solver runs

    def _fitted_attributes(self, state: SolverState) -> dict[str, Any]:
        last = state.history[-1]
        expansion = state.w
        coef = expansion.problem.dual_coef(expansion.constraints, expansion.alpha)
        support = np.flatnonzero(np.any(coef != 0.0, axis=1))
        return {
            "classes_": self._fit_classes,
            "primal_objective_": last["primal"],
            "dual_objective_": last["dual"],
            "duality_gap_": last["gap"],
            **expansion_attributes(
                self._fit_inputs, expansion.problem.n_examples, support, coef, 0.0
            ),
            "dual_coef_": coef[support],
        }

    def class_scores(self, X: Any) -> np.ndarray:
        """Return the class scores ``Σ_s k(x_s, x) A[s, y]``, shape (n_inputs, n_classes)."""
        return self._expansion(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Return the class scores, as scikit-learn classifiers do.

        Returns
        -------
        ndarray of shape (n_inputs, n_classes), or (n_inputs,) for two classes
            With three or more classes, :meth:`class_scores`; with two, the score of
            ``classes_[1]`` minus that of ``classes_[0]`` (positive means ``classes_[1]``).
        """
        scores = self.class_scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """Return the class with the highest score for every input (ties: the first class)."""
        scores = self.class_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]
