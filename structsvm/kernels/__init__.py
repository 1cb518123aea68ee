"""The classic SVM and kernel toolkit: kernels, the SVMs, the kernel perceptron and ridge.

Kernels on vectors (:class:`LinearKernel`, :class:`PolynomialKernel`, :class:`RBFKernel`,
:class:`SigmoidKernel`, :class:`ArcCosineKernel`), their combinations (``k1 + k2``, ``k1 * k2``,
``3 * k``, :class:`NormalizedKernel`), the string kernel :class:`AllSubsequencesKernel`, Gram
matrices and the Mercer check; the estimators :class:`BinarySVM` (with :func:`kkt_report`),
:class:`KernelPerceptron` and :class:`KernelRidge`, which share the kernel parameters of
:class:`KernelMachine`.
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "structsvm.kernels._arc_cosine": ("ArcCosineKernel",),
        "structsvm.kernels._binary_svm": ("BinarySVM", "NotSeparableError"),
        "structsvm.kernels._kernels": (
            "CallableKernel",
            "Kernel",
            "LinearKernel",
            "MercerReport",
            "NormalizedKernel",
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
        ),
        "structsvm.kernels._kkt": ("KKTReport", "kkt_report"),
        "structsvm.kernels._machine": ("KernelMachine",),
        "structsvm.kernels._one_class_svm": ("OneClassSVM",),
        "structsvm.kernels._perceptron": ("KernelPerceptron",),
        "structsvm.kernels._ridge": ("KernelRidge",),
        "structsvm.kernels._string": ("AllSubsequencesKernel",),
        "structsvm.kernels._svr": ("SVR",),
    },
)
