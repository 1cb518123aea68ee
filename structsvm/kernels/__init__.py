"""The classic SVM and kernel toolkit: kernels, the SVMs, the kernel perceptron and ridge.

Kernels on vectors (:class:`LinearKernel`, :class:`PolynomialKernel`, :class:`RBFKernel`,
:class:`SigmoidKernel`, :class:`ArcCosineKernel`), their combinations (``k1 + k2``, ``k1 * k2``,
``3 * k``, :class:`NormalizedKernel`), the string kernel :class:`AllSubsequencesKernel`, Gram
matrices and the Mercer check; the estimators :class:`BinarySVM` (with :func:`kkt_report`),
:class:`KernelPerceptron` and :class:`KernelRidge`, which share the kernel parameters of
:class:`KernelMachine`.
"""

from structsvm.kernels._arc_cosine import ArcCosineKernel
from structsvm.kernels._binary_svm import BinarySVM, NotSeparableError
from structsvm.kernels._kernels import (
    CallableKernel,
    Kernel,
    LinearKernel,
    MercerReport,
    NormalizedKernel,
    PolynomialKernel,
    ProductKernel,
    RBFKernel,
    ScaledKernel,
    SigmoidKernel,
    SumKernel,
    VectorKernel,
    check_mercer,
    feature_space_distance,
    gram_matrix,
)
from structsvm.kernels._kkt import KKTReport, kkt_report
from structsvm.kernels._machine import KernelMachine
from structsvm.kernels._one_class_svm import OneClassSVM
from structsvm.kernels._perceptron import KernelPerceptron
from structsvm.kernels._ridge import KernelRidge
from structsvm.kernels._string import AllSubsequencesKernel
from structsvm.kernels._svr import SVR

__all__ = [
    "SVR",
    "AllSubsequencesKernel",
    "ArcCosineKernel",
    "BinarySVM",
    "CallableKernel",
    "KKTReport",
    "Kernel",
    "KernelMachine",
    "KernelPerceptron",
    "KernelRidge",
    "LinearKernel",
    "MercerReport",
    "NormalizedKernel",
    "NotSeparableError",
    "OneClassSVM",
    "PolynomialKernel",
    "ProductKernel",
    "RBFKernel",
    "ScaledKernel",
    "SigmoidKernel",
    "SumKernel",
    "VectorKernel",
    "check_mercer",
    "feature_space_distance",
    "gram_matrix",
    "kkt_report",
]
