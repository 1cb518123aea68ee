"""Pairwise protein alignment with learned costs against BLOSUM62 on BAliBASE 3, sets 1.1 and 1.2.

BAliBASE 3 (Thompson, Koehl, Ripp & Poch, Proteins 2005) gives reference multiple alignments of
protein families built from structures, with their *core blocks*: the columns whose alignment
the structures support. Reference 1 holds equidistant families, very divergent in set 1.1
(RV11, under 20% identity) and medium to divergent in set 1.2 (RV12, 20–40%). Every pair of
sequences of a family, with the pairs of residues that share a column of the reference, is one
example of :class:`tasks.AlignmentTask`. The families are split into training and held-out
families (a family's full-length test BBnnnnn and truncated test BBSnnnnn go to the same side).

Global (Needleman–Wunsch) and local (Smith–Waterman) alignment, each with

* ``BLOSUM62 11/1`` — BLOSUM62 (Henikoff & Henikoff 1992) and affine gaps of cost 11 + k
  (BLAST's defaults; end gaps as other gaps in global mode);
* ``learned`` — a structural SVM (:class:`structsvm.StructuredSVM`, 1-slack cutting planes)
  on the training pairs: one weight per unordered residue pair, gap opening and gapped residue
  (and end gaps in global mode), the loss counting the reference pairs an alignment misses
  (Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005, section 4.3).

The score is Q, the fraction of the reference's core pairs (two residues in one core column)
that an alignment recovers, over all held-out pairs (and on the training pairs); the time is
that of one alignment by the compiled dynamic program, averaged over the held-out pairs, and
the median time of aligning two random 300-residue sequences.

The data are not part of the project: give ``--data-dir`` or the environment variable
``STRUCTSVM_DATA``: a directory holding ``RV11/`` and ``RV12/`` (BAliBASE's MSF and XML files),
the archive ``balibase3_rv11_rv12.tar.xz``, or ``balibase/`` holding either. Run
``python -m experiments.alignment --help`` for the options.
"""

from __future__ import annotations

import argparse
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from typing import NamedTuple

import numpy as np

from experiments._data import candidate_directories
from experiments._measure import format_table
from structsvm import StructuredSVM
from structsvm.io import read_msf
from tasks import AlignmentTask, SequencePair, blosum62

ARCHIVE = "balibase3_rv11_rv12.tar.xz"
REFERENCES = ("RV11", "RV12")
ALPHABET = "ARNDCQEGHILKMFPSTWYVX"
"""The twenty residues and X, which stands for any other letter (BLOSUM62's X scores)."""


class Family(NamedTuple):
    """One BAliBASE test: its name, aligned sequences (gaps ``-``) and core columns."""

    name: str
    aligned: dict[str, str]
    core: np.ndarray


class AlignedPair(NamedTuple):
    """Two sequences of a family, their reference partners and the core pairs among them."""

    family: str
    a: str
    b: str
    partners: np.ndarray
    core: np.ndarray


def read_core_columns(path: Path) -> np.ndarray:
    """Return the core-block mask of a BAliBASE XML file (its ``coreblock`` column score == 1).

    Raises
    ------
    ValueError
        If the file has no ``coreblock`` column score.
    """
    root = ElementTree.parse(path).getroot()
    for score in root.iter("column-score"):
        if (score.findtext("colsco-name") or "").strip() == "coreblock":
            return np.array((score.findtext("colsco-data") or "").split(), dtype=int) == 1
    raise ValueError(f"{path.name}: no coreblock column score")


def read_family(msf: Path) -> Family:
    """Return the family of a BAliBASE test from its MSF file and the XML file beside it."""
    aligned = read_msf(msf)
    core = read_core_columns(msf.with_suffix(".xml"))
    width = len(next(iter(aligned.values())))
    if len(core) != width:
        raise ValueError(f"{msf.name}: {width} columns but {len(core)} core-block flags")
    return Family(msf.stem, aligned, core)


def pairs_of(family: Family) -> Iterator[AlignedPair]:
    """Yield every pair of the family's sequences, in file order, with its reference."""
    for first, second in combinations(family.aligned, 2):
        row_a, row_b = np.array(list(family.aligned[first])), np.array(list(family.aligned[second]))
        residue_a, residue_b = row_a != "-", row_b != "-"
        position_a = np.cumsum(residue_a) - 1
        position_b = np.cumsum(residue_b) - 1
        partners = np.full(int(residue_a.sum()), -1, dtype=np.int64)
        both = residue_a & residue_b
        partners[position_a[both]] = position_b[both]
        core = np.zeros(len(partners), dtype=bool)
        core[position_a[both & family.core]] = True
        sequence_a = "".join(row_a[residue_a])
        sequence_b = "".join(row_b[residue_b])
        yield AlignedPair(family.name, sequence_a, sequence_b, partners, core)


def family_number(name: str) -> str:
    """Return the number shared by a family's full-length and truncated tests (BB/BBS)."""
    return name.removeprefix("BBS").removeprefix("BB")


@contextmanager
def balibase_directory(data_dir: str | None) -> Iterator[Path]:
    """Yield the directory holding RV11/ and RV12/, extracting the archive if that is given.

    Raises
    ------
    FileNotFoundError
        If no directory is given or it holds neither the sets nor the archive.
    """
    candidates = candidate_directories(data_dir, "balibase")
    if not candidates:
        raise FileNotFoundError("give --data-dir or set STRUCTSVM_DATA (see --help)")
    for candidate in candidates:
        if all((candidate / reference).is_dir() for reference in REFERENCES):
            yield candidate
            return
        if (candidate / ARCHIVE).is_file():
            with tempfile.TemporaryDirectory() as scratch:
                with tarfile.open(candidate / ARCHIVE) as archive:
                    archive.extractall(scratch, filter="data")
                yield Path(scratch)
            return
    raise FileNotFoundError(f"{candidates[0]}: no RV11/ and RV12/, nor {ARCHIVE}")


