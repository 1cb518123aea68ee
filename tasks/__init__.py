"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Classification (multiclass, multi-label, latent, into a taxonomy), multivariate performance
measures, sequence labelling and segmentation, graph labelling, ranking, sequence alignment,
constituency and dependency parsing, and text chunking support in :mod:`tasks.chunking`.
"""

from tasks._alignment import PROTEIN_ALPHABET, AlignmentTask, SequencePair
from tasks._blosum62 import blosum62
from tasks._cfg import GrammarInput, WeightedCFGTask, word_signature
from tasks._chain import ChainTask, split_sequences
from tasks._chow_liu import chow_liu_tree, label_mutual_information
from tasks._dependency import DependencyTask, ReferenceTree
from tasks._dependency_features import ArcFeatures, ParseInput
from tasks._dependency_labeller import ArcLabeller
from tasks._dependency_scores import AttachmentScores, attachment_scores
from tasks._edge_feature_graph import EdgeFeatureGraphTask
from tasks._graph import GraphTask
from tasks._grid import edge_features_from_nodes, grid_direction_features, grid_edges
from tasks._latent_chain import LatentChainTask
from tasks._latent_multiclass import LatentMulticlassTask
from tasks._multiclass import MulticlassTask
from tasks._multilabel import MultiLabelTask
from tasks._multivariate import MultivariateTask
from tasks._ranking import RankingTask
from tasks._relaxed import RelaxedLabelling, WeightedLabels
from tasks._semi_markov import SemiMarkovTask
from tasks._sibling_dependency import SiblingDependencyTask
from tasks._taxonomy import Taxonomy, TaxonomyTask, taxonomy_from_paths
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
    "PROTEIN_ALPHABET", "AlignmentTask", "ArcFeatures", "ArcLabeller", "AttachmentScores",
    "ChainTask", "ChunkScores", "ChunkingFeatures", "DependencyTask", "EdgeFeatureGraphTask",
    "GrammarInput", "GraphTask", "LatentChainTask", "LatentMulticlassTask", "MultiLabelTask",
    "MulticlassTask", "MultivariateTask", "ParseInput", "RankingTask", "ReferenceTree",
    "RelaxedLabelling", "SemiMarkovTask", "Sentence", "SequencePair", "SiblingDependencyTask",
    "TagEncoder", "Taxonomy", "TaxonomyTask", "TypeScores", "WeightedCFGTask", "WeightedLabels",
    "attachment_scores", "bio_constraints", "blosum62", "chow_liu_tree", "chunk_scores",
    "edge_features_from_nodes", "extract_chunks", "grid_direction_features", "grid_edges",
    "label_mutual_information", "read_conll", "split_sequences", "taxonomy_from_paths",
    "word_signature",
]
