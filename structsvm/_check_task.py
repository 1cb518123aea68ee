"""Check a task against its contract: feature map, loss, exact and deterministic oracles, batches.

A task whose oracle returns a wrong output does not fail loudly: learners simply converge to a
wrong model. :func:`check_task` calls every method of a task on a few examples and a set of
weight probes and reports every broken promise of the contract stated in :class:`Task`.
"""

from __future__ import annotations

import functools
import itertools
import numbers
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse

from structsvm._compiled_oracle import (
    CompiledOracle,
    ScoreTable,
    no_add_features,
    no_labelling_score,
)
from structsvm._contract import TaskContractViolation
from structsvm._task import LatentTask, Task, check_size_joint_feature
from structsvm._utils.validation import (
    Interval,
    check_examples,
    check_positive_float,
    check_positive_int,
    check_value,
    take,
)

_ARGMAX = "argmax"
_LOSS_AUGMENTED = "loss_augmented_argmax"
_SLACK_RESCALED = "slack_rescaled_argmax"
_ORACLES = (_ARGMAX, _LOSS_AUGMENTED)
_COMPILED = "compiled_oracle"
_OBJECTIVES = {
    _ARGMAX: "w·φ(x, y)",
    _LOSS_AUGMENTED: "Δ(y_true, y) + w·φ(x, y)",
    _SLACK_RESCALED: "Δ(y_true, y)·(1 − w·(φ(x, y_true) − φ(x, y)))",
}
PROBE_SCALES = (0.01, 1.0, 100.0)
_FAILED = object()


@dataclass(frozen=True)
class TaskProblem:
    """One broken promise of the task contract.

    Attributes
    ----------
    kind : str
        Which rule is broken, one of: ``"invalid_size_joint_feature"``,
        ``"invalid_joint_feature"`` (not a 1-D finite float vector of length
        ``size_joint_feature``), ``"invalid_loss"`` (negative, infinite or not a number),
        ``"nonzero_self_loss"`` (Δ(y, y) != 0), ``"max_loss_too_small"``,
        ``"not_a_maximiser"`` (an oracle's output is beaten by another output),
        ``"not_in_outputs"`` (an output missing from ``outputs(x)``), ``"nondeterministic"``,
        ``"batch_mismatch"`` (a batch method disagrees with its single-example version),
        ``"compiled_mismatch"`` (a function of the task's compiled oracle disagrees with the
        Python method it stands for), ``"compiled_contract"`` (it returns something other than
        the protocol states: a dtype, a shape, unsorted indices, labels of another length),
        ``"data_rejected"`` (``check_data`` raised, or returned something other than a pair
        ``(X, Y)``) and ``"exception"`` (another task method raised).
    method : str
        The task method at fault (``"compiled_oracle.decode"`` and so on for the functions of
        the compiled oracle).
    index : int or None
        Position of the example in ``X`` and ``Y``, or None when no single example is at fault.
    message : str
        What was expected and what the task did instead.
    """

    kind: str
    method: str
    index: int | None
    message: str

    def __str__(self) -> str:
        where = "" if self.index is None else f", example {self.index}"
        return f"[{self.kind}] {self.method}{where}: {self.message}"


