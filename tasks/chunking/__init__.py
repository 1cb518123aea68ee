"""Text chunking: CoNLL-2000 data, chunking features and chunk-level evaluation.

Chunking as sequence labelling with BIO tags (CoNLL-2000, Tjong Kim Sang & Buchholz, 2000):
:func:`read_conll` reads the column format, :class:`ChunkingFeatures` builds the feature
templates of Sha & Pereira (2003) as sparse matrices (the same strings feed python-crfsuite),
:class:`TagEncoder` maps tags to labels, :func:`bio_constraints` gives :class:`tasks.ChainTask`
the transitions BIO forbids, and :func:`chunk_scores` scores chunks as ``conlleval`` does.

References
----------
E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task: chunking.
In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.

F. Sha and F. Pereira. Shallow parsing with conditional random fields. In *Proceedings of
HLT-NAACL 2003*, pages 134–141, 2003.
"""

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tasks.chunking._bio": ("bio_constraints",),
        "tasks.chunking._conll": ("Sentence", "read_conll"),
        "tasks.chunking._conlleval": (
            "ChunkScores",
            "TypeScores",
            "chunk_scores",
            "extract_chunks",
        ),
        "tasks.chunking._features": ("ChunkingFeatures",),
        "tasks.chunking._tags": ("TagEncoder",),
    },
)
