"""Treebank trees made ready for a grammar, and scored by their labelled brackets.

The Penn Treebank's trees carry function tags (``NP-SBJ``, ``PP-LOC-CLR``, ``NP=2``) and empty
elements (``(-NONE- *T*-1)``) that a parser does not predict; a grammar over binary rules needs
unary chains collapsed and wide constituents binarised. :func:`prepare_tree` does the first
three steps in order (:func:`strip_function_tags`, :func:`strip_empty`,
:func:`collapse_unaries`); :func:`binarise` and :func:`unbinarise` turn a tree into binary
branches labelled ``@A...`` and back.

Brackets, as evalb counts them (:func:`labelled_brackets`, :func:`bracket_scores`): every
constituent that is not a preterminal gives the bracket ``(label, start, end)``, the root
included, over word positions counted from 0 with punctuation kept (evalb's ``COLLINS.prm``
instead leaves punctuation out of the spans). Precision, recall and F1 are micro-averaged over
the brackets of every sentence, as evalb's summary is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from structsvm.io._treebank import Tree

#: The tag of the treebank's empty elements (traces, null complementisers).
EMPTY_TAG = "-NONE-"

#: The first character of the labels that :func:`binarise` makes.
BINARISED_MARK = "@"


def base_label(label: str) -> str:
    """Return a label without its function tags and indices: ``NP-SBJ-1`` → ``NP``.

    Labels that begin with a hyphen (``-NONE-``, ``-LRB-``) are kept whole.
    """
    if label.startswith("-"):
        return label
    return label.split("-")[0].split("=")[0] or label


def strip_function_tags(tree: Tree) -> Tree:
    """Return the tree with every label replaced by its :func:`base_label`."""
    children = tuple(
        child if isinstance(child, str) else strip_function_tags(child) for child in tree.children
    )
    return Tree(base_label(tree.label), children)


def strip_empty(tree: Tree) -> Tree | None:
    """Return the tree without its empty elements and the constituents left empty.

    An empty element is a preterminal tagged ``-NONE-``; None if nothing is left.
    """
    if tree.is_preterminal():
        return None if tree.label == EMPTY_TAG else tree
    children = [strip_empty(child) for child in tree.children]
    kept = tuple(child for child in children if child is not None)
    return Tree(tree.label, kept) if kept else None


def collapse_unaries(tree: Tree) -> Tree:
    """Return the tree with every unary chain of constituents collapsed to its top label.

    A constituent whose single child is a constituent (not a preterminal) takes that child's
    children, repeatedly: ``(S (VP (VB go) (NP it)))`` becomes ``(S (VB go) (NP it))``. A
    constituent over a single preterminal, ``(NP (NN it))``, is kept: its label is a bracket
    over one word.
    """
    if tree.is_preterminal():
        return tree
    children = tree.children
    while len(children) == 1 and not children[0].is_preterminal():
        children = children[0].children
    return Tree(tree.label, tuple(collapse_unaries(child) for child in children))


def prepare_tree(tree: Tree) -> Tree | None:
    """Return the tree with function tags, empty elements and unary chains removed, in order.

    None if the tree holds only empty elements.
    """
    stripped = strip_empty(strip_function_tags(tree))
    return None if stripped is None else collapse_unaries(stripped)


def binarise(tree: Tree, markov: int = 1) -> Tree:
    """Return the tree with every constituent of more than two children right-factored.

    ``(A c1 c2 ... cm)`` becomes ``(A c1 (@A|.. c2 (... (@A|.. c(m-1) cm))))``: the new nodes'
    labels start with ``@``, then the parent's label, then (horizontal markovisation of order
    ``markov``) the labels of the ``markov`` siblings generated before the node, joined by
    ``_`` after a ``|``; ``markov=0`` labels them all ``@A``. :func:`unbinarise` undoes it.
    """
    if markov < 0:
        raise ValueError(f"markov must be >= 0, got {markov}")
    if tree.is_preterminal():
        return tree
    children = [binarise(child, markov) for child in tree.children]
    labels = [child.label for child in tree.children]
    right = children[-1]
    for k in range(len(children) - 2, 0, -1):
        context = labels[max(0, k - markov) : k] if markov else []
        label = f"{BINARISED_MARK}{tree.label}" + (f"|{'_'.join(context)}" if context else "")
        right = Tree(label, (children[k], right))
    return Tree(tree.label, (children[0], right) if len(children) > 1 else (children[0],))


def unbinarise(tree: Tree) -> Tree:
    """Return the tree with every node labelled ``@...`` spliced into its parent."""
    if tree.is_preterminal():
        return tree
    children: list[Tree | str] = []
    for child in tree.children:
        flat = unbinarise(child)
        if flat.label.startswith(BINARISED_MARK):
            children.extend(flat.children)
        else:
            children.append(flat)
    return Tree(tree.label, tuple(children))


def labelled_brackets(tree: Tree) -> Counter[tuple[str, int, int]]:
    """Return the brackets ``(label, start, end)`` of every constituent but the preterminals.

    The root is counted; positions are word positions from 0, ``end`` exclusive.
    """
    brackets: Counter[tuple[str, int, int]] = Counter()

    def visit(node: Tree, start: int) -> int:
        if node.is_preterminal():
            return start + 1
        end = start
        for child in node.children:
            end = visit(child, end)
        brackets[(node.label, start, end)] += 1
        return end

    visit(tree, 0)
    return brackets


class BracketScores(NamedTuple):
    """Labelled-bracket scores of parses against the true trees (evalb's summary)."""

    precision: float
    recall: float
    f1: float
    exact_match: float
    matched: int
    n_gold: int
    n_predicted: int


def bracket_scores(gold: Sequence[Tree], predicted: Sequence[Tree]) -> BracketScores:
    """Return labelled precision, recall and F1 (micro-averaged) and the exact-match rate.

    A sentence matches exactly when its two trees have the same brackets.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} true trees but {len(predicted)} predicted ones")
    matched = n_gold = n_predicted = exact = 0
    for true_tree, tree in zip(gold, predicted, strict=True):
        true_brackets, brackets = labelled_brackets(true_tree), labelled_brackets(tree)
        matched += sum((true_brackets & brackets).values())
        n_gold += sum(true_brackets.values())
        n_predicted += sum(brackets.values())
        exact += true_brackets == brackets
    precision = matched / n_predicted if n_predicted else 0.0
    recall = matched / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return BracketScores(
        precision, recall, f1, exact / len(gold) if gold else 0.0, matched, n_gold, n_predicted
    )
