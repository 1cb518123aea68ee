"""Solver options the experiment scripts share."""

from __future__ import annotations

FAST_BCFW = {"step": "pairwise", "order": "gap", "averaging": False, "gap_check_every": 10}
"""The BCFW options that were fastest to a small certified gap on the OCR letters and on
digits: the pairwise steps and gap sampling of Osokin, Alayrac, Lukasewitz, Dokania &
Lacoste-Julien (ICML 2016), the iterate itself certified every 10 passes
(see ``python -m experiments.bench_bcfw_variants``)."""
