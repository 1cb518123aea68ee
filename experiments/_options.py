"""Solver options the experiment scripts share."""

from __future__ import annotations

from typing import Any

FAST_BCFW = {"step": "pairwise", "order": "gap", "averaging": False, "gap_check_every": 10}
"""The BCFW options that were fastest to a small certified gap on the OCR letters and on
digits: the pairwise steps and gap sampling of Osokin, Alayrac, Lukasewitz, Dokania &
Lacoste-Julien (ICML 2016), the iterate itself certified every 10 passes
(see ``python -m experiments.bench_bcfw_variants``)."""


#: The solvers that sample examples, and take a ``random_state``.
SAMPLING_SOLVERS = ("bcfw", "dual-cd")


def solver_and_options(name: str, seed: int | None = None) -> tuple[str, dict[str, Any]]:
    """Return the solver and its options that a benchmark row ``name`` runs.

    ``"bcfw pairwise"`` is BCFW with :data:`FAST_BCFW`; any other name is a solver of
    :data:`structsvm.solvers.SOLVERS` at its defaults. With a ``seed``, a solver that samples
    (:data:`SAMPLING_SOLVERS`) gets it as its ``random_state``: the row is the same run each time.
    """
    solver, options = ("bcfw", dict(FAST_BCFW)) if name == "bcfw pairwise" else (name, {})
    if seed is not None and solver in SAMPLING_SOLVERS:
        options["random_state"] = seed
    return solver, options
