"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Also :class:`MulticlassSVM`, the Crammer–Singer multiclass SVM on the multiclass task as a
plain scikit-learn classifier (X of shape (n, d), any class labels), and text chunking
support in :mod:`tasks.chunking`: a CoNLL-2000 reader, chunking features and conlleval's scores.
"""

from tasks.chunking import (
    ChunkingFeatures,
    ChunkScores,
    Sentence,
    TagEncoder,
    TypeScores,
    chunk_scores,
    extract_chunks,
    read_conll,
)
from tasks.multiclass import MulticlassTask
from tasks.multiclass_svm import MulticlassSVM
from tasks.sequence import ChainTask, split_sequences

__all__ = [
    "ChainTask",
    "ChunkScores",
    "ChunkingFeatures",
    "MulticlassSVM",
    "MulticlassTask",
    "Sentence",
    "TagEncoder",
    "TypeScores",
    "chunk_scores",
    "extract_chunks",
    "read_conll",
    "split_sequences",
]