def load_families(directory: Path, variants: tuple[str, ...]) -> list[Family]:
    """Return the families of RV11 and RV12 whose test names start with one of ``variants``."""
    families = []
    for reference in REFERENCES:
        for msf in sorted((directory / reference).glob("*.msf")):
            kind = msf.stem.rstrip("0123456789")
            if kind in variants:
                families.append(read_family(msf))
    return families


def split_families(families: list[Family], test_fraction: float, seed: int):
    """Return (training families, held-out families), a family's tests kept on one side."""
    numbers = sorted({family_number(family.name) for family in families})
    rng = np.random.default_rng(seed)
    held_out = set(rng.permutation(numbers)[: round(test_fraction * len(numbers))])
    train = [family for family in families if family_number(family.name) not in held_out]
    test = [family for family in families if family_number(family.name) in held_out]
    return train, test


def core_recovery(pairs: list[AlignedPair], predicted: list[np.ndarray]) -> float:
    """Return Q: the fraction of core reference pairs that the predicted alignments keep."""
    kept = sum(
        int(np.sum(pair.core & (guess == pair.partners)))
        for pair, guess in zip(pairs, predicted, strict=True)
    )
    return kept / max(1, sum(int(pair.core.sum()) for pair in pairs))


def examples(task: AlignmentTask, pairs: list[AlignedPair]):
    """Return the task's inputs and outputs of the pairs."""
    return [task.pair(pair.a, pair.b) for pair in pairs], [pair.partners for pair in pairs]


def align_all(task: AlignmentTask, X: list[SequencePair], w: np.ndarray):
    """Return the best alignment of every pair and the mean seconds per alignment."""
    start = time.perf_counter()
    predicted = [task.argmax(x, w) for x in X]
    return predicted, (time.perf_counter() - start) / len(X)


def time_square(task: AlignmentTask, w: np.ndarray, length: int, repeats: int) -> float:
    """Return the median seconds to align two random sequences of ``length`` residues.

    The median of ``repeats`` timings, which a machine shared with other work disturbs less
    than the mean.
    """
    rng = np.random.default_rng(0)
    x = SequencePair(*rng.integers(0, 20, size=(2, length)))
    task.argmax(x, w)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        task.argmax(x, w)
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds))


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Train and evaluate every mode and model; return the table's rows."""
    variants = ("BB", "BBS") if args.variant == "both" else (args.variant,)
    with balibase_directory(args.data_dir) as directory:
        families = load_families(directory, variants)
    train_families, test_families = split_families(families, args.test_fraction, args.seed)
    train_pairs = [pair for family in train_families for pair in pairs_of(family)]
    test_pairs = [pair for family in test_families for pair in pairs_of(family)]
    if args.max_train_pairs and len(train_pairs) > args.max_train_pairs:
        chosen = np.random.default_rng(args.seed).choice(
            len(train_pairs), args.max_train_pairs, replace=False
        )
        train_pairs = [train_pairs[k] for k in np.sort(chosen)]
    print(
        f"families: {len(train_families)} training, {len(test_families)} held out; "
        f"pairs: {len(train_pairs)} training, {len(test_pairs)} held out"
    )
    rows = []
    for mode in args.modes:
        task = AlignmentTask(ALPHABET, mode=mode, unknown="X")
        X_train, Y_train = examples(task, train_pairs)
        X_test, _ = examples(task, test_pairs)
        start = time.perf_counter()
        svm = StructuredSVM(
            task, C=args.C, solver="1-slack", tol=args.tol, max_iter=args.max_iter
        ).fit(X_train, Y_train)
        train_seconds = time.perf_counter() - start
        models = {
            "BLOSUM62 11/1": (task.weights(blosum62(ALPHABET), 11.0, 1.0), 0.0),
            "learned": (svm.w_, train_seconds),
        }
        for name, (w, seconds) in models.items():
            train_predicted, _ = align_all(task, X_train, w)
            predicted, per_alignment = align_all(task, X_test, w)
            rows.append(
                {
                    "mode": mode,
                    "model": name,
                    "Q held out": core_recovery(test_pairs, predicted),
                    "Q training": core_recovery(train_pairs, train_predicted),
                    "ms / alignment": 1e3 * per_alignment,
                    "ms 300x300": 1e3 * time_square(task, w, 300, args.repeats),
                    "train s": seconds,
                }
            )
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Return the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="BAliBASE's directory or archive (see above)")
    parser.add_argument(
        "--variant",
        choices=("BB", "BBS", "both"),
        default="both",
        help="full-length tests (BB), truncated to the homologous regions (BBS), or both",
    )
    parser.add_argument(
        "--modes", nargs="+", choices=("global", "local"), default=["global", "local"]
    )
    parser.add_argument("--C", type=float, default=0.1, help="the SVM's C (default 0.1)")
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--max-iter", type=int, default=300)
    parser.add_argument("--test-fraction", type=float, default=0.5)
    parser.add_argument("--max-train-pairs", type=int, default=0, help="0: every pair")
    parser.add_argument("--repeats", type=int, default=50, help="timings of the 300x300 pair")
    parser.add_argument("--seed", type=int, default=0, help="seed of the family split")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Run the comparison and print its table; return the rows."""
    args = parse_args(argv)
    rows = run(args)
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    main()
