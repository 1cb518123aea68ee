"""MAP inference in pairwise graphical models, for tasks whose outputs label a graph.

:func:`infer` maximises Σ_i unary[i, y_i] + Σ_e pairwise[e, y_u, y_v] over the labellings of
any graph with the method asked for (:data:`INFERENCE_METHODS`: enumeration, ILP, LP, loopy
max-product, AD3, TRW-S, α-expansion, αβ-swap and QPBO) and returns an
:class:`InferenceResult`: the labelling, its score, an upper bound on the maximum and whether
the labelling is certified optimal. :func:`hamming_augmented_unary` folds the weighted Hamming
loss into the unary scores for loss-augmented inference. :func:`infer_many` infers many
models that share a graph and pairwise scores, at once where the method allows.
"""

from structsvm.inference._infer import INFERENCE_METHODS, infer, infer_many
from structsvm.inference._loss import hamming_augmented_unary
from structsvm.inference._result import InferenceResult

__all__ = [
    "INFERENCE_METHODS",
    "InferenceResult",
    "hamming_augmented_unary",
    "infer",
    "infer_many",
]