@dataclass
class TaskCheckReport:
    """The outcome of :func:`check_task`.

    Attributes
    ----------
    task : str
        The checked task's ``repr`` (its class name if it has no ``repr`` of its own).
    n_examples : int
        Number of examples the oracles were checked on.
    n_probes : int
        Number of weight vectors each oracle was called with.
    n_enumerated : int
        Number of examples whose outputs were enumerated to check the oracles exactly.
    problems : list of TaskProblem
        Every problem found, at most one of each kind per method and example.
    """

    task: str
    n_examples: int
    n_probes: int
    n_enumerated: int
    problems: list[TaskProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def __str__(self) -> str:
        return self.format()

    def format(self, every_example: bool = False) -> str:
        """Describe the outcome: a summary line, then one line per problem.

        Parameters
        ----------
        every_example : bool, default=False
            List a problem found on several examples once for each of them. By default a
            problem is shown for the first example with it, followed by the other examples'
            indices.

        Returns
        -------
        str
        """
        scope = (
            f"{self.n_examples} examples, {self.n_probes} weight probes, "
            f"outputs enumerated for {self.n_enumerated} examples"
        )
        if self.ok:
            return f"check_task({self.task}): no problems ({scope})"
        count = f"{len(self.problems)} problem" + ("s" if len(self.problems) > 1 else "")
        lines = [f"check_task({self.task}): {count} ({scope})"]
        if every_example:
            lines += [f"  {problem}" for problem in self.problems]
            return "\n".join(lines)
        groups: dict[tuple[str, str], list[TaskProblem]] = {}
        for problem in self.problems:
            groups.setdefault((problem.kind, problem.method), []).append(problem)
        for first, *others in groups.values():
            lines.append(f"  {first}")
            if others:
                indices = ", ".join(str(problem.index) for problem in others)
                lines.append(f"    (also on examples {indices})")
        return "\n".join(lines)


class TaskContractError(TaskContractViolation):
    """Raised by ``check_task(..., raise_on_error=True)``; ``report`` holds every problem."""

    def __init__(self, report: TaskCheckReport) -> None:
        super().__init__(report.format(every_example=True))
        self.report = report


def check_task(
    task: Task,
    X: Sequence[Any],
    Y: Sequence[Any],
    *,
    max_examples: int = 20,
    n_probes: int = 3,
    max_enumerate: int = 10_000,
    tol: float = 1e-6,
    random_state: int | None = 0,
    raise_on_error: bool = False,
) -> TaskCheckReport:
    """Check that a task keeps its contract on some data, and report every problem found.

    The checks, each reported under its own kind (see :class:`TaskProblem`):

    * ``size_joint_feature`` is a positive int, and ``joint_feature(x, y)`` is a finite 1-D
      float vector (or a one-row scipy.sparse matrix) of that length for the true outputs, the
      oracles' outputs and the enumerated outputs;
    * ``loss(y, y) == 0`` for the true outputs; every loss seen is finite and ``>= 0`` and at
      most ``max_loss(y_true)`` (when the task implements ``max_loss``);
    * both oracles are called with ``w = 0`` and with ``n_probes`` random directions at each
      scale of ``PROBE_SCALES``. ``argmax`` must maximise ``w·φ(x, y)`` and
      ``loss_augmented_argmax`` must maximise ``Δ(y_true, y) + w·φ(x, y)``: when ``outputs(x)``
      is implemented and yields at most ``max_enumerate`` outputs, the value of the oracle's
      output must reach the enumerated maximum, and the output must be one of ``outputs(x)``;
      otherwise it must reach the value of every output seen for that example (the true output
      and every oracle's output under every probe);
    * when the task overrides ``slack_rescaled_argmax`` (the optional oracle of slack
      rescaling), it is checked in the same way: it must maximise
      ``Δ(y_true, y)·(1 − w·(φ(x, y_true) − φ(x, y)))``, and ``batch_slack_rescaled_argmax``
      must agree with it;
    * the same call twice gives equal outputs (by ``task.outputs_equal``);
    * ``batch_joint_feature``, ``batch_loss``, ``batch_argmax``, ``batch_loss_augmented_argmax``
      and ``batch_score`` agree with their single-example versions;
    * when the task offers a compiled oracle (:meth:`Task.compiled_oracle` of the checked
      examples is not None), it must answer as the Python methods do, at every probe and on
      every checked example: ``decode`` (with and without the loss) must reach the value of
      ``argmax`` and ``loss_augmented_argmax`` (the same value up to ``tol``; of tied outputs
      it may return another), ``features`` must be ``joint_feature`` and ``loss`` the
      ``loss`` of the true outputs and of every decoded one, the rows of ``batch_scores``
      must be ``scores``, and ``to_output`` must turn an output's labels back into it; the
      optional ``labelling_score`` (where it does not answer NaN) must be ``w·φ`` of every
      decoded output and ``add_features`` (where it answers True) must add ``scale·φ``. Its
      contract is checked on the way: ``scores`` a C-contiguous 2-D float64 array,
      ``decode`` an int64 array as long as the true output's labels, ``features`` distinct
      int64 indices in increasing order within ``size_joint_feature`` with float64 values,
      ``n_examples`` the number of examples;
    * ``check_data(X, Y)`` accepts the data; the oracles are then checked on the data it returns.
      Data it raises on are reported and nothing else is checked on them (the other methods
      need only accept data the task accepts).
    * for a :class:`~structsvm.LatentTask` (``Y`` holds the observed outputs):
      ``latent_argmax(x, y, w)`` must reach the best ``w·φ(x, (y, h))`` over every h of
      ``latent_outputs(x, y)`` (when enumerable, else over the ``initial_latent`` completion),
      and ``batch_latent_argmax`` must agree with it; the other checks then run on the pairs
      ``(y, h)`` completed by ``initial_latent(X, Y, random_state)``.

    An exception raised by a task method is reported (kind ``"exception"``, with its type and
    message) and checking goes on. Of the problems of one kind, method and example only the first
    found is kept (for example the first weight probe that exposes a wrong oracle).

    Parameters
    ----------
    task : Task
        The task to check.
    X, Y : sequences
        Inputs and their true outputs, as a learner would receive them.
    max_examples : int, default=20
        The oracles are checked on the first ``max_examples`` examples.
    n_probes : int, default=3
        Number of random weight directions; each is tried at every scale in ``PROBE_SCALES``.
    max_enumerate : int, default=10_000
        Largest output space enumerated by ``outputs(x)`` for the exact oracle checks.
    tol : float, default=1e-6
        Relative tolerance of every comparison of values (``tol * max(1, |a|, |b|)``).
    random_state : int or None, default=0
        Seed of the random weight probes (a non-negative integer), or None for fresh ones.
    raise_on_error : bool, default=False
        Raise :class:`TaskContractError` listing every problem instead of returning a report
        with problems.

    Returns
    -------
    TaskCheckReport

    Raises
    ------
    TaskContractError
        If ``raise_on_error`` and a problem was found.
    TypeError
        If ``task`` is not a :class:`Task`, or X or Y is not a sequence of examples (data the
        task's ``check_data`` rejects are reported, not raised).

    Examples
    --------
    >>> import numpy as np
    >>> from tasks import MulticlassTask
    >>> X, Y = np.eye(3), np.array([0, 1, 2])
    >>> print(check_task(MulticlassTask(n_classes=3, n_features=3), X, Y))
    ... # doctest: +NORMALIZE_WHITESPACE
    check_task(MulticlassTask(n_classes=3, n_features=3)): no problems
    (3 examples, 10 weight probes, outputs enumerated for 3 examples)
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a structsvm.Task instance, got {type(task).__name__}")
    check_examples(X, "X")
    check_examples(Y, "Y")
    max_examples = check_positive_int(max_examples, "max_examples")
    n_probes = check_positive_int(n_probes, "n_probes", minimum=0)
    max_enumerate = check_positive_int(max_enumerate, "max_enumerate")
    tol = check_positive_float(tol, "tol")
    check_value(
        random_state, "random_state", [Interval(numbers.Integral, 0, None, closed="left"), None]
    )
    checker = _Checker(task, tol, max_enumerate)
    report = checker.run(X, Y, max_examples, n_probes, random_state)
    if raise_on_error and not report.ok:
        raise TaskContractError(report)
    return report


@dataclass
class _Candidate:
    """An output of one example with its validated joint feature and loss."""

    output: Any
    origin: str
    source: str
    phi: np.ndarray
    loss: float

    def value(self, oracle: str, w: np.ndarray, true_phi: np.ndarray | None = None) -> float:
        """The quantity ``oracle`` maximises (see :func:`_values`)."""
        return float(_values([self], oracle, w, true_phi)[0])


@dataclass
class _Probe:
    name: str
    w: np.ndarray


@dataclass
class _ExampleResult:
    """The true output and each oracle's output per probe (None where it failed)."""

    truth: _Candidate | None
    answers: dict[str, list[_Candidate | None]]


class _Problems:
    """Collects problems, keeping the first of each (kind, method, example)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, int | None], TaskProblem] = {}

    def add(self, kind: str, method: str, index: int | None, message: str) -> None:
        self.found.setdefault((kind, method, index), TaskProblem(kind, method, index, message))

    def attempt(
        self,
        method: str,
        index: int | None,
        call_text: str,
        call: Callable[[], Any],
        optional: bool = False,
        kind: str = "exception",
    ) -> Any:
        """Return ``call()``, or ``_FAILED`` after reporting the exception it raised as ``kind``.

        For an ``optional`` method, NotImplementedError means "not provided" and is not reported.
        """
        try:
            return call()
        except Exception as error:  # a task method may raise anything: report it, go on
            if not (optional and isinstance(error, NotImplementedError)):
                self.add(kind, method, index, f"{call_text} raised {_describe(error)}")
            return _FAILED


class _Checker:
    def __init__(self, task: Task, tol: float, max_enumerate: int) -> None:
        self.task = task
        self.tol = tol
        self.max_enumerate = max_enumerate
        self.problems = _Problems()
        self.size: int | None = None
        self.n_enumerated = 0
        overrides_slack_oracle = (
            getattr(type(task), _SLACK_RESCALED, None) is not Task.slack_rescaled_argmax
        )
        self.oracles = _ORACLES + ((_SLACK_RESCALED,) if overrides_slack_oracle else ())

    def run(
        self,
        X: Sequence[Any],
        Y: Sequence[Any],
        max_examples: int,
        n_probes: int,
        seed: int | None,
    ) -> TaskCheckReport:
        self.size = self._check_size()
        checked = self._check_data(X, Y)
        if checked is None:
            # The task rejects the data: its methods would be checked on inputs it refuses.
            return self._report(n_examples=0, n_probes=0)
        X, Y = checked
        indices = np.arange(min(len(X), len(Y), max_examples))
        X, Y = take(X, indices), take(Y, indices)
        probes = self._probes(n_probes, seed) if self.size is not None else []
        if isinstance(self.task, LatentTask):
            Y = self._check_latent(X, Y, probes, seed)
        results = [self._check_example(i, X[i], Y[i], probes) for i in indices]
        if probes:
            self._check_batches(X, Y, probes, results)
            if not isinstance(self.task, LatentTask):
                self._check_compiled_oracle(X, Y, probes, results)
        return self._report(n_examples=len(indices), n_probes=len(probes))

    def _report(self, n_examples: int, n_probes: int) -> TaskCheckReport:
        return TaskCheckReport(
            task=_name(self.task),
            n_examples=n_examples,
            n_probes=n_probes,
            n_enumerated=self.n_enumerated,
            problems=list(self.problems.found.values()),
        )

    # ----------------------------------------------------------------- task-wide checks
    def _check_size(self) -> int | None:
        try:
            return check_size_joint_feature(self.task)
        except TypeError as error:  # missing, or not a positive integer
            self.problems.add(
                "invalid_size_joint_feature",
                "size_joint_feature",
                None,
                f"{error}; the oracles cannot be probed",
            )
        except Exception as error:  # a property of the task's own that raises
            self.problems.add(
                "exception",
                "size_joint_feature",
                None,
                f"reading size_joint_feature raised {_describe(error)}",
            )
        return None

    def _check_data(self, X: Sequence[Any], Y: Sequence[Any]) -> tuple[Any, Any] | None:
        """Return the data as ``check_data`` converts it, or None if it raises.

        A ``check_data`` that returns something other than a pair is at fault, not the data:
        they are returned unchanged, to check the other methods on.
        """
        checked = self.problems.attempt(
            "check_data",
            None,
            "check_data(X, Y)",
            functools.partial(self.task.check_data, X, Y),
            kind="data_rejected",
        )
        if checked is _FAILED:
            return None
        if not (isinstance(checked, tuple) and len(checked) == 2):
            self.problems.add(
                "data_rejected",
                "check_data",
                None,
                f"must return the pair (X, Y), returned {_show(checked)}",
            )
            return X, Y
        return checked

    def _probes(self, n_probes: int, seed: int | None) -> list[_Probe]:
        directions = np.random.default_rng(seed).standard_normal((n_probes, self.size))
        probes = [_Probe("w = 0", np.zeros(self.size))]
        for scale, (k, direction) in itertools.product(PROBE_SCALES, enumerate(directions)):
            probes.append(_Probe(f"random w #{k} of scale {scale:g}", scale * direction))
        return probes

    # ----------------------------------------------------------------- latent tasks
    def _check_latent(
        self, X: Sequence[Any], Y: Sequence[Any], probes: list[_Probe], seed: int | None
    ) -> list[Any]:
        """Check ``latent_argmax``; return the observed outputs completed into pairs (y, h).

        The completions are ``initial_latent``'s; every other check then runs on the pairs.
        """
        task: LatentTask = self.task  # type: ignore[assignment]
        completions = self.problems.attempt(
            "initial_latent",
            None,
            "initial_latent(X, Y, random_state)",
            lambda: list(task.initial_latent(X, Y, seed)),
        )
        if completions is _FAILED:
            return [(y, None) for y in Y]
        for i, (x, y) in enumerate(zip(X, Y, strict=True)):
            hidden = self.problems.attempt(
                "latent_outputs",
                i,
                f"latent_outputs(X[{i}], Y[{i}])",
                lambda x=x, y=y: list(
                    itertools.islice(task.latent_outputs(x, y), self.max_enumerate + 1)
                ),
                optional=True,
            )
            if hidden is _FAILED or len(hidden) > self.max_enumerate:
                hidden = [completions[i]]
            for probe in probes:
                call_text = f"latent_argmax(X[{i}], Y[{i}], w) at {probe.name}"
                found = self.problems.attempt(
                    "latent_argmax", i, call_text, lambda x=x, y=y, w=probe.w: (
                        task.latent_argmax(x, y, w)
                    )
                )
                if found is _FAILED:
                    break
                value = task.score(x, (y, found), probe.w)
                rivals = [task.score(x, (y, h), probe.w) for h in hidden]
                if not self._at_least(value, max(rivals)):
                    best = hidden[int(np.argmax(rivals))]
                    self.problems.add(
                        "not_a_maximiser",
                        "latent_argmax",
                        i,
                        f"{call_text} is {_show(found)} with w·φ = {value:.6g}, but "
                        f"{_show(best)} has {max(rivals):.6g}",
                    )
        for probe in probes:
            batch = self.problems.attempt(
                "batch_latent_argmax",
                None,
                f"batch_latent_argmax(X, Y, w) at {probe.name}",
                lambda w=probe.w: list(task.batch_latent_argmax(X, Y, w)),
            )
            if batch is _FAILED:
                break
            single = [task.latent_argmax(x, y, probe.w) for x, y in zip(X, Y, strict=True)]
            if not _has_length(batch, len(single)) or not all(
                np.array_equal(np.asarray(a), np.asarray(b))
                for a, b in zip(batch, single, strict=True)
            ):
                self.problems.add(
                    "batch_mismatch",
                    "batch_latent_argmax",
                    None,
                    f"batch_latent_argmax(X, Y, w) at {probe.name} disagrees with "
                    "latent_argmax example by example",
                )
                break
        return list(zip(Y, completions, strict=True))

    # ----------------------------------------------------------------- one example
    def _check_example(self, i: int, x: Any, y_true: Any, probes: list[_Probe]) -> _ExampleResult:
        truth = self._candidate(i, x, y_true, y_true, f"the true output Y[{i}]", "outputs")
        self._check_self_loss(i, y_true)
        answers = {
            oracle: [self._ask(oracle, i, x, y_true, probe) for probe in probes]
            for oracle in self.oracles
        }
        seen = [c for c in [truth, *itertools.chain(*answers.values())] if c is not None]
        enumerated = self._enumerate(i, x, y_true) if probes else None
        if enumerated is None:
            self._check_maximisers(
                i, answers, probes, seen, "comparing with the outputs seen", truth
            )
        else:
            self.n_enumerated += 1
            self._check_maximisers(
                i, answers, probes, enumerated, "enumerating outputs(x)", truth
            )
            self._check_membership(i, seen, enumerated)
        self._check_max_loss(i, y_true, seen + (enumerated or []))
        return _ExampleResult(truth, answers)

    def _candidate(
        self, i: int, x: Any, y_true: Any, output: Any, origin: str, source: str
    ) -> _Candidate | None:
        """Validate φ(x, output) and Δ(y_true, output); None if either is broken."""
        phi = self._joint_feature(i, x, output, origin)
        loss = self._loss(i, y_true, output, origin)
        if phi is None or loss is None:
            return None
        return _Candidate(output, origin, source, phi, loss)

    def _joint_feature(self, i: int, x: Any, output: Any, origin: str) -> np.ndarray | None:
        call_text = f"joint_feature(X[{i}], y) for {origin}"
        phi = self.problems.attempt(
            "joint_feature", i, call_text, lambda: self.task.joint_feature(x, output)
        )
        if phi is _FAILED:
            return None
        phi, fault = _as_feature_vector(phi, self.size)
        if fault:
            self.problems.add("invalid_joint_feature", "joint_feature", i, f"{call_text} {fault}")
            return None
        return phi

    def _loss(self, i: int, y_true: Any, output: Any, origin: str) -> float | None:
        call_text = f"loss(Y[{i}], y) for {origin}"
        loss = self.problems.attempt("loss", i, call_text, lambda: self.task.loss(y_true, output))
        if loss is _FAILED:
            return None
        if isinstance(loss, bool) or not isinstance(loss, numbers.Real):
            fault = f"returned {_show(loss)}, expected a float"
        elif not np.isfinite(loss):
            fault = f"returned {loss}, expected a finite value"
        elif loss < 0:
            fault = f"returned {loss}, expected a loss >= 0"
        else:
            return float(loss)
        self.problems.add("invalid_loss", "loss", i, f"{call_text} {fault}")
        return None

    def _check_self_loss(self, i: int, y_true: Any) -> None:
        loss = self._loss(i, y_true, y_true, f"y = Y[{i}]")
        if loss is not None and loss != 0:
            self.problems.add(
                "nonzero_self_loss",
                "loss",
                i,
                f"loss(Y[{i}], Y[{i}]) = {loss:g}: the loss of the true output must be 0",
            )

    def _ask(self, oracle: str, i: int, x: Any, y_true: Any, probe: _Probe) -> _Candidate | None:
        """Call an oracle twice; report a nondeterministic answer; return it validated."""
        method = getattr(self.task, oracle)
        if oracle == _ARGMAX:
            call_text = f"argmax(X[{i}], w) at {probe.name}"
            call = functools.partial(method, x, probe.w)
        else:
            call_text = f"{oracle}(X[{i}], Y[{i}], w) at {probe.name}"
            call = functools.partial(method, x, y_true, probe.w)
        first = self.problems.attempt(oracle, i, call_text, call)
        second = self.problems.attempt(oracle, i, call_text, call)
        if first is _FAILED or second is _FAILED:
            return None
        if not self._equal(i, first, second):
            self.problems.add(
                "nondeterministic",
                oracle,
                i,
                f"{call_text} returned {_show(first)}, then {_show(second)} "
                "when called again: oracles must break ties by a fixed rule",
            )
        return self._candidate(i, x, y_true, first, f"the output of {call_text}", oracle)

    def _equal(self, i: int | None, output: Any, other: Any) -> bool:
        equal = self.problems.attempt(
            "outputs_equal", i, "outputs_equal", lambda: self.task.outputs_equal(output, other)
        )
        return equal is not _FAILED and bool(equal)

    def _enumerate(self, i: int, x: Any, y_true: Any) -> list[_Candidate] | None:
        """Return every output of x as candidates, or None if they cannot all be checked."""
        outputs = self.problems.attempt(
            "outputs",
            i,
            f"outputs(X[{i}])",
            lambda: list(itertools.islice(self.task.outputs(x), self.max_enumerate + 1)),
            optional=True,
        )
        if outputs is _FAILED or not outputs or len(outputs) > self.max_enumerate:
            return None
        candidates = [
            self._candidate(i, x, y_true, output, f"output #{k} of outputs(X[{i}])", "outputs")
            for k, output in enumerate(outputs)
        ]
        return None if any(candidate is None for candidate in candidates) else candidates

    def _check_maximisers(
        self,
        i: int,
        answers: dict[str, list[_Candidate | None]],
        probes: list[_Probe],
        rivals: list[_Candidate],
        how_found: str,
        truth: _Candidate | None,
    ) -> None:
        """Report an oracle output whose value is beaten by one of ``rivals``.

        The slack-rescaled oracle's values need the true output's φ; without it (``truth`` is
        None, a problem reported already) that oracle is not compared.
        """
        for oracle in self.oracles:
            if oracle == _SLACK_RESCALED and truth is None:
                continue
            true_phi = None if truth is None else truth.phi
            objective = _OBJECTIVES[oracle]
            for probe, answer in zip(probes, answers[oracle], strict=True):
                if answer is None:
                    continue
                rival_values = _values(rivals, oracle, probe.w, true_phi)
                best = rivals[int(np.argmax(rival_values))]
                value = answer.value(oracle, probe.w, true_phi)
                best_value = float(rival_values.max())
                if not self._at_least(value, best_value):
                    self.problems.add(
                        "not_a_maximiser",
                        oracle,
                        i,
                        f"{answer.origin} is {_show(answer.output)}, with {objective} = "
                        f"{value:.6g}, but {how_found} finds {_show(best.output)} "
                        f"({best.origin}) with {best_value:.6g}",
                    )

    def _check_membership(
        self, i: int, seen: list[_Candidate], enumerated: list[_Candidate]
    ) -> None:
        distinct: list[_Candidate] = []
        for candidate in seen:
            if not any(self._equal(i, candidate.output, other.output) for other in distinct):
                distinct.append(candidate)
        for candidate in distinct:
            if not any(self._equal(i, candidate.output, other.output) for other in enumerated):
                self.problems.add(
                    "not_in_outputs",
                    candidate.source,
                    i,
                    f"{candidate.origin} is {_show(candidate.output)}, which is not among "
                    f"outputs(X[{i}])",
                )

    def _check_max_loss(self, i: int, y_true: Any, seen: list[_Candidate]) -> None:
        max_loss = self.problems.attempt(
            "max_loss", i, f"max_loss(Y[{i}])", lambda: self.task.max_loss(y_true), optional=True
        )
        if max_loss is _FAILED or not seen:
            return
        if isinstance(max_loss, bool) or not isinstance(max_loss, numbers.Real):
            self.problems.add(
                "invalid_loss",
                "max_loss",
                i,
                f"max_loss(Y[{i}]) returned {_show(max_loss)}, expected a float",
            )
            return
        worst = max(seen, key=lambda candidate: candidate.loss)
        if not self._at_least(max_loss, worst.loss):
            self.problems.add(
                "max_loss_too_small",
                "max_loss",
                i,
                f"max_loss(Y[{i}]) = {_show(max_loss)}, but {worst.origin} has loss {worst.loss:g}",
            )

    def _at_least(self, value: float, bound: float) -> bool:
        """Tell whether ``value >= bound`` up to the relative tolerance."""
        return value >= bound - self.tol * max(1.0, abs(value), abs(bound))

    def _close(self, values: np.ndarray, others: np.ndarray) -> bool:
        """Tell whether two float arrays agree entry by entry up to the relative tolerance."""
        scale = np.maximum(1.0, np.maximum(np.abs(values), np.abs(others)))
        return bool(np.all(np.abs(values - others) <= self.tol * scale))

    # ----------------------------------------------------------------- batch versions
    def _check_batches(
        self,
        X: Sequence[Any],
        Y: Sequence[Any],
        probes: list[_Probe],
        results: list[_ExampleResult],
    ) -> None:
        truths = [result.truth for result in results]
        self._compare_batch(
            "batch_joint_feature(X, Y)",
            functools.partial(self.task.batch_joint_feature, X, Y),
            (len(Y), self.size),
            [None if truth is None else truth.phi for truth in truths],
        )
        others = [_other_output(result) for result in results]
        Y_other = [y if other is None else other.output for y, other in zip(Y, others, strict=True)]
        self._compare_batch(
            "batch_loss(Y, Y_other) for oracle outputs Y_other",
            functools.partial(self.task.batch_loss, Y, Y_other),
            (len(Y),),
            [None if other is None else other.loss for other in others],
        )
        for probe in probes:
            self._compare_batch(
                f"batch_score(X, Y, w) at {probe.name}",
                functools.partial(self.task.batch_score, X, Y, probe.w),
                (len(Y),),
                [None if truth is None else truth.value(_ARGMAX, probe.w) for truth in truths],
            )
        for oracle in self.oracles:
            self._compare_batch_oracle(oracle, X, Y, probes, results)

    def _compare_batch(
        self,
        call_text: str,
        call: Callable[[], Any],
        shape: tuple[int, ...],
        singles: list[Any],
    ) -> None:
        """Compare a numeric batch result with the single-example values (None: unknown)."""
        method = call_text.split("(")[0]
        batch = self.problems.attempt(method, None, call_text, call)
        if batch is _FAILED:
            return
        batch, fault = _as_float_array(batch, shape)
        if fault:
            self.problems.add("batch_mismatch", method, None, f"{call_text} {fault}")
            return
        disagree = [
            i
            for i, single in enumerate(singles)
            if single is not None and not self._close(batch[i], single)
        ]
        self._report_disagreement(method, call_text, disagree, batch, singles)

    def _compare_batch_oracle(
        self,
        oracle: str,
        X: Sequence[Any],
        Y: Sequence[Any],
        probes: list[_Probe],
        results: list[_ExampleResult],
    ) -> None:
        """Compare the batch oracle with the single one at every probe, up to a disagreement."""
        method = f"batch_{oracle}"
        for k, probe in enumerate(probes):
            if oracle == _ARGMAX:
                call_text = f"batch_argmax(X, w) at {probe.name}"
                call = functools.partial(self.task.batch_argmax, X, probe.w)
            else:
                call_text = f"{method}(X, Y, w) at {probe.name}"
                call = functools.partial(getattr(self.task, method), X, Y, probe.w)
            batch = self.problems.attempt(method, None, call_text, call)
            if batch is _FAILED:
                return
            singles = [
                None if result.answers[oracle][k] is None else result.answers[oracle][k].output
                for result in results
            ]
            if not _has_length(batch, len(singles)):
                self.problems.add(
                    "batch_mismatch",
                    method,
                    None,
                    f"{call_text} returned {_show(batch)}, expected {len(singles)} outputs",
                )
                return
            disagree = [
                i
                for i, single in enumerate(singles)
                if single is not None and not self._equal(i, batch[i], single)
            ]
            if disagree:
                self._report_disagreement(method, call_text, disagree, batch, singles)
                return

    def _report_disagreement(
        self,
        method: str,
        call_text: str,
        disagree: list[int],
        batch: Sequence[Any],
        singles: list[Any],
    ) -> None:
        if not disagree:
            return
        first = disagree[0]
        single_method = method.removeprefix("batch_")
        self.problems.add(
            "batch_mismatch",
            method,
            first,
            f"{call_text} disagrees with {single_method} on {len(disagree)} of {len(singles)} "
            f"examples; on example {first} it gives {_show(batch[first])}, "
            f"{single_method} gives {_show(singles[first])}",
        )

    # ----------------------------------------------------------------- the compiled oracle
    def _check_compiled_oracle(
        self,
        X: Sequence[Any],
        Y: Sequence[Any],
        probes: list[_Probe],
        results: list[_ExampleResult],
    ) -> None:
        """Check the task's compiled oracle, if it offers one, against its Python methods."""
        oracle = self.problems.attempt(
            _COMPILED, None, "compiled_oracle(X, Y)", lambda: self.task.compiled_oracle(X, Y)
        )
        if oracle is _FAILED or oracle is None:
            return
        if not isinstance(oracle, CompiledOracle):
            self.problems.add(
                "compiled_contract",
                _COMPILED,
                None,
                f"compiled_oracle(X, Y) returned {_show(oracle)}, expected a CompiledOracle "
                "or None",
            )
            return
        if oracle.n_examples != len(Y):
            self.problems.add(
                "compiled_contract",
                _COMPILED,
                None,
                f"compiled_oracle(X, Y) has n_examples = {_show(oracle.n_examples)} for "
                f"{len(Y)} examples",
            )
            return
        tables = [self._compiled_table(oracle, probe) for probe in probes]
        for i, result in enumerate(results):
            self._check_compiled_example(oracle, i, X[i], Y[i], probes, tables, result)

    def _compiled_table(self, oracle: CompiledOracle, probe: _Probe) -> ScoreTable | None:
        """Return ``batch_scores(data, w)`` if it keeps its contract, else None."""
        if oracle.batch_scores is None:
            return None
        method = f"{_COMPILED}.batch_scores"
        call_text = f"batch_scores(data, w) at {probe.name}"
        table = self.problems.attempt(
            method, None, call_text, lambda: oracle.batch_scores(oracle.data, probe.w)
        )
        if table is _FAILED:
            return None
        scores, offsets = getattr(table, "scores", None), getattr(table, "offsets", None)
        if not (isinstance(scores, np.ndarray) and isinstance(offsets, np.ndarray)):
            fault = f"returned {_show(table)}, expected a ScoreTable(scores, offsets)"
        elif offsets.dtype != np.int64 or offsets.shape != (oracle.n_examples + 1,):
            fault = (
                f"has offsets of dtype {offsets.dtype} and shape {offsets.shape}, expected "
                f"int64 of shape ({oracle.n_examples + 1},)"
            )
        else:
            fault = _score_array_fault(scores)
        if fault:
            self.problems.add("compiled_contract", method, None, f"{call_text} {fault}")
            return None
        return table

    def _check_compiled_example(
        self,
        oracle: CompiledOracle,
        i: int,
        x: Any,
        y_true: Any,
        probes: list[_Probe],
        tables: list[ScoreTable | None],
        result: _ExampleResult,
    ) -> None:
        true_labels = oracle.labels(y_true)
        self._check_round_trip(oracle, i, y_true, true_labels)
        if result.truth is not None:
            self._check_compiled_parts(oracle, i, true_labels, result.truth)
        for k, (probe, table) in enumerate(zip(probes, tables, strict=True)):
            scores = self._compiled_scores(oracle, i, probe, table)
            if scores is None:
                return
            for python_oracle, augmented in ((_ARGMAX, False), (_LOSS_AUGMENTED, True)):
                python_answer = result.answers[python_oracle][k]
                self._check_decode(
                    oracle, i, x, y_true, probe, scores, augmented, len(true_labels), python_answer
                )

    def _check_round_trip(
        self, oracle: CompiledOracle, i: int, y_true: Any, true_labels: np.ndarray
    ) -> None:
        """The true output's labels must give the true output back through ``to_output``."""
        back = self.problems.attempt(
            f"{_COMPILED}.to_output", i, "to_output(labels)", lambda: oracle.output(true_labels)
        )
        if back is not _FAILED and not self._equal(i, back, y_true):
            self.problems.add(
                "compiled_mismatch",
                f"{_COMPILED}.to_output",
                i,
                f"the labels {_show(true_labels)} of Y[{i}] = {_show(y_true)} give back "
                f"{_show(back)}: to_output(labels(y)) must be y",
            )

    def _compiled_scores(
        self, oracle: CompiledOracle, i: int, probe: _Probe, table: ScoreTable | None
    ) -> np.ndarray | None:
        """Return ``scores(data, i, w)`` if it keeps its contract and agrees with the table."""
        method = f"{_COMPILED}.scores"
        call_text = f"scores(data, {i}, w) at {probe.name}"
        scores = self.problems.attempt(
            method, i, call_text, lambda: oracle.scores(oracle.data, i, probe.w)
        )
        if scores is _FAILED:
            return None
        fault = _score_array_fault(scores)
        if fault:
            self.problems.add("compiled_contract", method, i, f"{call_text} {fault}")
            return None
        if table is not None:
            rows = table.scores[table.offsets[i] : table.offsets[i + 1]]
            if rows.shape != scores.shape or not self._close(rows, scores):
                self.problems.add(
                    "compiled_mismatch",
                    f"{_COMPILED}.batch_scores",
                    i,
                    f"the rows of example {i} in batch_scores(data, w) at {probe.name} are "
                    f"{_show(rows)}, but {call_text} gives {_show(scores)}",
                )
        return scores

    def _check_decode(
        self,
        oracle: CompiledOracle,
        i: int,
        x: Any,
        y_true: Any,
        probe: _Probe,
        scores: np.ndarray,
        augmented: bool,
        n_labels: int,
        python_answer: _Candidate | None,
    ) -> None:
        """Decode at ``probe``; its output must reach the Python oracle's value, and no more."""
        method = f"{_COMPILED}.decode"
        call_text = f"decode(data, {i}, w, scores, augmented={augmented}) at {probe.name}"
        labels = self.problems.attempt(
            method,
            i,
            call_text,
            lambda: oracle.decode(oracle.data, i, probe.w, scores.copy(), augmented),
        )
        if labels is _FAILED:
            return
        if not (isinstance(labels, np.ndarray) and labels.dtype == np.int64):
            fault = f"returned {_show(labels)}, expected an int64 array"
        elif labels.shape != (n_labels,):
            fault = (
                f"returned labels of shape {labels.shape}, expected ({n_labels},) as "
                f"labels(Y[{i}]): an example's labels have a fixed length"
            )
        else:
            fault = ""
        if fault:
            self.problems.add("compiled_contract", method, i, f"{call_text} {fault}")
            return
        output = self.problems.attempt(
            f"{_COMPILED}.to_output", i, "to_output(labels)", lambda: oracle.output(labels)
        )
        if output is _FAILED:
            return
        # Labels made by a task's to_labels need not come back from every decoded output (its
        # labels may carry what only decoding knows, as the loss against y_i), but the default
        # labels, np.ravel(y), must.
        if oracle.to_labels is None and not np.array_equal(oracle.labels(output), labels):
            self.problems.add(
                "compiled_mismatch",
                f"{_COMPILED}.to_output",
                i,
                f"the labels {_show(labels)} of {call_text} give the output {_show(output)}, "
                "whose labels differ: labels(to_output(labels)) must be the labels",
            )
            return
        answer = self._candidate(i, x, y_true, output, f"the output of {call_text}", method)
        if answer is None:
            return
        self._check_compiled_parts(oracle, i, labels, answer)
        self._check_labelling_score(oracle, i, probe, scores, labels, answer)
        if python_answer is None:
            return
        python_oracle = _LOSS_AUGMENTED if augmented else _ARGMAX
        value = answer.value(python_oracle, probe.w)
        python_value = python_answer.value(python_oracle, probe.w)
        if not self._close(np.array(value), np.array(python_value)):
            self.problems.add(
                "compiled_mismatch",
                method,
                i,
                f"{call_text} gives {_show(output)} with {_OBJECTIVES[python_oracle]} = "
                f"{value:.6g}, but {python_oracle} gives {_show(python_answer.output)} with "
                f"{python_value:.6g}",
            )

    def _check_labelling_score(
        self,
        oracle: CompiledOracle,
        i: int,
        probe: _Probe,
        scores: np.ndarray,
        labels: np.ndarray,
        candidate: _Candidate,
    ) -> None:
        """The optional ``labelling_score``, if offered, must be ``w·φ`` of the output."""
        if oracle.labelling_score is no_labelling_score:
            return
        method = f"{_COMPILED}.labelling_score"
        call_text = f"labelling_score(data, {i}, w, scores, labels) for {candidate.origin}"
        score = self.problems.attempt(
            method,
            i,
            call_text,
            lambda: oracle.labelling_score(oracle.data, i, probe.w, scores.copy(), labels),
        )
        if score is _FAILED or (isinstance(score, numbers.Real) and np.isnan(score)):
            return
        expected = float(candidate.phi @ probe.w)
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            self.problems.add(
                "compiled_contract", method, i, f"{call_text} returned {_show(score)}, "
                "expected a float (NaN: not offered)",
            )
        elif not self._close(np.array(float(score)), np.array(expected)):
            self.problems.add(
                "compiled_mismatch",
                method,
                i,
                f"{call_text} at {probe.name} is {float(score):.6g}, but w·joint_feature is "
                f"{expected:.6g}",
            )

    def _check_add_features(
        self, oracle: CompiledOracle, i: int, labels: np.ndarray, candidate: _Candidate
    ) -> None:
        """The optional ``add_features``, if offered, must add ``scale·φ`` of the output."""
        if oracle.add_features is no_add_features or self.size is None:
            return
        method = f"{_COMPILED}.add_features"
        call_text = f"add_features(data, {i}, labels, -2.0, out) for {candidate.origin}"
        out = np.zeros(self.size)
        added = self.problems.attempt(
            method, i, call_text, lambda: oracle.add_features(oracle.data, i, labels, -2.0, out)
        )
        if added is _FAILED:
            return
        if not isinstance(added, (bool, np.bool_)):
            fault, kind = f"returned {_show(added)}, expected True or False", "compiled_contract"
        elif not added and np.any(out != 0.0):
            fault, kind = "returned False but wrote into out", "compiled_contract"
        elif added and not self._close(out, -2.0 * candidate.phi):
            wrong = np.flatnonzero(~np.isclose(out, -2.0 * candidate.phi, rtol=0, atol=self.tol))
            fault = f"differs from -2·joint_feature at positions {_show(wrong.tolist())}"
            kind = "compiled_mismatch"
        else:
            return
        self.problems.add(kind, method, i, f"{call_text} {fault}")

    def _check_compiled_parts(
        self, oracle: CompiledOracle, i: int, labels: np.ndarray, candidate: _Candidate
    ) -> None:
        """``features`` and ``loss`` of ``labels`` must be the Python φ and Δ of the output."""
        method = f"{_COMPILED}.features"
        call_text = f"features(data, {i}, labels) for {candidate.origin}"
        sparse = self.problems.attempt(
            method, i, call_text, lambda: oracle.features(oracle.data, i, labels)
        )
        if sparse is not _FAILED:
            phi, fault = _sparse_feature_vector(sparse, self.size)
            if fault:
                self.problems.add("compiled_contract", method, i, f"{call_text} {fault}")
            elif not self._close(phi, candidate.phi):
                wrong = np.flatnonzero(~np.isclose(phi, candidate.phi, rtol=0, atol=self.tol))
                self.problems.add(
                    "compiled_mismatch",
                    method,
                    i,
                    f"{call_text} differs from joint_feature at positions "
                    f"{_show(wrong.tolist())}",
                )
        self._check_add_features(oracle, i, labels, candidate)
        method = f"{_COMPILED}.loss"
        call_text = f"loss(data, {i}, labels) for {candidate.origin}"
        loss = self.problems.attempt(
            method, i, call_text, lambda: oracle.loss(oracle.data, i, labels)
        )
        if loss is _FAILED:
            return
        if isinstance(loss, bool) or not isinstance(loss, numbers.Real):
            self.problems.add(
                "compiled_contract",
                method,
                i,
                f"{call_text} returned {_show(loss)}, expected a float",
            )
        elif not self._close(np.array(float(loss)), np.array(candidate.loss)):
            self.problems.add(
                "compiled_mismatch",
                method,
                i,
                f"{call_text} is {float(loss):.6g}, but loss gives {candidate.loss:.6g}",
            )


def _other_output(result: _ExampleResult) -> _Candidate | None:
    """An oracle's output for the example (the true one if none), for checking batch losses."""
    answers = [*result.answers[_LOSS_AUGMENTED], *result.answers[_ARGMAX]]
    return next((answer for answer in answers if answer is not None), result.truth)


def _values(
    candidates: list[_Candidate],
    oracle: str,
    w: np.ndarray,
    true_phi: np.ndarray | None = None,
) -> np.ndarray:
    """The quantity ``oracle`` maximises for many candidates, with one matrix product.

    ``w·φ``; plus Δ for the loss-augmented oracle; ``Δ·(1 − w·(φ_true − φ))`` for the
    slack-rescaled one, which needs the true output's joint feature ``true_phi``.
    """
    values = np.array([candidate.phi for candidate in candidates]) @ w
    losses = np.array([candidate.loss for candidate in candidates])
    if oracle == _LOSS_AUGMENTED:
        values += losses
    elif oracle == _SLACK_RESCALED:
        values = losses * (1.0 - (true_phi @ w - values))
    return values


def _score_array_fault(scores: Any) -> str:
    """What is wrong with a compiled oracle's part scores ("" if nothing)."""
    if not isinstance(scores, np.ndarray):
        return f"returned {_show(scores)}, expected a 2-D float64 array"
    if scores.dtype != np.float64 or scores.ndim != 2:
        return (
            f"returned an array of dtype {scores.dtype} and shape {scores.shape}, expected "
            "2-D float64"
        )
    if not scores.flags.c_contiguous:
        return "returned an array that is not C-contiguous"
    return ""


def _sparse_feature_vector(sparse: Any, size: int | None) -> tuple[np.ndarray | None, str]:
    """Return a compiled ``(indices, values)`` as a dense φ and "", or None and what is wrong."""
    if not (isinstance(sparse, tuple) and len(sparse) == 2):
        return None, f"returned {_show(sparse)}, expected a pair (indices, values)"
    indices, values = sparse
    if not (isinstance(indices, np.ndarray) and indices.dtype == np.int64 and indices.ndim == 1):
        return None, f"returned indices {_show(indices)}, expected a 1-D int64 array"
    if not (isinstance(values, np.ndarray) and values.dtype == np.float64):
        return None, f"returned values {_show(values)}, expected a float64 array"
    if values.shape != indices.shape:
        return None, f"returned {len(indices)} indices and values of shape {values.shape}"
    if np.any(np.diff(indices) <= 0):
        return None, f"returned indices {_show(indices)}, expected distinct and increasing"
    if size is not None and len(indices) and (indices[0] < 0 or indices[-1] >= size):
        return None, f"returned indices {_show(indices)} outside [0, size_joint_feature = {size})"
    phi = np.zeros(size if size is not None else (indices[-1] + 1 if len(indices) else 0))
    phi[indices] = values
    return phi, ""


def _as_feature_vector(phi: Any, size: int | None) -> tuple[np.ndarray | None, str]:
    """Return φ as a dense 1-D float array and "", or None and what is wrong with it."""
    if scipy.sparse.issparse(phi):
        if phi.ndim == 2 and phi.shape[0] != 1:
            return None, f"returned a sparse matrix of shape {phi.shape}, expected one row"
        phi = phi.toarray().ravel()
    array = np.asarray(phi)
    if array.dtype == object:
        return None, f"returned {_show(phi)}, expected a 1-D float array"
    if not np.issubdtype(array.dtype, np.floating):
        return None, f"returned an array of dtype {array.dtype}, expected floats"
    if array.ndim != 1:
        return None, f"returned an array of shape {array.shape}, expected a 1-D vector"
    if size is not None and len(array) != size:
        return None, f"has length {len(array)}, expected size_joint_feature = {size}"
    if not np.all(np.isfinite(array)):
        bad = np.flatnonzero(~np.isfinite(array))
        return None, f"has NaN or infinite entries at positions {_show(bad.tolist())}"
    return array, ""


def _as_float_array(value: Any, shape: tuple[int, ...]) -> tuple[np.ndarray | None, str]:
    """Return a batch result as a dense float array and "", or None and what is wrong."""
    if scipy.sparse.issparse(value):
        value = value.toarray()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None, f"returned {_show(value)}, expected a float array of shape {shape}"
    if array.ndim == 0:
        return None, f"returned {_show(value)}, expected an array of shape {shape}"
    if array.shape != shape:
        return None, f"returned an array of shape {array.shape}, expected {shape}"
    return array, ""


def _has_length(outputs: Any, length: int) -> bool:
    try:
        return len(outputs) == length
    except TypeError:
        return False


def _name(task: Task) -> str:
    """The task's own repr if its class defines one, else its class name."""
    return repr(task) if type(task).__repr__ is not object.__repr__ else type(task).__name__


def _show(value: Any) -> str:
    """A short readable form of an output or a value for messages."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, threshold=12, edgeitems=3)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    return reprlib.repr(value)


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
