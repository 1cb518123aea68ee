"""Ready-made structured prediction tasks built on :class:`structsvm.Task`."""

from tasks.multiclass import MulticlassTask

__all__ = ["MulticlassTask"]
