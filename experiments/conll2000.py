"""Text chunking on CoNLL-2000: the structural SVM against a CRF with the same features.

Reads the CoNLL-2000 shared-task data (Tjong Kim Sang & Buchholz, 2000: Wall Street Journal
text, one ``word POS chunk-tag`` line per token), builds the chunking features of
:class:`tasks.ChunkingFeatures` (the templates of Sha & Pereira, 2003), trains on ``train.txt``
and evaluates on ``dev.txt`` (``test.txt`` where the directory has no ``dev.txt``):

* ``structsvm`` — :class:`structsvm.StructuredSVM` with the linear-chain task (per-label weights
  on every feature plus label transitions), Hamming loss, block-coordinate Frank–Wolfe; with
  ``--orders 1 2`` it trains a first- and a second-order chain (label triples scored too, as
  SVM^hmm's ``--t 2``), and with ``--bio both`` each without and with the BIO constraints of
  :func:`tasks.bio_constraints` (no ``I-X`` after anything but ``B-X`` or ``I-X``), in training
  and in decoding;
* ``crfsuite`` — a linear-chain CRF trained by CRFsuite (Okazaki, 2007) through
  python-crfsuite, L-BFGS with its default L2 penalty, on exactly the same feature strings.

Each learner runs in a fresh process; the table gives chunk precision, recall and F1 as
conlleval computes them, token accuracy, training time (feature extraction excluded, the same
for both) and the peak memory of the process (data and features included); the detail column
of a structural SVM counts the evaluation sentences whose predicted tags break the BIO scheme.

The data are not part of the project: give their directory with ``--data-dir`` or the
environment variable ``STRUCTSVM_DATA`` (either the directory holding ``train.txt`` or its
parent holding ``conll2000/``). Run ``python -m experiments.conll2000 --help`` for the options.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from experiments._data import candidate_directories
from experiments._measure import peak_rss_megabytes, run_in_fresh_process
from structsvm import StructuredSVM
from tasks import (
    ChainTask,
    ChunkingFeatures,
    Sentence,
    TagEncoder,
    bio_constraints,
    chunk_scores,
    read_conll,
)

LEARNERS = ("structsvm", "crfsuite")
Row = dict[str, str]


def find_data_dir(data_dir: str | None) -> Path | None:
    """Return the directory holding CoNLL-2000's ``train.txt``, or None if none is given.

    Looks at ``data_dir``, else at the environment variable ``STRUCTSVM_DATA``; either may be
    the directory itself or a parent holding ``conll2000/``.

    Raises
    ------
    FileNotFoundError
        If a directory is given but holds no ``train.txt`` (nor ``conll2000/train.txt``).
    """
    candidates = candidate_directories(data_dir, "conll2000")
    if not candidates:
        return None
    for candidate in candidates:
        if (candidate / "train.txt").is_file():
            return candidate
    raise FileNotFoundError(
        f"no CoNLL-2000 train.txt in {candidates[0]} or {candidates[1]} "
        "(set --data-dir or STRUCTSVM_DATA to the directory holding train.txt)"
    )


def load(data_dir: Path) -> tuple[list[Sentence], list[Sentence], str]:
    """Return the training sentences, the evaluation sentences and the evaluation file name."""
    evaluation = "dev.txt" if (data_dir / "dev.txt").is_file() else "test.txt"
    return read_conll(data_dir / "train.txt"), read_conll(data_dir / evaluation), evaluation


def scores_row(
    learner: str, truth: list[Sentence], predicted: list[list[str]], seconds: float, detail: str
) -> Row:
    """Return a table row from predicted tags, the training time and a detail column."""
    scores = chunk_scores([s.tags for s in truth], predicted)
    return {
        "learner": learner,
        "chunk F1": f"{100 * scores.f1:.2f}",
        "precision": f"{100 * scores.precision:.2f}",
        "recall": f"{100 * scores.recall:.2f}",
        "token accuracy": f"{100 * scores.accuracy:.2f}",
        "train time": f"{seconds:.1f} s",
        "peak RSS": f"{peak_rss_megabytes():.0f} MB",
        "detail": detail,
    }


def count_bio_violations(tags: np.ndarray, labels: list[np.ndarray]) -> int:
    """Return how many label sequences break the BIO scheme of ``tags`` (label l is tags[l])."""
    constraints = bio_constraints(tags)
    forbidden, first = constraints["forbidden_transitions"], constraints["forbidden_first"]
    return sum(bool(first[y[0]] or forbidden[y[:-1], y[1:]].any()) for y in labels)


def train_structsvm(
    data_dir: Path, args: argparse.Namespace, order: int = 1, constrained: bool = False
) -> Row:
    """Train and evaluate the structural SVM (runs in its own process).

    ``order`` is the chain's order (1 or 2); ``constrained`` imposes the BIO constraints.
    """
    train, evaluation, _ = load(data_dir)
    features = ChunkingFeatures(min_count=args.min_count)
    X_train = features.fit_transform(train)
    tags = TagEncoder().fit([s.tags for s in train])
    Y_train = tags.transform([s.tags for s in train])
    del train  # the training sentences are not held while training
    constraints = bio_constraints(tags.classes_) if constrained else {}
    task = ChainTask(
        n_labels=len(tags.classes_), n_features=features.n_features_, order=order, **constraints
    )
    model = StructuredSVM(
        task, C=args.C, solver="bcfw", tol=args.tol, max_iter=args.max_iter, random_state=0
    )
    start = time.perf_counter()
    model.fit(X_train, Y_train)
    seconds = time.perf_counter() - start
    # The evaluation features are built once training is done, as for CRFsuite, so that they
    # are not held while it runs.
    predicted_labels = model.predict(features.transform(evaluation))
    predicted = tags.inverse_transform(predicted_labels)
    detail = (
        f"C={args.C:g}, {model.n_iter_} passes, relative gap "
        f"{model.history_[-1]['relative_gap']:.2g}, {features.n_features_} features, "
        f"{count_bio_violations(tags.classes_, predicted_labels)} BIO-invalid sentences"
    )
    variant = ["BCFW"] + (["order 2"] if order == 2 else []) + (["BIO"] if constrained else [])
    learner = f"structsvm ({', '.join(variant)})"
    return scores_row(learner, evaluation, predicted, seconds, detail)


def train_crfsuite(data_dir: Path, args: argparse.Namespace) -> Row:
    """Train and evaluate the CRFsuite CRF on the same features (runs in its own process)."""
    import pycrfsuite

    train, evaluation, _ = load(data_dir)
    features = ChunkingFeatures(min_count=args.min_count).fit(train)
    vocabulary = features.vocabulary_
    trainer = pycrfsuite.Trainer(verbose=False)
    for sentence in train:
        kept = [
            [name for name in token if name in vocabulary]
            for token in features.token_features(sentence)
        ]
        trainer.append(kept, sentence.tags)
    trainer.set_params({"c2": args.crf_c2, "feature.possible_transitions": True})
    with tempfile.TemporaryDirectory() as directory:
        model_path = str(Path(directory) / "chunking.crfsuite")
        start = time.perf_counter()
        trainer.train(model_path)
        seconds = time.perf_counter() - start
        iterations = trainer.logparser.last_iteration["num"]
        tagger = pycrfsuite.Tagger()
        tagger.open(model_path)
        predicted = [tagger.tag(features.token_features(s)) for s in evaluation]
        tagger.close()
    detail = f"L-BFGS, c2={args.crf_c2:g}, {iterations} iterations"
    return scores_row("CRFsuite (CRF)", evaluation, predicted, seconds, detail)


TRAINERS = {"structsvm": train_structsvm, "crfsuite": train_crfsuite}


BIO_CHOICES = {"off": (False,), "on": (True,), "both": (False, True)}


def compare(data_dir: Path, args: argparse.Namespace) -> list[Row]:
    """Train every learner of ``args.learners`` in its own process; return the table rows.

    The structural SVM is trained once for every order of ``args.orders`` and every setting of
    the BIO constraints that ``args.bio`` asks for.
    """
    rows = []
    for name in args.learners:
        if name == "structsvm":
            rows += [
                run_in_fresh_process(train_structsvm, data_dir, args, order, constrained)
                for order in args.orders
                for constrained in BIO_CHOICES[args.bio]
            ]
        else:
            rows.append(run_in_fresh_process(TRAINERS[name], data_dir, args))
    return rows


def print_table(rows: list[Row]) -> None:
    """Print rows as an aligned text table."""
    columns = list(rows[0])
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for row in rows:
        print("  ".join(row[c].ljust(w) for c, w in zip(columns, widths, strict=True)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.conll2000", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        help="directory with train.txt and dev.txt (default: $STRUCTSVM_DATA)",
    )
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--C", type=float, default=0.1,
                        help="structural SVM regularisation constant (default: 0.1)")
    parser.add_argument("--tol", type=float, default=0.01,
                        help="relative duality gap at which BCFW stops (default: 0.01)")
    parser.add_argument("--max-iter", type=int, default=10,
                        help="most BCFW passes over the data (default: 10)")
    parser.add_argument("--orders", nargs="+", type=int, choices=(1, 2), default=[1],
                        help="orders of the structural SVM's chain to train (default: 1)")
    parser.add_argument("--bio", choices=tuple(BIO_CHOICES), default="off",
                        help="train and decode the structural SVM without (off) or with (on) "
                        "the BIO constraints, or both (default: off)")
    parser.add_argument("--min-count", type=int, default=1,
                        help="keep features seen on at least this many tokens (default: 1)")
    parser.add_argument("--crf-c2", type=float, default=1.0,
                        help="CRFsuite's L2 coefficient (default: 1, CRFsuite's own default)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[Row]:
    """Entry point of ``python -m experiments.conll2000``."""
    args = parse_args(argv)
    data_dir = find_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit(
            "CoNLL-2000 data not found: pass --data-dir DIR or set STRUCTSVM_DATA "
            "(DIR holds train.txt and dev.txt, or conll2000/ with them)"
        )
    _, _, evaluation = load(data_dir)
    print(f"CoNLL-2000 chunking: train on {data_dir / 'train.txt'}, evaluate on {evaluation}")
    rows = compare(data_dir, args)
    print_table(rows)
    return rows


if __name__ == "__main__":
    main()
