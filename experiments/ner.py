"""Named entities on CoNLL-2002: a chain, a semi-Markov model and CRFsuite on the same features.

Reads the CoNLL-2002 shared-task data (Tjong Kim Sang, 2002: Spanish EFE news wire and Dutch
De Morgen text, one ``word POS tag`` line per token, IOB2 entity tags of PER, LOC, ORG, MISC),
turns every token into a dict of features (:func:`token_features`: the word, its case, affixes
and shape, its POS tag, and those of its neighbours), trains on ``*.train`` and reports on
``*.testa`` only:

* ``chain`` — :class:`structsvm.SequenceTagger`, a first-order chain over the BIO tags
  (decoding only tags in which ``I-X`` follows ``B-X`` or ``I-X``) trained as a structural SVM
  by BCFW;
* ``semi-markov`` — the same tagger with ``segments=L``: :class:`tasks.SemiMarkovTask` over
  entities of at most L tokens, with first-, every- and last-token features and the length,
  trained with the segment loss (entities in one tagging but not the other) or the Hamming loss
  (wrong tags), the choice being part of the held-out selection;
* ``crfsuite`` — a linear-chain CRF trained by CRFsuite (Okazaki, 2007) through
  python-crfsuite, L-BFGS, on exactly the same feature dicts.

Every learner trains on the tags as conlleval reads them (an ``I-X`` opening an entity is
``B-X``, :func:`entity_tags`). Each learner's regularisation is selected on held-out data from
one grid of C, the same for every learner, as :func:`entity_table` describes: CRFsuite's
c1 = c2 is the value that weighs the weights against the training losses as the structural
SVMs' C does (:func:`crfsuite_penalty`, 1/(2C)); the grid is walked upwards, every value
trained on the training file but its last whole documents (10% of the sentences), and only
trainings that converged within their budget count (:func:`held_out_path`): a structural SVM
whose certified relative duality gap reached ``--tol`` within ``--max-iter`` passes (CRFsuite,
which has no such certificate, counts at its budget of ``--crf-max-iter`` iterations). A
structural SVM walks the grid as one regularisation path, each C starting from the dual point
of the last (``warm_start=True``), and its walk ends at its first C not solved. The setting of
the best entity F1 on the held-out sentences is trained again on the whole file (a structural
SVM along the grid up to its C, the time being the whole path's), and only that run is scored
on testa (``--regularisation fixed`` takes ``--C``, ``--crf-c1``, ``--crf-c2`` instead).
testb is never read.

Each learner runs in a fresh process; the table gives entity precision, recall and F1 as
conlleval computes them (:func:`tasks.chunk_scores`), the token error, the training time (wall
clock and CPU time, feature extraction excluded; the CPU time is the steadier figure on a shared
machine) and the process's peak memory.

The second table is the setting of Tsochantaridis et al. (ICML 2004; JMLR 2005): the first 300
Spanish training sentences, the token error of the structural SVM (the chain), the averaged
structured perceptron (Collins, 2002) and CRFsuite, beside the figures of the paper. The paper's
figures come from its own protocol on its 300 sentences; ours are measured on testa.

The data are not part of the project: give their directory with ``--data-dir`` or the
environment variable ``STRUCTSVM_DATA`` (the directory holding ``esp.train`` or its parent
holding ``conll2002/``). Run ``python -m experiments.ner --help`` for the options.

References
----------
E. F. Tjong Kim Sang. Introduction to the CoNLL-2002 shared task: language-independent named
entity recognition. In *Proceedings of CoNLL-2002*, pages 155–158, 2002.

I. Tsochantaridis, T. Hofmann, T. Joachims and Y. Altun. Support vector machine learning for
interdependent and structured output spaces. In *ICML*, 2004.

S. Sarawagi and W. W. Cohen. Semi-Markov conditional random fields for information
extraction. In *NIPS*, 2004.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from experiments._data import candidate_directories
from experiments._measure import (
    Stopwatch,
    format_table,
    peak_rss_megabytes,
    run_in_fresh_processes,
)
from structsvm import SequenceTagger, SequenceVectorizer, StructuredPerceptron
from structsvm.io import read_columns
from structsvm.solvers import SOLVER_DEFAULTS
from tasks import ChainTask, chunk_scores, extract_chunks

LANGUAGES = {"esp": "Spanish", "ned": "Dutch"}
LEARNERS = ("chain", "semi-markov", "crfsuite")
C_GRID = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0]
"""The values of C every learner selects from: two a decade, as a path walks them."""
PAPER_TOKEN_ERRORS = {"structural SVM": 5.08, "CRF": 5.17, "averaged perceptron": 5.94, "HMM": 9.36}
"""Token error (%) on 300 Spanish sentences, Tsochantaridis et al. (ICML 2004), Table 2."""

Sentences = list[tuple[list[str], list[str], list[str]]]
Row = dict[str, Any]


class Trained(NamedTuple):
    """A trained learner: its tagging function, its training time and a detail, whether it
    converged within its budget (a structural SVM: its certified relative duality gap reached
    the tolerance; a learner without a certificate: always), and that gap (``-`` without one)."""

    predict: Callable[[list[list[dict[str, Any]]]], list[list[str]]]
    timer: Stopwatch
    detail: str
    converged: bool
    gap: str = "-"


def find_data_dir(data_dir: str | None) -> Path | None:
    """Return the directory holding ``esp.train``, or None if no directory is given.

    Looks at ``data_dir``, else at ``STRUCTSVM_DATA``; either may be the directory itself or
    a parent holding ``conll2002/``.

    Raises
    ------
    FileNotFoundError
        If a directory is given but holds no ``esp.train`` (nor ``conll2002/esp.train``).
    """
    candidates = candidate_directories(data_dir, "conll2002")
    if not candidates:
        return None
    for candidate in candidates:
        if (candidate / "esp.train").is_file():
            return candidate
    raise FileNotFoundError(f"no CoNLL-2002 esp.train in {candidates[0]} or {candidates[1]}")


def _triples(sentences: list[tuple[tuple[str, ...], ...]]) -> Sentences:
    """Return the (words, POS tags, entity tags) of column sentences."""
    return [(list(s[0]), list(s[1]), list(s[-1])) for s in sentences]


def load(path: Path, encoding: str, first: int | None = None) -> Sentences:
    """Return the (words, POS tags, entity tags) of the sentences of a file (the first ones)."""
    return _triples(read_columns(path, encoding=encoding)[:first])


def load_documents(path: Path, encoding: str, first: int | None = None) -> list[Sentences]:
    """Return the documents of a file (the first sentences), split at its ``-DOCSTART-`` lines."""
    chunks: list[list[str]] = [[]]
    with open(path, encoding=encoding) as lines:
        for line in lines:
            if line.startswith("-DOCSTART-"):
                chunks.append([])
            else:
                chunks[-1].append(line)
    documents, left = [], first
    for chunk in chunks:
        if any(map(str.strip, chunk)) and (left is None or left > 0):
            documents.append(_triples(read_columns(chunk))[:left])
            left = None if left is None else left - len(documents[-1])
    return documents


def held_out_split(documents: list[Sentences], fraction: float) -> tuple[Sentences, Sentences]:
    """Return the training sentences of the documents and the held-out slice at their end.

    The slice is the last whole documents holding at least ``fraction`` of the sentences; a
    single document (the Spanish files have no ``-DOCSTART-`` lines) is cut at that share of
    its sentences.
    """
    total = sum(map(len, documents))
    if len(documents) == 1:
        cut = total - max(1, round(fraction * total))
        return documents[0][:cut], documents[0][cut:]
    kept = list(documents)
    held_out: Sentences = []
    while len(held_out) < fraction * total and len(kept) > 1:
        held_out[:0] = kept.pop()
    return [s for document in kept for s in document], held_out


def _shape(word: str) -> str:
    """The word's letters as X, x and d, runs of one kind written once: ``Madrid`` → ``Xx``."""
    kinds = [
        "X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c for c in word
    ]
    return "".join(k for n, k in enumerate(kinds) if n == 0 or k != kinds[n - 1])


