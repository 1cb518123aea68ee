"""Optimality certificates of a trained binary SVM: objectives, duality gap and KKT conditions.

For the multipliers λ and offset b of a :class:`~structsvm.BinarySVM`, with margins
``M_i = y_i f(x_i)`` and slacks ``ξ_i = max(0, 1 − M_i)`` (the smallest feasible ones):

* primal objective ``P = ½‖w‖² + C Σ ξ_i`` (hard margin: ``½‖w‖²``) with
  ``‖w‖² = Σ_ij λ_i λ_j y_i y_j K_ij``;
* dual objective ``D = Σ λ_i − ½‖w‖²``; weak duality gives ``P >= D``, with equality exactly at
  the optimum, so the gap ``P − D`` certifies how far the model is from optimal;
* complementary slackness: ``λ_i (M_i − 1 + ξ_i) = 0`` and ``(C − λ_i) ξ_i = 0``. Hence points
  with λ_i = 0 lie outside (or on) the margin, points with 0 < λ_i < C exactly on it, and only
  points with λ_i = C may violate it, by ``ξ_i = 1 − M_i``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from structsvm._utils.validation import check_consistent_length
from structsvm.kernels._binary_svm import BinarySVM


@dataclass
class KKTReport:
    """How well a trained SVM satisfies the optimality conditions on its training data.

    Attributes
    ----------
    primal_objective : float
        ``½‖w‖² + C Σ ξ_i`` (``½‖w‖²`` for the hard margin).
    dual_objective : float
        ``Σ λ_i − ½‖w‖²``.
    duality_gap : float
        ``primal_objective − dual_objective`` (>= 0 up to round-off; 0 at the optimum).
    complementary_slackness_violation : float
        ``max_i max(|λ_i (M_i − 1 + ξ_i)|, |(C − λ_i) ξ_i|)`` (the second term only for a soft
        margin).
    equality_violation : float
        ``|Σ λ_i y_i|``.
    primal_infeasibility : float
        Hard margin: ``max_i max(0, 1 − M_i)``, how far the margin constraints are broken;
        soft margin: 0 (the slacks absorb any violation).
    margins : ndarray of shape (n_samples,)
        ``M_i = y_i f(x_i)``.
    slacks : ndarray of shape (n_samples,)
        ``ξ_i = max(0, 1 − M_i)``.
    on_margin : ndarray of int
        Indices with 0 < λ_i < C (the free support vectors).
    margin_violators : ndarray of int
        Indices with λ_i = C (empty for the hard margin).
    outside_margin : ndarray of int
        Indices with λ_i = 0.
    """

    primal_objective: float
    dual_objective: float
    duality_gap: float
    complementary_slackness_violation: float
    equality_violation: float
    primal_infeasibility: float
    margins: np.ndarray
    slacks: np.ndarray
    on_margin: np.ndarray
    margin_violators: np.ndarray
    outside_margin: np.ndarray


def kkt_report(model: BinarySVM, X: Any, y: Any) -> KKTReport:
    """Check a trained SVM's optimality on the data it was trained on.

    Parameters
    ----------
    model : BinarySVM
        A fitted model.
    X : inputs
        The training inputs (the training Gram matrix for kernel="precomputed").
    y : array-like of shape (n_samples,)
        The training labels.

    Returns
    -------
    KKTReport
    """
    if not isinstance(model, BinarySVM):
        raise TypeError(f"model must be a BinarySVM, got {type(model).__name__}")
    check_consistent_length(X, y)
    signs = model.signed_labels(y)
    multipliers = model.dual_coef_
    if len(signs) != len(multipliers):
        raise ValueError(
            f"X and y must be the {len(multipliers)} training examples, got {len(signs)}"
        )
    margins = signs * model.decision_function(X)
    slacks = np.maximum(0.0, 1.0 - margins)
    half_norm_squared = 0.5 / model.margin_**2
    dual = float(multipliers.sum() - half_norm_squared)
    slackness = np.abs(multipliers * (margins - 1.0 + slacks))
    if model.C is None:
        primal = half_norm_squared
        upper_bound = np.inf
        infeasibility = float(slacks.max())
    else:
        primal = half_norm_squared + model.C * float(slacks.sum())
        upper_bound = model.C
        infeasibility = 0.0
        slackness = np.maximum(slackness, np.abs((model.C - multipliers) * slacks))
    return KKTReport(
        primal_objective=primal,
        dual_objective=dual,
        duality_gap=primal - dual,
        complementary_slackness_violation=float(slackness.max()),
        equality_violation=float(abs(multipliers @ signs)),
        primal_infeasibility=infeasibility,
        margins=margins,
        slacks=slacks,
        on_margin=np.flatnonzero((multipliers > 0) & (multipliers < upper_bound)),
        margin_violators=np.flatnonzero(multipliers == upper_bound),
        outside_margin=np.flatnonzero(multipliers == 0),
    )
