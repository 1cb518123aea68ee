"""scikit-learn's estimator checks pass for the flat estimators.

Any check an estimator cannot pass is listed in ``EXPECTED_FAILURES`` with the reason; the
checks then run as strict expected failures, so a check that starts to pass is reported too.
MultiLabelSVM fails the checks that fit it on class labels rather than a 0/1 indicator matrix;
every other check passes; pandas inputs and array-API inputs are skipped by scikit-learn
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
    MultiLabelSVM,
    OneClassSVM,
    PerformanceSVM,
    RankingSVM,
)

_NOT_AN_INDICATOR = (
    "the check fits 1-D class labels, or one column of the values {1, 2}, where a multi-label "
    "estimator takes a 0/1 indicator matrix (n_samples, n_labels) and rejects anything else"
)

EXPECTED_FAILURES: dict[type, dict[str, str]] = {
    MulticlassSVM: {},
    MultiLabelSVM: {
        check: _NOT_AN_INDICATOR
        for check in (
            "check_estimators_dtypes",
            "check_classifier_data_not_an_array",
            "check_classifiers_one_label",
            "check_classifiers_classes",
            "check_classifiers_train",
            "check_classifier_not_supporting_multiclass",
            "check_fit2d_1feature",
        )
    },
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
        MultiLabelSVM(),
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
