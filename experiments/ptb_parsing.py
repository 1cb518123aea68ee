"""Constituency parsing of the Penn Treebank sample: a weighted CFG as a structural SVM vs the PCFG.

Tsochantaridis, Hofmann, Joachims & Altun (ICML 2004, Table 5; JMLR 2005, section 4.4)
trained a weighted context-free grammar as a structural SVM on the Penn WSJ treebank's
sentences of at most 10 words and beat the maximum-likelihood PCFG of the same grammar
(F1 86.0 → 88.5 with the bracket loss). This experiment makes the comparison at the scale of
the NLTK sample of the treebank (files wsj_0001 … wsj_0199, about 5% of the WSJ): training
on files wsj_0001–0159, evaluating on wsj_0160–0199 (the development side; the sample has no
other), sentences of at most 10 and of at most 15 words, each length limit its own grammar.

Both models are :class:`tasks.WeightedCFGTask` on one grammar, read off the training trees
(function tags, empty elements and unary chains removed, right-binarised with horizontal
markovisation of order 1):

* ``PCFG`` — the relative-frequency rule probabilities and add-0.1 smoothed P(word class | tag)
  as weights (:meth:`~tasks.WeightedCFGTask.maximum_likelihood_weights`);
* ``structural SVM`` — :class:`structsvm.StructuredSVM` (``solver="auto"``, C fixed
  beforehand, not tuned on the evaluation files) with the bracket loss and the same CKY.

Words are parsed with their tags chosen by the parser (``--tags predicted``, the default) or
given (``--tags gold``). Scores are evalb-style labelled bracket precision, recall, F1 and
exact match (:func:`structsvm.io.bracket_scores`: brackets of the trees with function tags,
empty elements and unary chains removed, the root counted, preterminals and punctuation
positions not removed) against the evaluation trees prepared the same way. Every length limit
runs in a fresh process, which reports its peak memory; training time is the SVM's fit,
sentences per second the SVM's parsing of the evaluation sentences.

The data are not part of the project (non-commercial licence): give ``--data-dir`` or the
environment variable ``STRUCTSVM_DATA`` (a directory holding the ``wsj_*.mrg`` files, or
``ptb_sample/`` holding them). Run ``python -m experiments.ptb_parsing --help`` for the options.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from experiments._data import candidate_directories
from experiments._measure import format_table, peak_rss_megabytes, run_in_fresh_process
from structsvm import StructuredSVM
from structsvm.io import Tree, bracket_scores, prepare_tree, read_treebank
from tasks import WeightedCFGTask

_FILE = re.compile(r"wsj_(\d{4})\.mrg")


def treebank_files(data_dir: str | None) -> list[Path]:
    """Return the sample's ``wsj_NNNN.mrg`` files in order.

    Raises
    ------
    FileNotFoundError
        If no directory is given or none of the candidates holds such files.
    """
    candidates = candidate_directories(data_dir, "ptb_sample")
    if not candidates:
        raise FileNotFoundError("give --data-dir or set STRUCTSVM_DATA (see --help)")
    for candidate in candidates:
        files = sorted(path for path in candidate.glob("wsj_*.mrg") if _FILE.fullmatch(path.name))
        if files:
            return files
    raise FileNotFoundError(f"{candidates[0]}: no wsj_*.mrg files")


def load_trees(files: list[Path], max_length: int) -> list[Tree]:
    """Return the prepared trees of the files with at most ``max_length`` words."""
    trees = []
    for path in files:
        for tree in read_treebank(path):
            prepared = prepare_tree(tree)
            if prepared is not None and len(prepared.words()) <= max_length:
                trees.append(prepared)
    return trees


def parse_all(task: WeightedCFGTask, trees: list[Tree], w, gold_tags: bool):
    """Return the parses of the trees' sentences under ``w`` and the sentences per second."""
    tagged = [tree.tagged_words() for tree in trees]
    inputs = [
        task.encode_input([word for _, word in pairs], [t for t, _ in pairs] if gold_tags else None)
        for pairs in tagged
    ]
    task.argmax(inputs[0], w)  # loads the compiled parser before the clock starts
    start = time.perf_counter()
    labels = [task.argmax(x, w) for x in inputs]
    seconds = time.perf_counter() - start
    parses = [task.to_tree(y, tree.words()) for y, tree in zip(labels, trees, strict=True)]
    return parses, len(trees) / seconds


def compare(options: dict, max_length: int) -> list[dict[str, object]]:
    """Train and evaluate the PCFG and the structural SVM at one length limit; return rows."""
    files = treebank_files(options["data_dir"])
    number = {path: int(_FILE.fullmatch(path.name).group(1)) for path in files}
    train = load_trees([p for p in files if number[p] <= options["train_last"]], max_length)
    test = load_trees([p for p in files if number[p] > options["train_last"]], max_length)
    gold_tags = options["tags"] == "gold"
    task = WeightedCFGTask(train, markov=options["markov"])
    X, Y = task.check_data(*zip(*(task.encode(tree, gold_tags) for tree in train), strict=True))
    start = time.perf_counter()
    svm = StructuredSVM(
        task, C=options["C"], solver=options["solver"], tol=options["tol"], random_state=0
    ).fit(X, Y)
    train_seconds = time.perf_counter() - start
    models = {
        "PCFG": (task.maximum_likelihood_weights(train), 0.0),
        "structural SVM": (svm.w_, train_seconds),
    }
    rows = []
    for name, (w, seconds) in models.items():
        parses, speed = parse_all(task, test, w, gold_tags)
        scores = bracket_scores(test, parses)
        rows.append(
            {
                "words": f"<= {max_length}",
                "model": name,
                "train": len(train),
                "test": len(test),
                "P": 100 * scores.precision,
                "R": 100 * scores.recall,
                "F1": 100 * scores.f1,
                "exact": 100 * scores.exact_match,
                "train s": seconds,
                "sentences/s": speed,
            }
        )
    peak = peak_rss_megabytes()
    for row in rows:
        row["peak MB"] = peak
    print(f"<= {max_length} words: {task!r}, solver {svm.solver_!r}", flush=True)
    return rows


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Compare the models at every length limit, each in a fresh process; return the rows."""
    treebank_files(args.data_dir)  # fail early, in this process, if the data are missing
    options = {
        key: getattr(args, key)
        for key in ("data_dir", "train_last", "tags", "markov", "C", "solver", "tol")
    }
    rows = []
    for max_length in args.max_lengths:
        rows.extend(run_in_fresh_process(compare, options, max_length))
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Return the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="the directory of the wsj_*.mrg files (see above)")
    parser.add_argument("--max-lengths", type=int, nargs="+", default=[10, 15])
    parser.add_argument(
        "--train-last", type=int, default=159, help="the last training file's number (159)"
    )
    parser.add_argument("--tags", choices=("predicted", "gold"), default="predicted")
    parser.add_argument("--markov", type=int, default=1, help="horizontal markovisation (1)")
    parser.add_argument("--C", type=float, default=1.0, help="the SVM's C (default 1)")
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--tol", type=float, default=1e-3)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Run the comparison and print its table; return the rows."""
    rows = run(parse_args(argv))
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    main()
