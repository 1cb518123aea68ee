"""structsvm: structured prediction with max-margin methods.

A task (:class:`Task`) states the problem: a joint feature map, a loss and two argmax oracles;
:func:`check_task` checks that it keeps its contract. Learners (:mod:`structsvm.learners`) find
the weights: :class:`StructuredPerceptron` and :class:`StructuredSVM` for any task,
:class:`MulticlassSVM`, :class:`KernelMulticlassSVM` and :class:`PerformanceSVM` (F1 and other
multivariate performance measures) as flat classifiers, :class:`RankingSVM` (with
:func:`pairwise_accuracy` and :func:`mean_ndcg`) as a ranker of documents by query; the
optimisation methods are in :mod:`structsvm.solvers` and the QPs in :mod:`structsvm.qp`.
:class:`ParallelTask` spreads a task's oracle calls over joblib workers (local or Dask).
The classic toolkit (:mod:`structsvm.kernels`) holds the binary SVM (:class:`BinarySVM`, with
:func:`kkt_report`), the :class:`KernelPerceptron`, :class:`KernelRidge` and the kernels.
"""

from structsvm._check_task import TaskCheckReport, TaskContractError, TaskProblem, check_task
from structsvm._contract import TaskContractViolation
from structsvm._task import Task
from structsvm._utils.parallel import ParallelTask
from structsvm.kernels import (
    AllSubsequencesKernel,
    BinarySVM,
    Kernel,
    KernelPerceptron,
    KernelRidge,
    KKTReport,
    LinearKernel,
    NormalizedKernel,
    NotSeparableError,
    PolynomialKernel,
    RBFKernel,
    SigmoidKernel,
    check_mercer,
    feature_space_distance,
    gram_matrix,
    kkt_report,
)
from structsvm.learners import (
    KernelMulticlassSVM,
    MulticlassSVM,
    PerformanceSVM,
    RankingSVM,
    StructuredPerceptron,
    StructuredSVM,
    margin,
    mean_ndcg,
    mistake_bound,
    pairwise_accuracy,
    radius,
)

__all__ = [
    "AllSubsequencesKernel",
    "BinarySVM",
    "KKTReport",
    "Kernel",
    "KernelMulticlassSVM",
    "KernelPerceptron",
    "KernelRidge",
    "LinearKernel",
    "MulticlassSVM",
    "NormalizedKernel",
    "NotSeparableError",
    "ParallelTask",
    "PerformanceSVM",
    "PolynomialKernel",
    "RBFKernel",
    "RankingSVM",
    "SigmoidKernel",
    "StructuredPerceptron",
    "StructuredSVM",
    "Task",
    "TaskCheckReport",
    "TaskContractError",
    "TaskContractViolation",
    "TaskProblem",
    "check_mercer",
    "check_task",
    "feature_space_distance",
    "gram_matrix",
    "kkt_report",
    "margin",
    "mean_ndcg",
    "mistake_bound",
    "pairwise_accuracy",
    "radius",
]
__version__ = "0.1.0"
