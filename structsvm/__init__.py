"""structsvm: structured prediction with max-margin methods.

A task (:class:`Task`) states the problem: a joint feature map, a loss and two argmax oracles.
Learners find the weights: :class:`StructuredPerceptron` and :class:`StructuredSVM`.
"""

from structsvm.bounds import margin, mistake_bound, radius
from structsvm.perceptron import StructuredPerceptron
from structsvm.ssvm import StructuredSVM
from structsvm.task import Task

__all__ = ["StructuredPerceptron", "StructuredSVM", "Task", "margin", "mistake_bound", "radius"]
__version__ = "0.1.0"
