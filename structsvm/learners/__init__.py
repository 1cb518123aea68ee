"""Estimators for structured outputs: they hold a task (or build one) and learn its weights.

:class:`StructuredSVM` and :class:`StructuredPerceptron` learn any :class:`~structsvm.Task`,
:class:`LatentStructuredSVM` a :class:`~structsvm.LatentTask` with hidden variables;
:class:`MulticlassSVM` and :class:`KernelMulticlassSVM` are flat scikit-learn classifiers built
on the multiclass structural SVM, :class:`MultiLabelSVM` a multi-label classifier on a
graph over the labels, :class:`PerformanceSVM` a binary one trained for F1 or another
multivariate performance measure, :class:`RankingSVM` a ranker of documents by query, scored by
:func:`pairwise_accuracy` or :func:`mean_ndcg`, :class:`TaxonomySVM` a classifier into the
leaves of a tree, :class:`SequenceTagger` a tagger of sentences of per-token feature dicts
(:class:`SequenceVectorizer`) with string tags. :func:`radius`, :func:`margin` and
:func:`mistake_bound` give the perceptron's mistake bound.
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "structsvm.learners._bounds": ("margin", "mistake_bound", "radius"),
        "structsvm.learners._feature_dicts": ("SequenceVectorizer",),
        "structsvm.learners._kernel_multiclass": ("KernelMulticlassSVM",),
        "structsvm.learners._latent": ("LatentStructuredSVM", "latent_objective"),
        "structsvm.learners._multiclass": ("MulticlassSVM",),
        "structsvm.learners._multilabel": ("MultiLabelSVM",),
        "structsvm.learners._perceptron": ("StructuredPerceptron",),
        "structsvm.learners._performance": ("PerformanceSVM",),
        "structsvm.learners._ranking": ("RankingSVM",),
        "structsvm.learners._ranking_metrics": ("mean_ndcg", "pairwise_accuracy"),
        "structsvm.learners._sequence_tagger": ("SequenceTagger",),
        "structsvm.learners._ssvm": ("StructuredSVM",),
        "structsvm.learners._taxonomy": ("TaxonomySVM",),
    },
)
