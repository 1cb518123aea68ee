"""AD3: answers after any number of iterations, against enumeration."""

import pytest

from structsvm.inference import infer
from structsvm.inference._ad3 import ROUNDING_INTERVAL
from tests.inference.test_inference import (
    CASE_IDS,
    CASES,
    assert_consistent,
    make_model,
    reference_maximum,
)

LOOPY = [(case, name) for case, name in zip(CASES, CASE_IDS, strict=True) if case[1] != "tree"]


@pytest.mark.parametrize("max_iter", [1, ROUNDING_INTERVAL + 2])
@pytest.mark.parametrize("case", [case for case, _ in LOOPY], ids=[name for _, name in LOOPY])
def test_a_run_cut_short_between_roundings_still_answers_with_a_valid_bound(case, max_iter):
    result = infer(*make_model(case), "ad3", max_iter=max_iter)
    assert result.n_iter <= max_iter
    assert_consistent(result, case, reference_maximum(case))