def token_features(words: list[str], pos: list[str]) -> list[dict[str, Any]]:
    """Return the feature dict of every token: itself, and its neighbours at ±1 and ±2."""
    tokens = []
    for t, word in enumerate(words):
        features: dict[str, Any] = {
            "bias": 1.0,
            "lower": word.lower(),
            "prefixes": [word[:k] for k in (1, 2, 3) if len(word) >= k],
            "suffixes": [word[-k:] for k in (1, 2, 3) if len(word) >= k],
            "shape": _shape(word),
            "title": word.istitle(),
            "upper": word.isupper(),
            "digit": any(c.isdigit() for c in word),
            "pos": pos[t],
            "pos2": pos[t][:2],
        }
        for offset in (-2, -1, 1, 2):
            at = t + offset
            if 0 <= at < len(words):
                features[f"{offset:+d}:lower"] = words[at].lower()
                features[f"{offset:+d}:title"] = words[at].istitle()
                features[f"{offset:+d}:pos"] = pos[at]
            elif abs(offset) == 1:
                features["BOS" if offset < 0 else "EOS"] = True
        if t > 0:
            features["-1|0:lower"] = f"{words[t - 1].lower()}|{word.lower()}"
        tokens.append(features)
    return tokens


def dicts(sentences: Sentences) -> list[list[dict[str, Any]]]:
    """Return the feature dicts of every sentence."""
    return [token_features(words, pos) for words, pos, _ in sentences]


