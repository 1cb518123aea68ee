"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Multiclass classification (:class:`MulticlassTask`), multivariate performance measures such as F1
over a whole data set (:class:`MultivariateTask`), linear-chain sequence labelling
(:class:`ChainTask`), ranking by pairwise preferences (:class:`RankingTask`) and text chunking
support in :mod:`tasks.chunking`: a CoNLL-2000 reader, chunking features and conlleval's scores.
"""

from tasks._chain import ChainTask, split_sequences
from tasks._multiclass import MulticlassTask
from tasks._multivariate import MultivariateTask
from tasks._ranking import RankingTask
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

__all__ = [
    "ChainTask",
    "ChunkScores",
    "ChunkingFeatures",
    "MulticlassTask",
    "MultivariateTask",
    "RankingTask",
    "Sentence",
    "TagEncoder",
    "TypeScores",
    "chunk_scores",
    "extract_chunks",
    "read_conll",
    "split_sequences",
]
