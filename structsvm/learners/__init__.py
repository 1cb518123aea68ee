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

from structsvm.learners._bounds import margin, mistake_bound, radius
from structsvm.learners._feature_dicts import SequenceVectorizer
from structsvm.learners._kernel_multiclass import KernelMulticlassSVM
from structsvm.learners._latent import LatentStructuredSVM, latent_objective
from structsvm.learners._multiclass import MulticlassSVM
from structsvm.learners._multilabel import MultiLabelSVM
from structsvm.learners._perceptron import StructuredPerceptron
from structsvm.learners._performance import PerformanceSVM
from structsvm.learners._ranking import RankingSVM
from structsvm.learners._ranking_metrics import mean_ndcg, pairwise_accuracy
from structsvm.learners._sequence_tagger import SequenceTagger
from structsvm.learners._ssvm import StructuredSVM
from structsvm.learners._taxonomy import TaxonomySVM

__all__ = [
    "KernelMulticlassSVM",
    "LatentStructuredSVM",
    "MultiLabelSVM",
    "MulticlassSVM",
    "PerformanceSVM",
    "RankingSVM",
    "SequenceTagger",
    "SequenceVectorizer",
    "StructuredPerceptron",
    "StructuredSVM",
    "TaxonomySVM",
    "latent_objective",
    "margin",
    "mean_ndcg",
    "mistake_bound",
    "pairwise_accuracy",
    "radius",
]
