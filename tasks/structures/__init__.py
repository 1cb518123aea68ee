"""Ready-made structures for the structured hinge of scores given from outside.

Each :class:`structsvm.hinge.Structure` here decodes with a task's compiled decoder:
:class:`ChainStructure` (Viterbi over unary and transition scores), :class:`MulticlassStructure`
(one score per class) and :class:`GraphStructure` (unary and pairwise scores on a graph,
decoded by :func:`structsvm.inference.infer`), :class:`DependencyStructure` (arc scores,
decoded by Eisner's or Chu–Liu/Edmonds' algorithm) and :class:`SegmentStructure` (token,
segment-length and transition scores, decoded by semi-Markov Viterbi). A new structure is one
module here: its score arrays, its decoder, its parts and its loss.
"""

from tasks.structures._chain import ChainStructure
from tasks.structures._dependency import DependencyStructure
from tasks.structures._graph import GraphStructure
from tasks.structures._multiclass import MulticlassStructure
from tasks.structures._segments import SegmentStructure

__all__ = [
    "ChainStructure",
    "DependencyStructure",
    "GraphStructure",
    "MulticlassStructure",
    "SegmentStructure",
]
