"""First-order dependency parsing of Universal Dependencies' English Web Treebank (EWT).

A :class:`tasks.DependencyTask` (McDonald, Crammer & Pereira 2005: hashed arc features,
Eisner's projective decoder by default) is trained as a structural SVM on
``en_ewt-ud-train.conllu`` with the gold UPOS tags, and an :class:`tasks.ArcLabeller` on the
true arcs; the dev split ``en_ewt-ud-dev.conllu`` is parsed and scored by unlabelled and
labelled attachment (UAS, LAS), over all words and without punctuation (UPOS ``PUNCT``). The
table also gives the training times (wall-clock and CPU seconds, with the load average, as the
machine may be shared), the sentences parsed (and labelled) per second and the process's peak
memory. The test split is never read.

The solver is StructuredSVM's "auto", which picks BCFW for a joint feature this long, with a
seeded random order; the parser is trained and parses the dev split before the labeller trains,
so that its training state is not held meanwhile.

The data are not part of the project: give ``--data-dir`` or the environment variable
``STRUCTSVM_DATA`` (a directory holding the two files, or ``ud_english_ewt/`` holding them).
Run ``python -m experiments.ud_parsing --help`` for the options.
"""

from __future__ import annotations

import argparse
import gc
import os
import warnings
from pathlib import Path

from experiments._data import candidate_directories
from experiments._measure import Stopwatch, format_table, peak_rss_megabytes
from structsvm import StructuredSVM
from structsvm.io import read_conllu
from tasks import ArcFeatures, ArcLabeller, DependencyTask, attachment_scores

TRAIN = "en_ewt-ud-train.conllu"
DEV = "en_ewt-ud-dev.conllu"


def data_directory(given: str | None) -> Path:
    """Return the directory holding the EWT files, from ``--data-dir`` or ``STRUCTSVM_DATA``."""
    candidates = candidate_directories(given, "ud_english_ewt")
    if not candidates:
        raise SystemExit("give --data-dir or set STRUCTSVM_DATA (see the module's docstring)")
    for candidate in candidates:
        if (candidate / TRAIN).is_file() and (candidate / DEV).is_file():
            return candidate
    raise SystemExit(
        f"{candidates[0]}: holds neither {TRAIN} and {DEV} nor ud_english_ewt/ with them"
    )


def main(argv: list[str] | None = None) -> None:
    """Train on EWT's training split, parse its dev split and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument(
        "--max-train", type=int, default=None, help="train on the first N sentences only"
    )
    parser.add_argument("--decoder", choices=["eisner", "chu-liu-edmonds"], default="eisner")
    parser.add_argument(
        "--solver", default="auto", help="StructuredSVM's solver (auto: BCFW for this task)"
    )
    parser.add_argument("--C", type=float, default=0.1, help="StructuredSVM's C (0.1)")
    parser.add_argument("--max-iter", type=int, default=10, help="most solver iterations (10)")
    parser.add_argument("--n-features", type=int, default=2**22, help="hashed width (2**22)")
    parser.add_argument("--seed", type=int, default=0, help="BCFW's random order's seed (0)")
    parser.add_argument(
        "--labeller-n-features", type=int, default=2**17, help="the labeller's width (2**17)"
    )
    parser.add_argument("--labeller-C", type=float, default=0.1, help="the labeller's C (0.1)")
    parser.add_argument(
        "--labeller-max-iter", type=int, default=20, help="the labeller's most iterations (20)"
    )
    args = parser.parse_args(argv)

    directory = data_directory(args.data_dir)
    train = read_conllu(directory / TRAIN)[: args.max_train]
    dev = read_conllu(directory / DEV)
    task = DependencyTask(ArcFeatures(args.n_features), decoder=args.decoder)
    X_train, X_dev = task.inputs(train), task.inputs(dev)
    heads = [sentence.heads for sentence in train]

    # The duality gap is evaluated after the last pass only: it costs a pass of oracle calls.
    svm = StructuredSVM(
        task,
        C=args.C,
        solver=args.solver,
        max_iter=args.max_iter,
        gap_check_every=args.max_iter,
        random_state=args.seed,
    )
    parser_time = Stopwatch()
    with parser_time, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a capped fit warns that it did not converge
        svm.fit(X_train, heads)
    parse_time = Stopwatch()
    with parse_time:
        predicted = svm.predict(X_dev)
    solver, n_iter, gap = svm.solver_, svm.n_iter_, svm.history_[-1]["relative_gap"]
    # The parser's training state (BCFW's dual blocks, kept for a warm start) is not held
    # while the labeller trains.
    del svm
    gc.collect()

    labeller_time = Stopwatch()
    with labeller_time:
        labeller = ArcLabeller(
            args.labeller_n_features, C=args.labeller_C, max_iter=args.labeller_max_iter
        ).fit(X_train, heads, [sentence.deprels for sentence in train])
    label_time = Stopwatch()
    with label_time:
        relations = labeller.predict(X_dev, predicted)
    scores = attachment_scores(dev, predicted, relations)

    n_words = sum(len(sentence) for sentence in train)
    print(
        f"EWT train: {len(train)} sentences, {n_words} words; dev: {len(dev)} sentences, "
        f"{scores.n_words} words ({scores.n_words_without_punctuation} without punctuation)"
    )
    print(
        f"parser: {args.decoder}, {solver}, C = {args.C:g}, {n_iter} iterations "
        f"(max {args.max_iter}), relative duality gap {gap:.3g}, "
        f"{args.n_features} hashed features"
    )
    print(
        format_table(
            [
                {
                    "UAS": 100 * scores.uas,
                    "LAS": 100 * scores.las,
                    "UAS no punct": 100 * scores.uas_without_punctuation,
                    "LAS no punct": 100 * scores.las_without_punctuation,
                    "parser train s": parser_time.wall,
                    "parser CPU s": parser_time.cpu,
                    "labeller train s": labeller_time.wall,
                    "labeller CPU s": labeller_time.cpu,
                    "parsed sent/s": len(dev) / parse_time.wall,
                    "parsed+labelled sent/s": len(dev) / (parse_time.wall + label_time.wall),
                    "peak MB": peak_rss_megabytes(),
                }
            ]
        )
    )
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
