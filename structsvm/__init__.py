"""structsvm: structured prediction with max-margin methods.

A task (:class:`Task`) states the problem: a joint feature map, a loss and two argmax oracles.
Learners find the weights: :class:`StructuredPerceptron` and :class:`StructuredSVM`;
:class:`ParallelTask` spreads a task's oracle calls over joblib workers (local or Dask).
The kernel toolkit holds the binary SVM (:class:`BinarySVM`, with :func:`kkt_report`), the
:class:`KernelPerceptron`, :class:`KernelRidge` and the kernels of :mod:`structsvm.kernels` and
:mod:`structsvm.string_kernels`.
"""

from structsvm.bounds import margin, mistake_bound, radius
from structsvm.check import TaskCheckReport, TaskContractError, TaskProblem, check_task
from structsvm.kernel_perceptron import KernelPerceptron
from structsvm.kernel_ridge import KernelRidge
from structsvm.kernel_ssvm import KernelMulticlassSVM
from structsvm.kernels import (
    Kernel,
    LinearKernel,
    NormalizedKernel,
    PolynomialKernel,
    RBFKernel,
    SigmoidKernel,
    check_mercer,
    feature_space_distance,
    gram_matrix,
)
from structsvm.kkt import KKTReport, kkt_report
from structsvm.parallel import ParallelTask
from structsvm.perceptron import StructuredPerceptron
from structsvm.solvers.oracle import TaskContractViolation
from structsvm.ssvm import StructuredSVM
from structsvm.string_kernels import AllSubsequencesKernel
from structsvm.svm import BinarySVM, NotSeparableError
from structsvm.task import Task

__all__ = [
    "AllSubsequencesKernel",
    "BinarySVM",
    "KKTReport",
    "Kernel",
    "KernelMulticlassSVM",
    "KernelPerceptron",
    "KernelRidge",
    "LinearKernel",
    "NormalizedKernel",
    "NotSeparableError",
    "ParallelTask",
    "PolynomialKernel",
    "RBFKernel",
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
    "mistake_bound",
    "radius",
]
__version__ = "0.1.0"
