"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Multiclass classification (:class:`MulticlassTask`), multivariate performance measures such as F1
over a whole data set (:class:`MultivariateTask`), linear-chain sequence labelling
(:class:`ChainTask`), graph labelling (:class:`GraphTask`, :class:`EdgeFeatureGraphTask`, grid
helpers), ranking by pairwise preferences (:class:`RankingTask`) and text chunking support in
:mod:`tasks.chunking`: a CoNLL-2000 reader, chunking features, BIO constraints and conlleval's
scores. Latent tasks (:class:`LatentMulticlassTask`, :class:`LatentChainTask`) add hidden
sub-classes or sub-states for :class:`structsvm.LatentStructuredSVM`.
"""

from tasks._chain import ChainTask, split_sequences
from tasks._edge_feature_graph import EdgeFeatureGraphTask
from tasks._graph import GraphTask
from tasks._grid import edge_features_from_nodes, grid_direction_features, grid_edges
from tasks._latent_chain import LatentChainTask
from tasks._latent_multiclass import LatentMulticlassTask
from tasks._multiclass import MulticlassTask
from tasks._multivariate import MultivariateTask
from tasks._ranking import RankingTask
from tasks._relaxed import RelaxedLabelling, WeightedLabels
from tasks.chunking import (
    ChunkingFeatures,
    ChunkScores,
    Sentence,
    TagEncoder,
    TypeScores,
    bio_constraints,
    chunk_scores,
    extract_chunks,
    read_conll,
)

__all__ = [
    "ChainTask",
    "ChunkScores",
    "ChunkingFeatures",
    "EdgeFeatureGraphTask",
    "GraphTask",
    "LatentChainTask",
    "LatentMulticlassTask",
    "MulticlassTask",
    "MultivariateTask",
    "RankingTask",
    "RelaxedLabelling",
    "Sentence",
    "TagEncoder",
    "TypeScores",
    "WeightedLabels",
    "bio_constraints",
    "chunk_scores",
    "edge_features_from_nodes",
    "extract_chunks",
    "grid_direction_features",
    "grid_edges",
    "read_conll",
    "split_sequences",
]
