"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Classification (multiclass, multi-label, latent, into a taxonomy), multivariate performance
measures, sequence labelling and segmentation, graph labelling, ranking, sequence alignment,
constituency and dependency parsing, and text chunking support in :mod:`tasks.chunking`.
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tasks._alignment": ("PROTEIN_ALPHABET", "AlignmentTask", "SequencePair"),
        "tasks._blosum62": ("blosum62",),
        "tasks._cfg": ("GrammarInput", "WeightedCFGTask", "word_signature"),
        "tasks._chain": ("ChainTask", "split_sequences"),
        "tasks._chow_liu": ("chow_liu_tree", "label_mutual_information"),
        "tasks._dependency": ("DependencyTask", "ReferenceTree"),
        "tasks._dependency_features": ("ArcFeatures", "ParseInput"),
        "tasks._dependency_labeller": ("ArcLabeller",),
        "tasks._dependency_scores": ("AttachmentScores", "attachment_scores"),
        "tasks._edge_feature_graph": ("EdgeFeatureGraphTask",),
        "tasks._graph": ("GraphTask",),
        "tasks._grid": ("edge_features_from_nodes", "grid_direction_features", "grid_edges"),
        "tasks._latent_chain": ("LatentChainTask",),
        "tasks._latent_multiclass": ("LatentMulticlassTask",),
        "tasks._multiclass": ("MulticlassTask",),
        "tasks._multilabel": ("MultiLabelTask",),
        "tasks._multivariate": ("MultivariateTask",),
        "tasks._ranking": ("RankingTask",),
        "tasks._relaxed": ("RelaxedLabelling", "WeightedLabels"),
        "tasks._semi_markov": ("SemiMarkovTask",),
        "tasks._sibling_dependency": ("SiblingDependencyTask",),
        "tasks._taxonomy": ("Taxonomy", "TaxonomyTask", "taxonomy_from_paths"),
        "tasks.chunking": (
            "ChunkingFeatures",
            "ChunkScores",
            "Sentence",
            "TagEncoder",
            "TypeScores",
            "bio_constraints",
            "chunk_scores",
            "extract_chunks",
            "read_conll",
        ),
    },
)
