"""Reading Penn Treebank bracketed trees (the ``.mrg`` files of the WSJ treebank).

A file holds trees one after another, each written as nested brackets ``(LABEL child ...)``
where a child is a bracket or a word: ``(S (NP (NNP Pierre)) (VP (VBD left)) (. .))``. The
treebank wraps every tree in an outer bracket without a label, ``( (S ...) )``; the reader
drops that wrapper and returns the tree inside it. Line breaks and spaces are free.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import NamedTuple

from structsvm.io._errors import FileFormatError


class Tree(NamedTuple):
    """A constituent: its label and its children, each a :class:`Tree` or a word (str).

    A preterminal (a part-of-speech tag over one word) is ``Tree("NN", ("board",))``.
    """

    label: str
    children: tuple[Tree | str, ...]

    def is_preterminal(self) -> bool:
        """Tell whether the tree is a tag over a single word."""
        return len(self.children) == 1 and isinstance(self.children[0], str)

    def words(self) -> list[str]:
        """Return the words at the leaves, left to right."""
        return [word for _, word in self.tagged_words()]

    def tagged_words(self) -> list[tuple[str, str]]:
        """Return the (tag, word) pairs of the preterminals, left to right."""
        if self.is_preterminal():
            return [(self.label, self.children[0])]
        pairs: list[tuple[str, str]] = []
        for child in self.children:
            if isinstance(child, str):
                raise ValueError(f"the word {child!r} is not under a preterminal")
            pairs.extend(child.tagged_words())
        return pairs

    def __str__(self) -> str:
        parts = [child if isinstance(child, str) else str(child) for child in self.children]
        return f"({' '.join([self.label, *parts])})"


_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """Yield the brackets and atoms of ``text`` with their line numbers (from 1)."""
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _TOKEN.finditer(line):
            yield match.group(), number


def parse_trees(text: str, path: str | os.PathLike[str] = "<string>") -> list[Tree]:
    """Return the trees written in ``text``, in order (see the module for the format).

    Raises
    ------
    FileFormatError
        Naming ``path`` and the line: a closing bracket without an opening one, a tree left
        open at the end, a word outside any bracket, an empty bracket ``()``, a bracket whose
        label is followed by nothing, or a word beside brackets under one label.
    """
    trees: list[Tree] = []
    # Open brackets: (label or None, children, line of the opening bracket).
    stack: list[tuple[list[str | None], list[Tree | str], int]] = []
    for token, line in _tokens(text):
        if token == "(":
            stack.append(([None], [], line))
        elif token == ")":
            if not stack:
                raise FileFormatError(path, line, "')' closes no open bracket")
            label_box, children, opened = stack.pop()
            tree = _close(label_box[0], children, path, opened)
            if stack:
                stack[-1][1].append(tree)
            else:
                trees.append(tree)
        elif not stack:
            raise FileFormatError(path, line, f"{token!r} is outside any bracket")
        elif stack[-1][0][0] is None and not stack[-1][1]:
            stack[-1][0][0] = token
        else:
            stack[-1][1].append(token)
    if stack:
        raise FileFormatError(path, stack[-1][2], "the bracket opened here is never closed")
    return trees


def _close(
    label: str | None, children: list[Tree | str], path: str | os.PathLike[str], line: int
) -> Tree:
    """Return the tree of a closed bracket, or the tree its unlabelled wrapper holds."""
    if label is None:
        if not children:
            raise FileFormatError(path, line, "the bracket () holds nothing")
        if len(children) == 1 and isinstance(children[0], Tree):
            return children[0]
        raise FileFormatError(path, line, "a bracket without a label must hold exactly one tree")
    if not children:
        raise FileFormatError(path, line, f"the bracket ({label} ...) holds nothing")
    words = [child for child in children if isinstance(child, str)]
    if words and len(children) > 1:
        raise FileFormatError(
            path, line, f"({label} ...) mixes the word {words[0]!r} with other children"
        )
    return Tree(label, tuple(children))


def read_treebank(path: str | os.PathLike[str]) -> list[Tree]:
    """Return the trees of a bracketed treebank file (one ``.mrg`` file), in order.

    Raises
    ------
    FileFormatError
        As :func:`parse_trees`, naming the file and the line.
    """
    with open(path, encoding="utf-8") as stream:
        return parse_trees(stream.read(), path)
