"""Reading and writing the data files of SVM^light, SVM^multiclass, SVM^rank and SVM^hmm.

:func:`read_svmlight` and :func:`write_svmlight` handle one example per line (class labels,
grades with query ids); :func:`read_svmhmm` and :func:`write_svmhmm` handle SVM^hmm's one token
per line, the lines of a sequence sharing a query id, as the sequences of
:class:`tasks.ChainTask`; :func:`read_fasta` and :func:`read_msf` read biological sequences and
alignments (FASTA, GCG's MSF), which :class:`tasks.AlignmentTask` aligns; :func:`read_treebank`
reads Penn Treebank bracketed trees (:class:`Tree`), which :func:`prepare_tree`,
:func:`binarise` and :func:`unbinarise` make ready for :class:`tasks.WeightedCFGTask` and
:func:`bracket_scores` scores by their labelled brackets; :func:`read_conllu`
and :func:`write_conllu` handle the dependency treebanks of Universal Dependencies (CoNLL-U),
which :class:`tasks.DependencyTask` parses; :func:`read_columns` reads CoNLL-style column files
(one token a line, blank lines between sentences). A malformed file
raises :class:`FileFormatError`, a ValueError whose message names the file and the line.

:func:`save` and :func:`load` write and read model files: an estimator with its task in a zip
archive of a JSON header and ``.npy`` arrays, which holds no code and loads without running
any; a class of your own is named to :func:`load` or to :func:`register`. A file that is not
one, or a damaged one, raises :class:`ModelFileError`.
"""

from structsvm.io._columns import read_columns
from structsvm.io._conllu import DependencySentence, read_conllu, write_conllu
from structsvm.io._errors import FileFormatError
from structsvm.io._model_file import ModelFileError, load, save
from structsvm.io._registry import register
from structsvm.io._sequences import read_fasta, read_msf
from structsvm.io._svmhmm import TaggedSequences, read_svmhmm, write_svmhmm
from structsvm.io._svmlight import read_svmlight, write_svmlight
from structsvm.io._treebank import Tree, parse_trees, read_treebank
from structsvm.io._trees import (
    BracketScores,
    base_label,
    binarise,
    bracket_scores,
    collapse_unaries,
    labelled_brackets,
    prepare_tree,
    strip_empty,
    strip_function_tags,
    unbinarise,
)

__all__ = [
    "BracketScores",
    "DependencySentence",
    "FileFormatError",
    "ModelFileError",
    "TaggedSequences",
    "Tree",
    "base_label",
    "binarise",
    "bracket_scores",
    "collapse_unaries",
    "labelled_brackets",
    "load",
    "parse_trees",
    "prepare_tree",
    "read_columns",
    "read_conllu",
    "read_fasta",
    "read_msf",
    "read_svmhmm",
    "read_svmlight",
    "read_treebank",
    "register",
    "save",
    "strip_empty",
    "strip_function_tags",
    "unbinarise",
    "write_conllu",
    "write_svmhmm",
    "write_svmlight",
]
