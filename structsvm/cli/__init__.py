"""The ``structsvm`` command: SVM^struct's learn and classify tools on their file formats.

``structsvm learn --task multiclass|hmm|rank [options] TRAIN MODEL`` trains a
:class:`~structsvm.StructuredSVM` on an SVM^multiclass, SVM^hmm or SVM^rank file with
SVM^struct's option names and C convention; ``structsvm classify TEST MODEL PREDICTIONS`` writes
the predictions as those tools do and prints their evaluation. Installed as the console script
``structsvm``; also ``python -m structsvm``.

References
----------
T. Joachims, T. Finley and C.-N. Yu. Cutting-plane training of structural SVMs. Machine
Learning 77(1), 2009 (SVM^struct and its instances SVM^multiclass, SVM^hmm).
T. Joachims. Training linear SVMs in linear time. KDD 2006 (SVM^rank).
"""

from structsvm.cli._main import main

__all__ = ["main"]
