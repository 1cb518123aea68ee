"""Dependency parsing of Universal Dependencies' English Web Treebank (EWT), first and second order.

Parsers are trained as structural SVMs on ``en_ewt-ud-train.conllu`` with the gold UPOS tags:
a first-order :class:`tasks.DependencyTask` (McDonald, Crammer & Pereira 2005: hashed arc
features, Eisner's projective decoder by default) and a second-order
:class:`tasks.SiblingDependencyTask` (McDonald & Pereira 2006: arcs and adjacent siblings,
second-order Eisner), each in a fresh process of its own, side by side; an
:class:`tasks.ArcLabeller` is trained once on the true arcs and labels the arcs of each. The
dev split ``en_ewt-ud-dev.conllu`` is parsed and scored by unlabelled and labelled attachment
(UAS, LAS), over all words and without punctuation (UPOS ``PUNCT``). The table also gives the
training times (wall-clock and CPU seconds, with the load average, as the machine may be
shared), the sentences parsed (and labelled) per second and per CPU second, and the peak memory
of each parser's process (training and parsing) and of the labeller's. The test split is never
read. With ``--held-out N`` the last N training sentences take the dev split's place (trained on
the others, the dev split not read), for choosing settings without looking at dev.

The solver is StructuredSVM's "auto", which picks BCFW for a joint feature this long, with a
seeded random order.

The data are not part of the project: give ``--data-dir`` or the environment variable
``STRUCTSVM_DATA`` (a directory holding the two files, or ``ud_english_ewt/`` holding them).
Run ``python -m experiments.ud_parsing --help`` for the options.
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np

from experiments._data import candidate_directories
from experiments._measure import (
    Stopwatch,
    format_table,
    peak_rss_megabytes,
    run_in_fresh_processes,
)
from structsvm import StructuredSVM
from structsvm.io import read_conllu
from tasks import ArcFeatures, ArcLabeller, DependencyTask, SiblingDependencyTask, attachment_scores

TRAIN = "en_ewt-ud-train.conllu"
DEV = "en_ewt-ud-dev.conllu"

#: The parsers by their order: first order (arcs) and second order (arcs and siblings).
ORDERS = ("1", "2")


class ParserRun(NamedTuple):
    """What training one parser and parsing the dev split with it gave."""

    heads: list[np.ndarray]
    solver: str
    n_iter: int
    relative_gap: float
    train: Stopwatch
    parse: Stopwatch
    peak_megabytes: float


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


def parsing_task(
    order: str, decoder: str, n_features: int, punctuation_weight: float
) -> DependencyTask:
    """Return the parsing task of an order: first (``decoder``) or second (projective), whose
    loss counts a wrong head on a punctuation word ``punctuation_weight``."""
    features = ArcFeatures(n_features)
    if order == "2":
        return SiblingDependencyTask(features, punctuation_weight=punctuation_weight)
    return DependencyTask(features, decoder=decoder, punctuation_weight=punctuation_weight)


class Splits(NamedTuple):
    """The sentences trained on and those scored, with the name of the scored ones."""

    train: list
    evaluation: list
    name: str


def splits(directory: Path, max_train: int | None, held_out: int) -> Splits:
    """Return the training sentences (the first ``max_train``) and the dev split, or, with
    ``held_out`` > 0, the training split without its last ``held_out`` sentences and those."""
    train = read_conllu(directory / TRAIN)
    if held_out > 0:
        if held_out >= len(train):
            raise SystemExit(f"--held-out must be below {len(train)}, got {held_out}")
        return Splits(train[:-held_out][:max_train], train[-held_out:], "held out")
    return Splits(train[:max_train], read_conllu(directory / DEV), "dev")


def train_parser(directory: Path, order: str, args: argparse.Namespace) -> ParserRun:
    """Train a parser of an order on the training sentences and parse the scored ones."""
    train, evaluation, _ = splits(directory, args.max_train, args.held_out)
    task = parsing_task(order, args.decoder, args.n_features, args.punctuation_weight)
    X_train, X_dev = task.inputs(train), task.inputs(evaluation)
    # The duality gap is evaluated after the last pass only: it costs a pass of oracle calls.
    svm = StructuredSVM(
        task,
        C=args.C,
        solver=args.solver,
        max_iter=args.max_iter,
        gap_check_every=args.max_iter,
        random_state=args.seed,
    )
    train_time = Stopwatch()
    with train_time, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a capped fit warns that it did not converge
        svm.fit(X_train, [sentence.heads for sentence in train])
    parse_time = Stopwatch()
    with parse_time:
        heads = svm.predict(X_dev)
    return ParserRun(
        heads,
        svm.solver_,
        svm.n_iter_,
        svm.history_[-1]["relative_gap"],
        train_time,
        parse_time,
        peak_rss_megabytes(),
    )


def main(argv: list[str] | None = None) -> None:
    """Train on EWT's training split, parse its dev split and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument(
        "--max-train", type=int, default=None, help="train on the first N sentences only"
    )
    parser.add_argument(
        "--held-out",
        type=int,
        default=0,
        help="score on the last N training sentences, trained on the others; dev not read (0)",
    )
    parser.add_argument(
        "--orders",
        default="1,2",
        help="the parsers' orders, comma-separated: 1 (arcs), 2 (arcs and siblings); 1,2",
    )
    parser.add_argument(
        "--decoder",
        choices=["eisner", "chu-liu-edmonds"],
        default="eisner",
        help="the first-order decoder (eisner); the second order's is projective",
    )
    parser.add_argument(
        "--solver", default="auto", help="StructuredSVM's solver (auto: BCFW for this task)"
    )
    parser.add_argument("--C", type=float, default=0.03, help="StructuredSVM's C (0.03)")
    parser.add_argument(
        "--punctuation-weight",
        type=float,
        default=0.5,
        help="the training loss of a wrong head on a punctuation word (0.5)",
    )
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
    orders = args.orders.split(",")
    if not orders or any(order not in ORDERS for order in orders):
        raise SystemExit(f"--orders must be some of {', '.join(ORDERS)}, got {args.orders!r}")

    directory = data_directory(args.data_dir)
    # Read first, so that a bad --held-out is refused before any parser process starts.
    train, dev, scored = splits(directory, args.max_train, args.held_out)
    # Each parser trains in a fresh process, so that its peak memory is its own.
    runs = run_in_fresh_processes(train_parser, [(directory, order, args) for order in orders])

    features = ArcFeatures(args.n_features)
    X_train, X_dev = features.transform(train), features.transform(dev)
    labeller_time = Stopwatch()
    with labeller_time:
        labeller = ArcLabeller(
            args.labeller_n_features, C=args.labeller_C, max_iter=args.labeller_max_iter
        ).fit(X_train, [sentence.heads for sentence in train], [s.deprels for s in train])
    labeller_peak = peak_rss_megabytes()

    n_words = sum(len(sentence) for sentence in train)
    print(
        f"EWT train: {len(train)} sentences, {n_words} words; {scored}: {len(dev)} sentences, "
        f"{sum(len(sentence) for sentence in dev)} words"
    )
    rows = []
    for order, run in zip(orders, runs, strict=True):
        label_time = Stopwatch()
        with label_time:
            relations = labeller.predict(X_dev, run.heads)
        scores = attachment_scores(dev, run.heads, relations)
        print(
            f"order {order}: {args.decoder if order == '1' else 'second-order eisner'}, "
            f"{run.solver}, C = {args.C:g}, {run.n_iter} iterations (max {args.max_iter}), "
            f"relative duality gap {run.relative_gap:.3g}, {args.n_features} hashed features, "
            f"punctuation weight {args.punctuation_weight:g}"
        )
        rows.append(
            {
                "order": order,
                "UAS": 100 * scores.uas,
                "LAS": 100 * scores.las,
                "UAS no punct": 100 * scores.uas_without_punctuation,
                "LAS no punct": 100 * scores.las_without_punctuation,
                "parser train s": run.train.wall,
                "parser CPU s": run.train.cpu,
                "parsed sent/s": len(dev) / run.parse.wall,
                "parsed sent/CPU s": len(dev) / run.parse.cpu,
                "parsed+labelled sent/s": len(dev) / (run.parse.wall + label_time.wall),
                "parser peak MB": run.peak_megabytes,
            }
        )
    print(format_table(rows))
    print(
        f"labeller: trained in {labeller_time.wall:.1f} s ({labeller_time.cpu:.1f} s of CPU), "
        f"peak {labeller_peak:.0f} MB"
    )
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