def entity_tags(tags: list[str]) -> list[str]:
    """Return BIO tags with every ``I-X`` that opens an entity (conlleval's reading) as ``B-X``.

    Every learner trains on these tags, so the chain constrained to the BIO scheme, the
    semi-Markov model (whose segments read the tags the same way) and CRFsuite see the same
    entities.
    """
    result = ["O"] * len(tags)
    for kind, start, stop in extract_chunks(tags):
        result[start:stop] = [f"B-{kind}"] + [f"I-{kind}"] * (stop - start - 1)
    return result


def token_error(truth: Sentences, predicted: list[list[str]]) -> float:
    """Return the percentage of tokens whose predicted tag is wrong."""
    wrong = sum(
        a != b for (_, _, tags), guess in zip(truth, predicted, strict=True)
        for a, b in zip(tags, guess, strict=True)
    )
    return 100.0 * wrong / sum(len(tags) for _, _, tags in truth)


def train_crfsuite(
    X: list[list[dict[str, Any]]], tags: list[list[str]], args: argparse.Namespace
) -> Trained:
    """Train a CRFsuite CRF for at most ``args.crf_max_iter`` L-BFGS iterations.

    Without a certificate of its distance to the optimum, every training counts as converged
    at that budget; the detail says when L-BFGS stopped at the budget rather than by its test.
    """
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    for sentence, sequence in zip(X, tags, strict=True):
        trainer.append(sentence, sequence)
    trainer.set_params(
        {
            "c1": args.crf_c1,
            "c2": args.crf_c2,
            "max_iterations": args.crf_max_iter,
            "feature.possible_transitions": True,
        }
    )
    tagger = pycrfsuite.Tagger()
    with tempfile.TemporaryDirectory() as directory:
        model_path = str(Path(directory) / "ner.crfsuite")
        with Stopwatch() as timer:
            trainer.train(model_path)
        tagger.open(model_path)  # CRFsuite reads the whole model into memory
    stopped = "terminated with the stopping criteria" in "".join(trainer.logparser.log)
    detail = (
        f"L-BFGS, c1={args.crf_c1:g}, c2={args.crf_c2:g}, "
        f"{trainer.logparser.last_iteration['num']} iterations"
        + ("" if stopped else " (the most allowed)")
    )
    return Trained(lambda sentences: [tagger.tag(s) for s in sentences], timer, detail, True)


def path_tagger(learner: str, args: argparse.Namespace) -> SequenceTagger:
    """Return the chain or semi-Markov tagger of ``args``, set to walk a path of C
    (``warm_start=True``: each fit at a new C starts from the dual point of the last)."""
    segments = args.segment_length if learner == "semi-markov" else None
    return SequenceTagger(
        solver=args.solver,
        tol=args.tol,
        max_iter=args.max_iter,
        bio=segments is None,
        segments=segments,
        segment_loss=args.segment_loss,
        step=args.step,
        order=args.order,
        averaging=args.averaging,
        gap_check_every=args.gap_check_every,
        random_state=0,
        warm_start=True,
    )


