"""structsvm: structured prediction with max-margin methods.

A task (:class:`Task`) states the problem: a joint feature map, a loss and two argmax oracles;
:func:`check_task` checks that it keeps its contract, and a task that decodes in Numba hands
its oracle to the solvers as a :class:`CompiledOracle`. Learners (:mod:`structsvm.learners`)
find the weights: :class:`StructuredPerceptron` and :class:`StructuredSVM` for any task,
:class:`LatentStructuredSVM` for tasks with hidden variables (:class:`LatentTask`),
:class:`MulticlassSVM`, :class:`KernelMulticlassSVM`, :class:`MultiLabelSVM` and
:class:`PerformanceSVM` (F1 and other multivariate performance measures) as flat classifiers,
:class:`RankingSVM` (with :func:`pairwise_accuracy` and :func:`mean_ndcg`) as a ranker of
documents by query, :class:`SequenceTagger` as a tagger of sentences of per-token feature
dicts (:class:`SequenceVectorizer`); the optimisation methods are in
:mod:`structsvm.solvers` and the QPs in :mod:`structsvm.qp`.
:func:`infer` (:mod:`structsvm.inference`) finds the best labelling of a pairwise graphical
model, exactly or through a relaxation with its bound. :class:`ParallelTask` spreads a task's
oracle calls over joblib workers (local or Dask).
The classic toolkit (:mod:`structsvm.kernels`) holds the binary SVM (:class:`BinarySVM`, with
:func:`kkt_report`), support vector regression (:class:`SVR`), the :class:`OneClassSVM`, the
:class:`KernelPerceptron`, :class:`KernelRidge` and the kernels.
:func:`save` and :func:`load` write and read model files, which hold no code (a
class of your own is :func:`register`-ed or passed to :func:`load`).
:mod:`structsvm.io` reads and writes the data files of SVM^light, SVM^multiclass, SVM^rank and
SVM^hmm; :mod:`structsvm.cli` is the ``structsvm`` command, SVM^struct's learn and classify
tools on those files. Calling a method that needs a fit first raises :class:`NotFittedError`; a
solver stopped by its budget warns with a :class:`ConvergenceWarning` (both are scikit-learn's
classes too once scikit-learn is imported).
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "structsvm._check_task": (
            "TaskCheckReport",
            "TaskContractError",
            "TaskProblem",
            "check_task",
        ),
        "structsvm._compiled_oracle": ("CompiledOracle", "ScoreTable"),
        "structsvm._contract": ("TaskContractViolation",),
        "structsvm._task": ("LatentTask", "Task"),
        "structsvm._utils.estimator": ("ConvergenceWarning", "NotFittedError"),
        "structsvm._utils.parallel": ("ParallelTask",),
        "structsvm.inference": ("INFERENCE_METHODS", "InferenceResult", "infer"),
        "structsvm.io": ("ModelFileError", "load", "register", "save"),
        "structsvm.kernels": (
            "SVR",
            "AllSubsequencesKernel",
            "ArcCosineKernel",
            "BinarySVM",
            "Kernel",
            "KernelPerceptron",
            "KernelRidge",
            "KKTReport",
            "LinearKernel",
            "NormalizedKernel",
            "NotSeparableError",
            "OneClassSVM",
            "PolynomialKernel",
            "RBFKernel",
            "SigmoidKernel",
            "check_mercer",
            "feature_space_distance",
            "gram_matrix",
            "kkt_report",
        ),
        "structsvm.learners": (
            "KernelMulticlassSVM",
            "LatentStructuredSVM",
            "MulticlassSVM",
            "MultiLabelSVM",
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
        ),
    },
)

__version__ = "0.1.0"
