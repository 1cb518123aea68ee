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

from structsvm._utils.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "structsvm.io._columns": ("read_columns",),
        "structsvm.io._conllu": ("DependencySentence", "read_conllu", "write_conllu"),
        "structsvm.io._errors": ("FileFormatError",),
        "structsvm.io._model_file": ("ModelFileError", "load", "save"),
        "structsvm.io._registry": ("register",),
        "structsvm.io._sequences": ("read_fasta", "read_msf"),
        "structsvm.io._svmhmm": ("TaggedSequences", "read_svmhmm", "write_svmhmm"),
        "structsvm.io._svmlight": ("read_svmlight", "write_svmlight"),
        "structsvm.io._treebank": ("Tree", "parse_trees", "read_treebank"),
        "structsvm.io._trees": (
            "BracketScores",
            "base_label",
            "binarise",
            "bracket_scores",
            "collapse_unaries",
            "labelled_brackets",
            "prepare_tree",
            "strip_empty",
            "strip_function_tags",
            "unbinarise",
        ),
    },
)