def fit_at(
    tagger: SequenceTagger, C: float, X: list[list[dict[str, Any]]], tags: list[list[str]]
) -> Trained:
    """Fit ``tagger`` at C, from its fit at the last C if any; converged when its certified
    relative duality gap reached its tolerance within its passes."""
    with Stopwatch() as timer:
        tagger.set_params(C=C).fit(X, tags)
    svm = tagger.svm_
    gap = svm.history_[-1]["relative_gap"]
    detail = (
        f"{svm.solver_}, C={C:g}, {svm.n_iter_} passes"
        + (f", {tagger.segment_loss} loss" if tagger.segments else "")
        + f", relative gap {gap:.2g}, {tagger.vectorizer_.n_features_} features"
    )
    return Trained(tagger.predict, timer, detail, bool(svm.converged_), f"{gap:.3g}")


def train_tagger(
    learner: str, X: list[list[dict[str, Any]]], tags: list[list[str]], args: argparse.Namespace
) -> Trained:
    """Train the chain or the semi-Markov tagger along ``args.C_path`` (C = the last value),
    each C started from the last; converged when its certified relative duality gap reached
    ``args.tol`` within ``args.max_iter`` passes at every C. The time is the whole path's."""
    tagger = path_tagger(learner, args)
    walked, converged = [], True
    with Stopwatch() as timer:
        for C in args.C_path:
            last = fit_at(tagger, C, X, tags)
            walked.append(f"C={C:g}: {tagger.svm_.n_iter_} passes, {last.timer.cpu:.0f} CPU-s")
            converged = converged and last.converged
    detail = last.detail + (f"; path {', '.join(walked)}" if len(walked) > 1 else "")
    return Trained(last.predict, timer, detail, converged, last.gap)


def train_perceptron(
    X: list[list[dict[str, Any]]], tags: list[list[str]], args: argparse.Namespace
) -> Trained:
    """Train the averaged structured perceptron on the chain for its epochs."""
    vectorizer = SequenceVectorizer().fit(X)
    classes = np.array(sorted({tag for sequence in tags for tag in sequence}))
    index = {tag: label for label, tag in enumerate(classes)}
    labels = [np.array([index[tag] for tag in sequence]) for sequence in tags]
    perceptron = StructuredPerceptron(
        ChainTask(len(classes), vectorizer.n_features_),
        averaged=True,
        max_epochs=args.perceptron_epochs,
        random_state=0,
    )
    inputs = vectorizer.transform(X)
    with Stopwatch() as timer:
        perceptron.fit(inputs, labels)

    def predict(sentences: list[list[dict[str, Any]]]) -> list[list[str]]:
        return [classes[y].tolist() for y in perceptron.predict(vectorizer.transform(sentences))]

    return Trained(predict, timer, f"averaged, {args.perceptron_epochs} epochs", True)


def crfsuite_penalty(C: float) -> float:
    """Return CRFsuite's c1 = c2 that weighs the weights against the losses as the SVMs' C does.

    The structural SVM minimises ``½‖w‖² + C Σ_i ξ_i``, that is C times ``Σ_i ξ_i + ‖w‖²/(2C)``;
    CRFsuite minimises ``Σ_i −log p(y_i | x_i) + c1 ‖w‖₁ + c2 ‖w‖²``. With ``c2 = 1/(2C)`` both
    put the same weight on the squared norm against the sum of the per-sentence losses; c1 is
    tied to c2, as in the CRFsuite runs of the tables.
    """
    return 1.0 / (2.0 * C)


class Line(NamedTuple):
    """One line of the held-out grid: a learner and, for the semi-Markov model, its loss."""

    learner: str
    segment_loss: str | None = None


def grid_lines(args: argparse.Namespace) -> list[Line]:
    """Return the lines of the grid: every learner, the semi-Markov model once per loss."""
    return [
        Line(learner, loss)
        for learner in args.learners
        for loss in (args.segment_losses if learner == "semi-markov" else [None])
    ]


def configured(line: Line, args: argparse.Namespace, C: float | None = None) -> argparse.Namespace:
    """Return ``args`` for one line: its segment loss (else the first of ``--segment-loss``)
    and, given C, its regularisation (CRFsuite: c1 = c2 = :func:`crfsuite_penalty` of C)."""
    settings: dict[str, Any] = {
        "segment_loss": line.segment_loss or args.segment_losses[0], "C_path": [args.C],
    }
    if C is not None:
        settings["C"] = C
        # A structural SVM is trained along the grid up to C, as on the held-out walk.
        settings["C_path"] = [value for value in sorted(args.C_grid) if value < C] + [C]
        if line.learner == "crfsuite":
            settings.update(dict.fromkeys(("crf_c1", "crf_c2"), crfsuite_penalty(C)))
    return argparse.Namespace(**{**vars(args), **settings})


