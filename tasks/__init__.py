"""Ready-made structured prediction tasks built on :class:`structsvm.Task`.

Also :class:`MulticlassSVM`, the Crammer–Singer multiclass SVM on the multiclass task as a
plain scikit-learn classifier (X of shape (n, d), any class labels).
"""

from tasks.multiclass import MulticlassTask
from tasks.multiclass_svm import MulticlassSVM
from tasks.sequence import ChainTask, split_sequences

__all__ = ["ChainTask", "MulticlassSVM", "MulticlassTask", "split_sequences"]
