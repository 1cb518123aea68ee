"""Text chunking: CoNLL-2000 data, chunking features and chunk-level evaluation.

Text chunking divides a sentence into non-overlapping, non-recursive phrases (noun phrases,
verb phrases, ...). The CoNLL-2000 shared task (Tjong Kim Sang & Buchholz, 2000) poses it as
sequence labelling: every token gets a BIO tag, ``B-X`` for the first token of a chunk of type
X, ``I-X`` for the following tokens of that chunk and ``O`` outside any chunk. This package
gives the pieces around a linear-chain model such as :class:`tasks.ChainTask`:

* :func:`read_conll` reads the column format (``word POS chunk-tag``, one token a line, a blank
  line between sentences) into :class:`Sentence` objects;
* :class:`ChunkingFeatures` turns sentences into sparse binary feature matrices with the
  feature templates of Sha & Pereira (2003), as in CRFsuite's chunking example; the same
  feature strings, from :meth:`ChunkingFeatures.token_features`, feed python-crfsuite, so a
  CRF and a structural SVM can be compared on exactly the same features;
* :class:`TagEncoder` maps tag strings to the integer labels a :class:`~tasks.ChainTask` uses,
  and :func:`bio_constraints` gives the task the transitions that BIO tags forbid
  (``O → I-NP``);
* :func:`chunk_scores` computes chunk precision, recall and F1 as the shared task's
  ``conlleval`` script does (:class:`ChunkScores`, with :class:`TypeScores` per chunk type),
  and :func:`extract_chunks` lists the chunks of one sentence.

References
----------
E. F. Tjong Kim Sang and S. Buchholz. Introduction to the CoNLL-2000 shared task: chunking.
In *Proceedings of CoNLL-2000 and LLL-2000*, pages 127–132, 2000.

F. Sha and F. Pereira. Shallow parsing with conditional random fields. In *Proceedings of
HLT-NAACL 2003*, pages 134–141, 2003.
"""

from tasks.chunking._bio import bio_constraints
from tasks.chunking._conll import Sentence, read_conll
from tasks.chunking._conlleval import ChunkScores, TypeScores, chunk_scores, extract_chunks
from tasks.chunking._features import ChunkingFeatures
from tasks.chunking._tags import TagEncoder

__all__ = [
    "ChunkScores",
    "ChunkingFeatures",
    "Sentence",
    "TagEncoder",
    "TypeScores",
    "bio_constraints",
    "chunk_scores",
    "extract_chunks",
    "read_conll",
]