def run_learner(
    learner: str, train: Sentences, evaluation: Sentences, args: argparse.Namespace
) -> Row:
    """Train one learner on sentences and score it on others (in its own process)."""
    X, tags = dicts(train), [entity_tags(t) for _, _, t in train]
    del train
    if learner == "crfsuite":
        trained = train_crfsuite(X, tags, args)
    elif learner == "perceptron":
        trained = train_perceptron(X, tags, args)
    else:
        trained = train_tagger(learner, X, tags, args)
    del X, tags
    return {"learner": learner, **scored(trained, evaluation)}


def scored(trained: Trained, evaluation: Sentences) -> Row:
    """Return the scores of a trained learner on sentences, its time, peak memory so far and
    detail."""
    timer = trained.timer
    predicted = trained.predict(dicts(evaluation))
    scores = chunk_scores([t for _, _, t in evaluation], predicted)
    return {
        "entity F1": f"{100 * scores.f1:.2f}",
        "precision": f"{100 * scores.precision:.2f}",
        "recall": f"{100 * scores.recall:.2f}",
        "token error": f"{token_error(evaluation, predicted):.2f}",
        "train time": f"{timer.wall:.1f} s",
        "train CPU": f"{timer.cpu:.1f} s",
        "peak RSS": f"{peak_rss_megabytes():.0f} MB",
        "relative gap": trained.gap,
        "converged": trained.converged,
        "detail": trained.detail,
    }


