"""MultiLabelSVM refuses targets that are not a dense 0/1 indicator, naming Y."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm import MultiLabelSVM


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (sp.csr_matrix, TypeError, r"Y must be a dense 0/1 indicator array.*Y\.toarray\(\)"),
        (lambda Y: Y * 0.5, ValueError, "^Y: Unknown label type"),
        (lambda Y: Y * 2, ValueError, "Y must hold only 0 and 1"),
    ],
    ids=["sparse", "fractional", "not binary"],
)
def test_targets_that_are_not_a_dense_indicator_are_refused_naming_y(make, error, message):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(12, 3)), rng.integers(0, 2, (12, 3))
    with pytest.raises(error, match=message):
        MultiLabelSVM(max_iter=2).fit(X, make(Y))
