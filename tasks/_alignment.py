"""Pairwise sequence alignment with learned substitution and gap weights.

After Tsochantaridis, Joachims, Hofmann & Altun (JMLR 2005, section 4.3) and Joachims'
SVM^align: the input is a pair of sequences, the output an alignment, the joint feature map
counts the aligned pairs of every two symbols and the gaps, so that ``w · φ`` is the classical
alignment score with a substitution matrix and affine gap costs (Gotoh 1982), all learned.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from structsvm._compiled_oracle import CompiledOracle, labels_of
from structsvm._task import Task, overrides_any
from structsvm._utils.validation import check_examples, check_weights
from tasks._alignment_oracle import (
    alignment_counts,
    alignment_decode,
    alignment_features,
    alignment_loss,
    alignment_scores,
    decode_alignment,
    match_scores,
    missed_pairs,
)
from tasks._blosum62 import BLOSUM62_ALPHABET

#: The residues of proteins, with B (D or N), Z (E or Q) and X (any): BLOSUM62's order.
PROTEIN_ALPHABET = BLOSUM62_ALPHABET

MODES = ("global", "local")


class SequencePair(NamedTuple):
    """The input of an alignment: two sequences of symbol codes (int64 arrays)."""

    a: np.ndarray
    b: np.ndarray


class AlignmentTask(Task):
    """Pairwise alignment of sequences over an alphabet, with affine gaps.

    x is a :class:`SequencePair` (a, b) of symbol codes (:meth:`encode` turns letters into
    codes); y is an alignment given as ``partners``, an int64 array of length ``len(a)``
    holding for every residue of a the index of its partner in b, or -1, the partners
    increasing. The joint feature map counts

    * the aligned pairs of every two symbols {p, q}, one count per unordered pair (a symmetric
      substitution matrix; :meth:`substitution_matrix` reads it off ``w``): the first
      ``n_symbols (n_symbols + 1) / 2`` entries;
    * the gaps between aligned pairs: the number of gaps, then the number of gapped residues
      (a gap of k residues scores ``w_open + k w_extend``, BLAST's convention);
    * with ``mode="global"`` (Needleman–Wunsch) the end gaps, before the first and after the
      last aligned pair, in the same way with their own two weights; ``mode="local"``
      (Smith–Waterman) does not score them, so the best alignment is the best segment pair.

    The loss is the number of pairs of the true alignment that y leaves out; it decomposes over
    the pairs, so the loss-augmented oracle is the same dynamic program with every true pair
    scoring 1 less (exact). Both oracles are Gotoh's dynamic program, compiled with Numba,
    O(len(a) len(b)); ties are broken as :mod:`tasks._alignment_oracle` states.

    Parameters
    ----------
    alphabet : str, default=PROTEIN_ALPHABET
        The symbols, each one character; a symbol's code is its position.
    mode : {"global", "local"}, default="global"
    unknown : str or None, default=None
        The symbol that :meth:`encode` gives letters outside the alphabet (``"X"`` for
        proteins); None: they raise.

    References
    ----------
    I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun, "Large margin methods for
    structured and interdependent output variables", JMLR 6, 2005.
    O. Gotoh, "An improved algorithm for matching biological sequences", J. Mol. Biol. 162, 1982.
    """

    def __init__(
        self, alphabet: str = PROTEIN_ALPHABET, mode: str = "global", unknown: str | None = None
    ) -> None:
        if not isinstance(alphabet, str) or len(alphabet) == 0:
            raise ValueError(f"alphabet must be a non-empty string, got {alphabet!r}")
        if len(set(alphabet)) != len(alphabet):
            raise ValueError(f"alphabet has repeated symbols: {alphabet!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if unknown is not None and unknown not in alphabet:
            raise ValueError(f"unknown={unknown!r} is not a symbol of the alphabet {alphabet!r}")
        self.alphabet = alphabet
        self.mode = mode
        self.unknown = unknown
        self.n_symbols = len(alphabet)
        self.n_pairs = self.n_symbols * (self.n_symbols + 1) // 2
        self.scored_ends = mode == "global"
        self.size_joint_feature = self.n_pairs + (4 if self.scored_ends else 2)
        rows, columns = np.triu_indices(self.n_symbols)
        self.pair_index = np.zeros((self.n_symbols, self.n_symbols), dtype=np.int64)
        self.pair_index[rows, columns] = np.arange(self.n_pairs)
        self.pair_index[columns, rows] = np.arange(self.n_pairs)
        self._codes = {letter: code for code, letter in enumerate(alphabet)}

    def __repr__(self) -> str:
        return f"AlignmentTask(alphabet={self.alphabet!r}, mode={self.mode!r})"

    # ----------------------------------------------------------------- sequences and weights
    def encode(self, sequence: str) -> np.ndarray:
        """Return the codes of a sequence's letters (upper-cased) as an int64 array.

        Raises
        ------
        ValueError
            If a letter is outside the alphabet and ``unknown`` is None.
        """
        fallback = None if self.unknown is None else self._codes[self.unknown]
        codes = []
        for position, letter in enumerate(sequence.upper()):
            code = self._codes.get(letter, fallback)
            if code is None:
                raise ValueError(
                    f"letter {letter!r} at position {position} is not in the alphabet "
                    f"{self.alphabet!r}"
                )
            codes.append(code)
        return np.array(codes, dtype=np.int64)

    def pair(self, a: str, b: str) -> SequencePair:
        """Return the input of aligning the letter sequences a and b."""
        return SequencePair(self.encode(a), self.encode(b))

    def weights(
        self,
        substitution: np.ndarray,
        gap_open: float,
        gap_extend: float,
        end_gap_open: float | None = None,
        end_gap_extend: float | None = None,
    ) -> np.ndarray:
        """Return the w of a substitution matrix and gap costs (positive costs, as usually given).

        ``substitution`` is a symmetric (n_symbols, n_symbols) matrix over the alphabet; a gap
        of k residues costs ``gap_open + k gap_extend``; end gaps (global mode) cost the same
        unless given their own costs.
        """
        matrix = np.asarray(substitution, dtype=np.float64)
        if matrix.shape != (self.n_symbols, self.n_symbols) or not np.allclose(matrix, matrix.T):
            raise ValueError(
                f"substitution must be a symmetric ({self.n_symbols}, {self.n_symbols}) matrix, "
                f"got shape {matrix.shape}"
            )
        rows, columns = np.triu_indices(self.n_symbols)
        gaps = [-gap_open, -gap_extend]
        if self.scored_ends:
            gaps += [
                -(gap_open if end_gap_open is None else end_gap_open),
                -(gap_extend if end_gap_extend is None else end_gap_extend),
            ]
        return np.concatenate([matrix[rows, columns], gaps])

    def substitution_matrix(self, w: np.ndarray) -> np.ndarray:
        """Return the symmetric (n_symbols, n_symbols) pair weights held in ``w``."""
        w = check_weights(w, self.size_joint_feature)
        return w[self.pair_index]

    # ----------------------------------------------------------------- the contract
    def joint_feature(self, x: SequencePair, y: np.ndarray) -> np.ndarray:
        """Return φ(x, y): pair counts, then gap and gapped-residue counts (see the class)."""
        indices, values = self.sparse_joint_feature(x, y)
        phi = np.zeros(self.size_joint_feature)
        phi[indices] = values
        return phi

    def sparse_joint_feature(self, x: SequencePair, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the non-zero counts of φ(x, y) as sorted indices and values."""
        return alignment_counts(
            x.a, x.b, labels_of(y), self.pair_index, self.n_pairs, self.scored_ends
        )

    def loss(self, y_true: np.ndarray, y: np.ndarray) -> float:
        """Return the number of aligned pairs of ``y_true`` that ``y`` leaves out."""
        return float(missed_pairs(labels_of(y_true), labels_of(y)))

    def max_loss(self, y_true: np.ndarray) -> float:
        """Return the number of aligned pairs of ``y_true`` (all of them left out)."""
        return float(np.count_nonzero(np.asarray(y_true) >= 0))

    def argmax(self, x: SequencePair, w: np.ndarray) -> np.ndarray:
        """Return the partners of the best-scoring alignment of x."""
        return self._decode(x, None, w)

    def loss_augmented_argmax(
        self, x: SequencePair, y_true: np.ndarray, w: np.ndarray
    ) -> np.ndarray:
        """Return the partners of the alignment maximising ``Δ(y_true, y) + w · φ(x, y)``."""
        return self._decode(x, labels_of(y_true), w)

    def _decode(self, x: SequencePair, reference: np.ndarray | None, w: np.ndarray) -> np.ndarray:
        """Run the compiled dynamic program on x (loss-augmented against ``reference``)."""
        w = check_weights(w, self.size_joint_feature)
        scores = match_scores(x.a, x.b, self.pair_index, w)
        augmented = reference is not None
        if reference is None:
            reference = np.zeros(0, dtype=np.int64)
        return decode_alignment(scores, w, self.n_pairs, self.scored_ends, reference, augmented)

    def outputs(self, x: SequencePair) -> Iterator[np.ndarray]:
        """Enumerate every alignment of x (for checks on short sequences only)."""
        n, m = len(x.a), len(x.b)
        for size in range(min(n, m) + 1):
            for rows in itertools.combinations(range(n), size):
                for columns in itertools.combinations(range(m), size):
                    partners = np.full(n, -1, dtype=np.int64)
                    partners[list(rows)] = columns
                    yield partners

    def check_data(self, X: Sequence[Any], Y: Sequence[Any] | None = None):
        """Return X as a list of :class:`SequencePair` and Y as a list of int64 partner arrays.

        Raises
        ------
        ValueError
            If an input is not a pair of non-empty 1-D integer arrays of codes in
            ``[0, n_symbols)``, or an output is not an increasing partner array of length
            ``len(a)`` with entries in ``[-1, len(b))``; the message names the example.
        """
        check_examples(X, "X")
        if len(X) == 0:
            raise ValueError("X is empty: expected at least one pair of sequences")
        pairs = [self._check_pair(x, k) for k, x in enumerate(X)]
        if Y is None:
            return pairs, None
        check_examples(Y, "Y")
        if len(Y) != len(X):
            raise ValueError(
                f"X and Y have different lengths: X has {len(X)} examples, Y has {len(Y)}"
            )
        outputs = [_check_partners(y, x, k) for k, (x, y) in enumerate(zip(pairs, Y, strict=True))]
        return pairs, outputs

    def _check_pair(self, x: Any, k: int) -> SequencePair:
        """Return input k as a SequencePair of int64 codes, or raise ValueError naming it."""
        if not isinstance(x, tuple | list) or len(x) != 2:
            raise ValueError(f"X[{k}] must be a pair (a, b) of code arrays, got {type(x).__name__}")
        sequences = []
        for name, sequence in zip("ab", x, strict=True):
            array = np.asarray(sequence)
            if array.ndim != 1 or len(array) == 0 or not np.issubdtype(array.dtype, np.integer):
                raise ValueError(f"X[{k}].{name} must be a non-empty 1-D array of integer codes")
            if array.min() < 0 or array.max() >= self.n_symbols:
                raise ValueError(
                    f"X[{k}].{name} has codes outside [0, {self.n_symbols}) (the alphabet)"
                )
            sequences.append(array.astype(np.int64))
        return SequencePair(*sequences)

    def compiled_oracle(self, X, Y) -> CompiledOracle | None:
        """Return the task's compiled oracle (see :meth:`structsvm.Task.compiled_oracle`).

        The part scores of example i are its (len(a), len(b)) pair scores; the labels of an
        alignment are its partners. None for a subclass that overrides an oracle, the loss or
        the joint feature.
        """
        if overrides_any(self, AlignmentTask, _COMPILED_METHODS):
            return None
        a_offsets = np.zeros(len(X) + 1, dtype=np.int64)
        b_offsets = np.zeros(len(X) + 1, dtype=np.int64)
        np.cumsum([len(x.a) for x in X], out=a_offsets[1:])
        np.cumsum([len(x.b) for x in X], out=b_offsets[1:])
        data = (
            np.concatenate([x.a for x in X]).astype(np.int64),
            a_offsets,
            np.concatenate([x.b for x in X]).astype(np.int64),
            b_offsets,
            np.concatenate([labels_of(y) for y in Y]),
            self.pair_index,
            self.n_pairs,
            self.scored_ends,
        )
        return CompiledOracle(
            data,
            alignment_scores,
            alignment_decode,
            alignment_features,
            alignment_loss,
            n_examples=len(X),
        )


def _check_partners(y: Any, x: SequencePair, k: int) -> np.ndarray:
    """Return output k as int64 partners of x, or raise ValueError naming it."""
    partners = np.asarray(y)
    if partners.shape != (len(x.a),) or (
        len(partners) and not np.issubdtype(partners.dtype, np.integer)
    ):
        raise ValueError(
            f"Y[{k}] must be an integer array of {len(x.a)} partners (one per residue of a), "
            f"got shape {partners.shape}"
        )
    aligned = partners[partners >= 0]
    if np.any(partners < -1) or np.any(aligned >= len(x.b)) or np.any(np.diff(aligned) <= 0):
        raise ValueError(
            f"Y[{k}] must hold partners in [-1, {len(x.b)}), increasing over the aligned residues"
        )
    return partners.astype(np.int64)


# The methods whose answers the compiled oracle reproduces.
_COMPILED_METHODS = (
    "argmax",
    "loss_augmented_argmax",
    "loss",
    "joint_feature",
    "sparse_joint_feature",
    "_decode",
)
