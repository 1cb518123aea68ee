"""Ready-made structured prediction tasks built on :class:`structsvm.Task`."""

from tasks.multiclass import MulticlassTask
from tasks.sequence import ChainTask, split_sequences

__all__ = ["ChainTask", "MulticlassTask", "split_sequences"]
