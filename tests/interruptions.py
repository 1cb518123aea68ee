"""A task whose oracle pass is interrupted on cue, for the tests of stopped and resumed fits."""

from tasks import MulticlassTask


class InterruptingTask(MulticlassTask):
    """Raises ``error`` on the ``at``-th oracle pass over the data (None: never), then works.

    Every solver calls ``batch_loss`` once per iteration, on the evaluation's outputs. The
    override keeps 1-slack on the generic pass (not the compiled summed pass of
    MulticlassTask), so an uninterrupted fit to compare with takes ``at=None``: the two passes
    agree only up to rounding, which a fit to a gap of 1e-6 can amplify.
    """

    def __init__(self, *args, at, error=KeyboardInterrupt, **kwargs):
        super().__init__(*args, **kwargs)
        self.at = at
        self.error = error
        self.calls = 0

    def batch_loss(self, Y_true, Y):
        self.calls += 1
        if self.calls == self.at:
            raise self.error("stopped")
        return super().batch_loss(Y_true, Y)


def interrupting(task, at, error=KeyboardInterrupt):
    return InterruptingTask(3, 3, loss_matrix=task.loss_matrix, at=at, error=error)
