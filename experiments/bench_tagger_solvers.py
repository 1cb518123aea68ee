"""BCFW's variants on the NER taggers: passes, seconds and certified gap, as the tagger trains.

Trains :class:`structsvm.SequenceTagger` (the chain, or the semi-Markov model with ``--segments``)
on a CoNLL-2002 training file with ``solver="bcfw"`` and each of the variants below, and prints
the relative duality gap certified at every evaluation with its pass and the CPU seconds so far:

* ``fw`` — Frank–Wolfe steps, random order, averaged iterates (Lacoste-Julien et al., 2013);
* ``pairwise`` — pairwise steps (Osokin et al., 2016), random order, averaged iterates;
* ``pairwise-last`` — pairwise steps, random order, the last iterate;
* ``pairwise-gap`` — pairwise steps, gap sampling, the last iterate, the gap every 10 passes.

Feature extraction is not timed. Run ``python -m experiments.bench_tagger_solvers --help``.

References
----------
S. Lacoste-Julien, M. Jaggi, M. Schmidt and P. Pletscher. Block-coordinate Frank–Wolfe
optimization for structural SVMs. In *ICML*, 2013.

A. Osokin, J.-B. Alayrac, I. Lukasewitz, P. K. Dokania and S. Lacoste-Julien. Minding the
gaps for block Frank–Wolfe optimization of structured SVMs. In *ICML*, 2016.
"""

from __future__ import annotations

import argparse
import time

from experiments._measure import format_table
from experiments.ner import dicts, find_data_dir, load
from structsvm import SequenceTagger

VARIANTS = {
    "fw": {"step": "fw", "order": "random", "averaging": True, "gap_check_every": 1},
    "pairwise": {"step": "pairwise", "order": "random", "averaging": True, "gap_check_every": 1},
    "pairwise-last": {
        "step": "pairwise", "order": "random", "averaging": False, "gap_check_every": 1,
    },
    "pairwise-gap": {
        "step": "pairwise", "order": "gap", "averaging": False, "gap_check_every": 10,
    },
}


def main(argv: list[str] | None = None) -> list[dict[str, str]]:
    """Entry point: train every variant, print the gap it certifies pass by pass."""
    parser = argparse.ArgumentParser(prog="python -m experiments.bench_tagger_solvers",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--language", choices=("esp", "ned"), default="esp")
    parser.add_argument("--encoding", default="utf-8")
    parser.add_argument("--C", type=float, default=0.1)
    parser.add_argument("--segments", type=int, default=None,
                        help="the semi-Markov model with entities of at most this many tokens")
    parser.add_argument("--segment-loss", choices=("hamming", "segments"), default="segments")
    parser.add_argument("--max-iter", type=int, default=60)
    parser.add_argument("--tol", type=float, default=0.01)
    parser.add_argument("--variants", nargs="+", choices=tuple(VARIANTS), default=list(VARIANTS))
    args = parser.parse_args(argv)
    data_dir = find_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("CoNLL-2002 data not found: pass --data-dir DIR or set STRUCTSVM_DATA")
    train = load(data_dir / f"{args.language}.train", args.encoding)
    X, tags = dicts(train), [t for _, _, t in train]
    rows = []
    for name in args.variants:
        tagger = SequenceTagger(
            C=args.C, solver="bcfw", tol=args.tol, max_iter=args.max_iter,
            segments=args.segments, segment_loss=args.segment_loss, random_state=0,
            **VARIANTS[name],
        )
        start = time.process_time()
        tagger.fit(X, tags)
        cpu = time.process_time() - start
        history = tagger.svm_.history_
        trace = " ".join(f"{r['iteration']}:{r['relative_gap']:.3g}" for r in history)
        rows.append({
            "variant": name, "passes": str(tagger.svm_.n_iter_),
            "relative gap": f"{history[-1]['relative_gap']:.3g}",
            "primal": f"{history[-1]['primal']:.6g}",
            "solver seconds": f"{history[-1]['time']:.1f}", "fit CPU": f"{cpu:.1f}",
        })
        print(f"{name}: pass:gap {trace}", flush=True)
    print(format_table(rows), flush=True)
    return rows


if __name__ == "__main__":
    main()
