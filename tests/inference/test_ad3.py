"""AD3: answers after any number of iterations, from either start, against enumeration."""

import numpy as np
import pytest

from structsvm.inference import infer
from structsvm.inference._ad3 import (
    ROUNDING_INTERVAL,
    WARM_START_ROUND_TRIPS,
    _start_from_trws,
    ad3,
    ad3_options,
    ad3_state,
)
from structsvm.inference._graph import check_model
from structsvm.inference._local_search import icm, node_adjacency
from structsvm.inference._result import GAP_TOLERANCE, closes_gap
from structsvm.inference._trws import TOL, TrwsOptions, trws_passes
from tests.inference.test_inference import (
    CASE_IDS,
    CASES,
    TIGHT,
    assert_consistent,
    assert_encloses_the_maximum,
    drifting_maxima,
    drifting_models,
    make_model,
    reference_maximum,
)
from tests.references import pairwise_model_score

LOOPY = [(case, name) for case, name in zip(CASES, CASE_IDS, strict=True) if case[1] != "tree"]
LOOPY_CASES, LOOPY_IDS = [case for case, _ in LOOPY], [name for _, name in LOOPY]


@pytest.mark.parametrize("warm_start", [True, False])
@pytest.mark.parametrize("max_iter", [1, ROUNDING_INTERVAL + 2])
@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_a_run_cut_short_between_roundings_still_answers_with_a_valid_bound(
    case, max_iter, warm_start
):
    result = infer(*make_model(case), "ad3", max_iter=max_iter, warm_start=warm_start)
    assert result.n_iter <= max_iter
    assert_consistent(result, case, reference_maximum(case))


def _trws_start(case):
    """The model's arrays, and TRW-S's passes as AD3's warm start runs them."""
    model = check_model(*make_model(case))
    adjacency = node_adjacency(model.n_nodes, model.edges)
    arrays = (model.unary, model.tables, model.per_edge, model.edges)
    options = TrwsOptions(WARM_START_ROUND_TRIPS, TOL)
    messages = np.zeros((model.n_edges, 2, model.n_states))
    passes = trws_passes(*arrays, adjacency, options, GAP_TOLERANCE, messages)
    return model, (*arrays, *adjacency), passes


@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_the_warm_start_splits_the_trws_reparametrisation_evenly_over_the_edges(case):
    """Edge (u, v) gets θ̄_uv + θ̂_u / d_u + θ̂_v / d_v from TRW-S's messages m, with θ̂_u =
    θ_u + Σ_w m_{w→u} and θ̄_uv(a, b) = θ_uv(a, b) − m_{v→u}(a) − m_{u→v}(b); p and q sit on
    TRW-S's labelling."""
    model, _, passes = _trws_start(case)
    unary, edges, labels = model.unary, model.edges, passes.labels
    degree = model.degrees()
    state = ad3_state(model.n_nodes, model.n_edges, model.n_states)
    _start_from_trws(unary, edges, degree, passes, state)
    p, multipliers, support = state.p, state.multipliers, state.support
    earlier = edges.min(axis=1)
    into_first = np.where(
        (edges[:, 0] == earlier)[:, None], passes.messages[:, 1], passes.messages[:, 0]
    )
    into_second = np.where(
        (edges[:, 0] == earlier)[:, None], passes.messages[:, 0], passes.messages[:, 1]
    )
    belief = unary.copy()
    np.add.at(belief, edges[:, 0], into_first)
    np.add.at(belief, edges[:, 1], into_second)
    for e, (first, second) in enumerate(edges):
        table = model.tables[model.table_of(np.array([e]))[0]]
        expected = (
            table
            - into_first[e][:, None]
            - into_second[e][None, :]
            + (belief[first] / degree[first])[:, None]
            + (belief[second] / degree[second])[None, :]
        )
        got = (
            table
            + (unary[first] / degree[first] + multipliers[2 * e])[:, None]
            + (unary[second] / degree[second] + multipliers[2 * e + 1])[None, :]
        )
        np.testing.assert_allclose(got, expected, atol=1e-12)
        assert support[e, 0] == labels[first] * model.n_states + labels[second]
    np.testing.assert_array_equal(p, np.eye(model.n_states)[labels])


@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_a_warm_started_run_is_never_worse_than_its_start(case):
    """Its score is at least that of TRW-S's labelling after ICM, its bound at most TRW-S's
    (a bound on the enumerated maximum)."""
    _, arrays, passes = _trws_start(case)
    labels = passes.labels.copy()
    icm(*arrays, labels)
    start_score = pairwise_model_score(*make_model(case), labels)
    result = infer(*make_model(case), "ad3", max_iter=1)
    assert result.score >= start_score - 1e-12
    assert reference_maximum(case) - 1e-9 <= result.bound <= passes.bound + 1e-12


@pytest.mark.parametrize("case", LOOPY_CASES[::2], ids=LOOPY_IDS[::2])
def test_the_relaxation_is_the_same_from_either_start(case):
    model = make_model(case)
    lp_bound = infer(*model, "lp").bound
    for warm_start in (True, False):
        result = infer(*model, "ad3", relaxed=True, warm_start=warm_start)
        assert result.bound == pytest.approx(lp_bound, abs=1e-3), warm_start


def run_ad3(unary, edges, pairwise, state, **options):
    """Return AD3's labelling, its score, the bound and the iterations, from ``state``."""
    model = check_model(unary, edges, pairwise)
    arrays = (model.unary, model.tables, model.per_edge, model.edges)
    labels, bound, n_iter = ad3(*arrays, ad3_options(**options), GAP_TOLERANCE, True, state)
    return labels, pairwise_model_score(unary, edges, pairwise, labels), bound, n_iter


@pytest.mark.parametrize("warm_start", [True, False])
@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_a_state_left_by_runs_on_other_scores_starts_a_sound_run(case, warm_start):
    """A learner's calls: each run starts from the multipliers, distributions and step the
    run before left, on scores that have drifted; its labelling and bound still enclose the
    enumerated maximum. Short runs, so that the states are far from converged."""
    models = drifting_models(case)
    unary, edges, _ = models[0]
    state = ad3_state(len(unary), len(edges), unary.shape[1])
    for model, maximum in zip(models, drifting_maxima(case), strict=True):
        _, score, bound, _ = run_ad3(*model, state, max_iter=15, warm_start=warm_start)
        assert_encloses_the_maximum(maximum, score, bound)


@pytest.mark.parametrize("case", LOOPY_CASES, ids=LOOPY_IDS)
def test_a_run_from_its_own_state_certifies_no_later_than_from_the_start(case):
    unary, edges, pairwise = make_model(case)
    state = ad3_state(len(unary), len(edges), unary.shape[1])
    cold = run_ad3(unary, edges, pairwise, state)
    warm = run_ad3(unary, edges, pairwise, state)
    if closes_gap(cold[1], cold[2]):
        assert closes_gap(warm[1], warm[2]) and warm[3] <= cold[3]
    assert warm[1] >= cold[1] - TIGHT or warm[2] <= cold[2]
