"""TRW-S: its bound against the LP and over iterations, certificates, Potts messages."""

import itertools

import numpy as np
import pytest

from structsvm.inference import infer
from structsvm.inference._local_search import potts_tables
from structsvm.inference._trws import _send, _send_potts
from tests.inference.test_inference import CASE_IDS, CASES, grid, make_model

LOOPY = [(case, name) for case, name in zip(CASES, CASE_IDS, strict=True) if case[1] != "tree"]


@pytest.mark.parametrize("case", [case for case, _ in LOOPY], ids=[name for _, name in LOOPY])
def test_the_bound_is_never_below_the_lp_bound_and_never_rises_with_more_round_trips(case):
    model = make_model(case)
    lp_bound = infer(*model, "lp").bound
    bounds = [infer(*model, "trws", max_iter=n, tol=1e-15).bound for n in (1, 2, 5, 20)]
    assert all(bound >= lp_bound - 1e-7 for bound in bounds)
    assert all(later <= earlier + 1e-9 for earlier, later in itertools.pairwise(bounds))


def test_strong_unaries_on_a_potts_grid_are_certified():
    rng = np.random.default_rng(0)
    edges = grid(rng, 8, 8)
    truth = np.repeat(np.arange(4), 16)
    unary = rng.normal(size=(64, 4))
    unary[np.arange(64), truth] += 3.0
    result = infer(unary, edges, 0.5 * np.eye(4), "trws")
    assert result.certified and result.bound == result.score


@pytest.mark.parametrize("from_first", [True, False])
def test_potts_messages_equal_the_general_ones(from_first):
    rng = np.random.default_rng(1)
    tables = np.stack(
        [np.diag(rng.normal(size=5)) + 0.7 * (1 - np.eye(5)), rng.normal(size=(5, 5))]
    )
    potts, diagonal, off_diagonal = potts_tables(tables)
    assert potts.tolist() == [True, False]
    cavity = rng.normal(size=5)
    cavity[3] = cavity[1]  # a tie at the top is handled
    general, fast = np.zeros((1, 2, 5)), np.zeros((1, 2, 5))
    top = _send(cavity, tables, 0, from_first, general, 0, 1)
    assert _send_potts(cavity, diagonal, off_diagonal, 0, fast, 0, 1) == pytest.approx(top)
    np.testing.assert_allclose(fast, general)