def walk_line(
    line: Line, fit: Sentences, held_out: Sentences, args: argparse.Namespace
) -> list[Row]:
    """Train one line upwards along the grid of C on ``fit`` and score every C on ``held_out``
    (in its own process).

    A structural SVM walks one path: each C starts from the dual point of the last
    (:func:`path_tagger`), and the walk stops at the first C whose training does not converge
    within its budget, as a larger C needs more passes still. CRFsuite trains every C afresh.
    Each row's time is that C's alone.
    """
    X, tags = dicts(fit), [entity_tags(t) for _, _, t in fit]
    del fit
    rows = []
    tagger = None
    if line.learner != "crfsuite":
        tagger = path_tagger(line.learner, configured(line, args))
    for C in sorted(args.C_grid):
        if tagger is None:
            trained = train_crfsuite(X, tags, configured(line, args, C))
        else:
            trained = fit_at(tagger, C, X, tags)
        rows.append({"learner": line.learner, **scored(trained, held_out)})
        if not trained.converged:
            break
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.ner", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", default=None,
                        help="directory with esp.train, esp.testa, ned.train, ned.testa "
                        "(default: $STRUCTSVM_DATA)")
    parser.add_argument("--languages", nargs="+", choices=tuple(LANGUAGES),
                        default=list(LANGUAGES))
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--settings", nargs="+", choices=("entities", "icml2004"),
                        default=["entities", "icml2004"],
                        help="the entity table on the full training sets, the 300-sentence "
                        "token-error table, or both (default: both)")
    parser.add_argument("--first", type=int, default=None,
                        help="train the entity table on the first N sentences only")
    parser.add_argument("--encoding", default="utf-8",
                        help="encoding of the files (the original CoNLL-2002 files: latin-1)")
    parser.add_argument("--regularisation", choices=("held-out", "fixed"), default="held-out",
                        help="pick each learner's regularisation from its grid by entity F1 on "
                        "the held-out end of the training file, then train on all of it "
                        "(held-out, the default), or use --C and --crf-c1/--crf-c2 (fixed)")
    parser.add_argument("--held-out", type=float, default=0.1,
                        help="share of the training sentences held out, the last whole "
                        "documents (default: 0.1)")
    parser.add_argument("--C-grid", type=float, nargs="+", default=C_GRID,
                        help="the values of C every learner selects from, CRFsuite's "
                        f"c1 = c2 = 1/(2C) (default: {' '.join(f'{C:g}' for C in C_GRID)})")
    parser.add_argument("--jobs", type=int, default=1,
                        help="training runs at a time, each in its own process (default: 1)")
    parser.add_argument("--C", type=float, default=0.1,
                        help="structural SVM regularisation constant with --regularisation "
                        "fixed and in the ICML 2004 setting (default: 0.1)")
    parser.add_argument("--tol", type=float, default=0.1,
                        help="certified relative duality gap at which training stops; a "
                        "structural SVM that does not reach it is not converged "
                        "(default: 0.1)")
    parser.add_argument("--solver", default="bcfw",
                        help="the structural SVM's solver (default: bcfw; 'auto' picks 1-slack, "
                        "whose cutting planes are dense vectors of the size of w)")
    parser.add_argument("--max-iter", type=int, default=100,
                        help="most solver iterations, passes for bcfw (default: 100)")
    bcfw = SOLVER_DEFAULTS["bcfw"]
    parser.add_argument("--step", choices=("fw", "pairwise"), default=bcfw["step"],
                        help=f"bcfw's steps (default: {bcfw['step']})")
    parser.add_argument("--order", choices=("random", "cyclic", "gap"), default=bcfw["order"],
                        help=f"bcfw's order of the sentences (default: {bcfw['order']})")
    parser.add_argument("--averaging", action=argparse.BooleanOptionalAction,
                        default=bcfw["averaging"],
                        help="bcfw: the average of the iterates rather than the last one "
                        "(default: the solver's)")
    parser.add_argument("--gap-check-every", type=int, default=10,
                        help="bcfw: passes between evaluations of the duality gap (default: 10)")
    parser.add_argument("--segment-length", type=int, default=6,
                        help="longest entity segment of the semi-Markov model (default: 6)")
    parser.add_argument("--segment-loss", dest="segment_losses", nargs="+",
                        choices=("segments", "hamming"), default=["segments", "hamming"],
                        help="the semi-Markov model's losses, entities missed or wrong "
                        "(segments) and wrong tags (hamming), both lines of the held-out grid; "
                        "--regularisation fixed and the ICML 2004 setting take the first "
                        "(default: segments hamming)")
    parser.add_argument("--crf-c1", type=float, default=0.1,
                        help="CRFsuite's L1 with --regularisation fixed and in the ICML 2004 "
                        "setting (default: 0.1)")
    parser.add_argument("--crf-c2", type=float, default=0.1,
                        help="CRFsuite's L2, as --crf-c1 (default: 0.1)")
    parser.add_argument("--crf-max-iter", type=int, default=100,
                        help="most L-BFGS iterations of CRFsuite (default: 100)")
    parser.add_argument("--perceptron-epochs", type=int, default=20,
                        help="epochs of the averaged perceptron (default: 20)")
    parser.add_argument("--icml-sentences", type=int, default=300,
                        help="training sentences of the ICML 2004 setting (default: 300)")
    return parser.parse_args(argv)


def held_out_path(
    lines: list[Line], fit: Sentences, held_out: Sentences, args: argparse.Namespace
) -> list[tuple[Line, float, Row]]:
    """Train every line along the increasing grid of C on ``fit`` and score it on ``held_out``.

    Each line walks the grid in its own process (:func:`walk_line`), ``args.jobs`` lines at a
    time; a structural SVM's line ends at its first C whose training does not converge.
    Returns ``(line, C, row)`` of every training, by C, then in the order of ``lines``.
    """
    walks = run_in_fresh_processes(
        walk_line, [(line, fit, held_out, args) for line in lines], args.jobs
    )
    grid = sorted(args.C_grid)
    path = [
        (grid.index(C), k, line, C, row)
        for k, (line, rows) in enumerate(zip(lines, walks, strict=True))
        for C, row in zip(grid, rows, strict=False)  # a walk may end early
    ]
    return [(line, C, row) for *_, line, C, row in sorted(path, key=lambda entry: entry[:2])]


def select(learner: str, path: list[tuple[Line, float, Row]]) -> tuple[Line, float] | None:
    """Return the line and C of a learner's best held-out entity F1 among its converged
    trainings (the first run on ties), or None if none converged."""
    scored = [
        (float(row["entity F1"]), -k, line, C)
        for k, (line, C, row) in enumerate(path)
        if line.learner == learner and row["converged"]
    ]
    return max(scored, key=lambda entry: entry[:2])[2:] if scored else None


