"""scikit-learn's estimator checks pass for the flat estimators.

Any check an estimator cannot pass is listed in ``EXPECTED_FAILURES`` with the reason; the
checks then run as strict expected failures, so a check that starts to pass is reported too.
Currently every check passes; pandas inputs and array-API inputs are skipped by scikit-learn
itself when pandas is absent or ``SCIPY_ARRAY_API`` is unset.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from structsvm import (
    SVR,
    BinarySVM,
    KernelMulticlassSVM,
    KernelPerceptron,
    KernelRidge,
    MulticlassSVM,
    OneClassSVM,
    PerformanceSVM,
    RankingSVM,
)

EXPECTED_FAILURES: dict[type, dict[str, str]] = {
    MulticlassSVM: {},
    KernelMulticlassSVM: {},
    BinarySVM: {},
    KernelPerceptron: {},
    KernelRidge: {},
    SVR: {},
    OneClassSVM: {},
    PerformanceSVM: {},
    RankingSVM: {},
}


def expected_failures(estimator) -> dict[str, str]:
    """Return the checks ``estimator`` is known to fail, with the reason for each."""
    return EXPECTED_FAILURES[type(estimator)]


@parametrize_with_checks(
    [
        MulticlassSVM(),
        KernelMulticlassSVM(),
        BinarySVM(C=1.0),
        KernelPerceptron(),
        KernelRidge(),
        SVR(),
        OneClassSVM(),
        PerformanceSVM(),
        RankingSVM(),
    ],
    expected_failed_checks=expected_failures,
    xfail_strict=True,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
