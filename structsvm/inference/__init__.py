"""MAP inference in pairwise graphical models, for tasks whose outputs label a graph.

:func:`infer` maximises Σ_i unary[i, y_i] + Σ_e pairwise[e, y_u, y_v] over the labellings of
any graph with the method asked for (:data:`INFERENCE_METHODS`: enumeration, ILP, LP, loopy
max-product, AD3, TRW-S, α-expansion, αβ-swap and QPBO) and returns an
:class:`InferenceResult`: the labelling, its score, an upper bound on the maximum and whether
the labelling is certified optimal. :func:`hamming_augmented_unary` folds the weighted Hamming
loss into the unary scores for loss-augmented inference. :func:`infer_many` infers many
models that share a graph and pairwise scores, at once where the method allows.
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "structsvm.inference._infer": ("INFERENCE_METHODS", "infer", "infer_many"),
        "structsvm.inference._loss": ("hamming_augmented_unary",),
        "structsvm.inference._result": ("InferenceResult",),
    },
)