def entity_table(language: str, data_dir: Path, args: argparse.Namespace) -> list[Row]:
    """Train every learner on a language's train file and score it on testa; print the tables.

    With ``--regularisation held-out``, every learner (the semi-Markov model with each loss of
    ``--segment-loss``) is first trained on the training file but its held-out end
    (:func:`held_out_split`) along the grid of C (:func:`held_out_path`); the converged
    training of the best entity F1 on the held-out sentences (:func:`select`) gives the
    setting the learner is trained with on the whole file, the only one scored on testa. A
    learner with no converged training is not scored.
    """
    documents = load_documents(data_dir / f"{language}.train", args.encoding, args.first)
    train = [sentence for document in documents for sentence in document]
    testa = load(data_dir / f"{language}.testa", args.encoding)
    subset = "" if args.first is None else f", first {args.first} sentences"
    print(f"\nCoNLL-2002 {LANGUAGES[language]}: train on {language}.train{subset}, "
          f"report on {language}.testa", flush=True)
    chosen = {learner: configured(Line(learner), args) for learner in args.learners}
    if args.regularisation == "held-out":
        fit, held_out = held_out_split(documents, args.held_out)
        print(f"regularisation selected by entity F1 on the last {len(held_out)} training "
              f"sentences, trained on the first {len(fit)} (C of the structural SVMs, "
              "c1 = c2 = 1/(2C) of CRFsuite), among the trainings that converged:", flush=True)
        path = held_out_path(grid_lines(args), fit, held_out, args)
        print(format_table([
            {"learner": line.learner, "loss": line.segment_loss or "-", "C": f"{C:g}",
             "held-out F1": row["entity F1"],
             **{key: row[key] for key in ("relative gap", "converged", "train time",
                                          "train CPU", "peak RSS", "detail")}}
            for line, C, row in path
        ]), flush=True)
        for learner in args.learners:
            selected = select(learner, path)
            if selected is None:
                print(f"{learner}: no training converged, not scored", flush=True)
                del chosen[learner]
            else:
                line, C = selected
                chosen[learner] = configured(line, args, C)
    rows = run_in_fresh_processes(
        run_learner, [(learner, train, testa, chosen[learner]) for learner in chosen],
        args.jobs,
    )
    rows = [{"language": language, **row} for row in rows]
    print(format_table(rows), flush=True)
    return rows


def main(argv: list[str] | None = None) -> dict[str, list[Row]]:
    """Entry point of ``python -m experiments.ner``: print the tables, return their rows."""
    args = parse_args(argv)
    data_dir = find_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("CoNLL-2002 data not found: pass --data-dir DIR or set STRUCTSVM_DATA")
    tables: dict[str, list[Row]] = {}
    if "entities" in args.settings:
        for language in args.languages:
            tables[language] = entity_table(language, data_dir, args)
    if "icml2004" in args.settings:
        print(f"\nICML 2004 setting: the first {args.icml_sentences} Spanish training sentences, "
              "token error (%) on esp.testa, beside the paper's figures")
        train = load(data_dir / "esp.train", args.encoding, args.icml_sentences)
        testa = load(data_dir / "esp.testa", args.encoding)
        names = {"chain": "structural SVM", "perceptron": "averaged perceptron", "crfsuite": "CRF"}
        rows = []
        learners = run_in_fresh_processes(
            run_learner,
            [(learner, train, testa, configured(Line(learner), args)) for learner in names],
            args.jobs,
        )
        for name, row in zip(names.values(), learners, strict=True):
            rows.append({
                "method": name,
                "token error (ours)": row["token error"],
                "token error (paper)": f"{PAPER_TOKEN_ERRORS[name]:.2f}",
                "entity F1 (ours)": row["entity F1"],
                "train time": row["train time"],
                "train CPU": row["train CPU"],
                "detail": row["detail"],
            })
        rows.append({"method": "HMM", "token error (ours)": "-", "token error (paper)":
                     f"{PAPER_TOKEN_ERRORS['HMM']:.2f}", "entity F1 (ours)": "-",
                     "train time": "-", "train CPU": "-", "detail": "not run"})
        print(format_table(rows), flush=True)
        tables["icml2004"] = rows
    return tables


if __name__ == "__main__":
    main()
