"""``structsvm learn`` and ``structsvm classify``: the SVM^struct tools' workflow on files."""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from collections.abc import Sequence

from structsvm.cli._model import CommandLineError, SavedModel
from structsvm.cli._options import (
    C_CONVENTION_HELP,
    OPTIONS_HELP,
    default_solver,
    loss_options,
    solver_for,
    structured_C,
)
from structsvm.cli._problems import PROBLEMS
from structsvm.learners import StructuredSVM

DESCRIPTION = """\
Train and apply structural SVMs on the data files of SVM^multiclass, SVM^hmm and SVM^rank,
and on CoNLL-U treebanks (dependency parsing), with SVM^struct's option names.

  structsvm learn --task multiclass|hmm|rank|parse [options] TRAIN MODEL
  structsvm classify TEST MODEL PREDICTIONS

Run 'structsvm learn --help' for the options and their mapping to StructuredSVM.
"""


def positive_float(text: str) -> float:
    """Parse a number > 0 (for argparse)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """Parse an integer >= 1 (for argparse)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``structsvm`` and its two subcommands."""
    parser = argparse.ArgumentParser(
        prog="structsvm",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    learn = commands.add_parser(
        "learn",
        help="train a model on a data file",
        description="Train a structural SVM on TRAIN and write it to MODEL (a model file).",
        epilog=C_CONVENTION_HELP + "\n" + OPTIONS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    learn.add_argument(
        "--task",
        required=True,
        choices=sorted(PROBLEMS),
        help="multiclass: SVM^multiclass files; hmm: SVM^hmm files (sequence tagging); "
        "rank: SVM^rank files (query ids); parse: CoNLL-U files (dependency trees)",
    )
    strength = learn.add_mutually_exclusive_group()
    strength.add_argument(
        "-c",
        type=positive_float,
        default=None,
        metavar="c",
        help="SVM^struct's C: StructuredSVM's C = c / n (default 0.01, SVM^struct's)",
    )
    strength.add_argument(
        "--C",
        dest="C",
        type=positive_float,
        default=None,
        metavar="C",
        help="StructuredSVM's C itself, on the task's own loss (instead of -c)",
    )
    learn.add_argument(
        "-e",
        dest="tol",
        type=positive_float,
        default=1e-3,
        metavar="tol",
        help="stop at a relative duality gap <= tol (default 0.001); see below",
    )
    learn.add_argument(
        "-w",
        dest="solver",
        type=solver_for,
        default=None,
        metavar="{0..4,n-slack,1-slack,bcfw}",
        help="solver: 0, 1 n-slack; 2, 3, 4 1-slack; or a name (default 1-slack, as -w 4; "
        "n-slack with -p 2)",
    )
    learn.add_argument(
        "-o",
        dest="rescaling",
        type=int,
        choices=[1, 2],
        default=2,
        help="rescaling: 2 margin (default), 1 slack",
    )
    learn.add_argument(
        "-p",
        dest="slack_norm",
        type=int,
        choices=[1, 2],
        default=1,
        help="slacks: 1 their sum (default), 2 the sum of their squares",
    )
    learn.add_argument(
        "--t",
        dest="transitions",
        type=int,
        choices=[0, 1, 2],
        default=None,
        help="hmm: order of the transitions, 0 none, 1 pairs (default), 2 pairs and triples",
    )
    learn.add_argument(
        "--decoder",
        choices=["eisner", "chu-liu-edmonds"],
        default=None,
        help="parse: projective trees (eisner, default) or all trees (chu-liu-edmonds)",
    )
    learn.add_argument(
        "--max-iter",
        type=positive_int,
        default=None,
        help="most solver iterations (default: the solver's)",
    )
    learn.add_argument(
        "--seed", type=int, default=0, help="seed of the bcfw solver's order (default 0)"
    )
    _add_verbosity(learn)
    learn.add_argument("train", metavar="TRAIN", help="training data file")
    learn.add_argument("model", metavar="MODEL", help="model file to write")

    classify = commands.add_parser(
        "classify",
        help="predict a data file with a model",
        description=(
            "Predict TEST with MODEL, write PREDICTIONS and print the evaluation against the "
            "labels of TEST. multiclass: per example, the predicted label then the score of "
            "every class; hmm: one tag per token line; rank: one score per line; parse: the "
            "CoNLL-U file with the predicted heads and relations. Reading MODEL runs no code "
            "from it."
        ),
    )
    _add_verbosity(classify)
    classify.add_argument("test", metavar="TEST", help="data file to predict")
    classify.add_argument("model", metavar="MODEL", help="model file of 'structsvm learn'")
    classify.add_argument("predictions", metavar="PREDICTIONS", help="predictions file to write")
    return parser


def _add_verbosity(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v",
        dest="verbosity",
        type=int,
        choices=[0, 1, 2, 3],
        default=1,
        help="0 quiet, 1 summary (default; with a progress bar on a terminal), "
        "2 and 3 also a log line per iteration",
    )


def learn(args: argparse.Namespace) -> None:
    """Train on ``args.train`` and write the model to ``args.model``."""
    problem = PROBLEMS[args.task]
    if args.transitions is not None and args.task != "hmm":
        raise CommandLineError("--t (transition order) applies to --task hmm only")
    if args.decoder is not None and args.task != "parse":
        raise CommandLineError("--decoder applies to --task parse only")
    solver = default_solver(args.slack_norm) if args.solver is None else args.solver
    options = {
        "c": 0.01 if args.C is None and args.c is None else args.c,
        "C": args.C,
        "transitions": 1 if args.transitions is None else args.transitions,
        "decoder": "eisner" if args.decoder is None else args.decoder,
        "tol": args.tol,
        "solver": solver,
        "rescaling": args.rescaling,
        "slack_norm": args.slack_norm,
        "max_iter": args.max_iter,
        "seed": args.seed,
    }
    svm_options = loss_options(args.rescaling, args.slack_norm)
    training = problem.read_training(args.train)
    C = structured_C(options["c"], options["C"], training.n_examples)
    svm = StructuredSVM(
        problem.task(training, options),
        C=C,
        solver=solver,
        tol=args.tol,
        max_iter=args.max_iter,
        random_state=args.seed,
        progress=args.verbosity >= 1 and sys.stderr.isatty(),
        verbose=int(args.verbosity >= 2),
        **svm_options,
    )
    say = print if args.verbosity >= 1 else _silent
    convention = f"--C {C:g}" if options["C"] is not None else f"-c {options['c']:g}: C = c / n"
    say(f"{args.train}: {training.description}")
    say(f"Training {args.task}: {solver}, C = {C:.6g} ({convention}), tol = {args.tol:g}")
    start = time.perf_counter()
    svm.fit(training.X, training.Y)
    elapsed = time.perf_counter() - start
    say(
        f"{'Converged' if svm.converged_ else 'Stopped'} after {svm.n_iter_} iterations "
        f"({elapsed:.2f} s): primal objective {svm.primal_objective_:.6g}, relative duality "
        f"gap {svm.history_[-1]['relative_gap']:.2e}"
    )
    SavedModel(
        kind=args.task,
        svm=svm,
        labels=training.labels,
        n_features=training.n_features,
        options=options,
        labeller=problem.labeller(training),
    ).save(args.model)
    say(f"Model written to {args.model}")


def classify(args: argparse.Namespace) -> None:
    """Predict ``args.test`` with ``args.model``, write the predictions, print the evaluation."""
    model = SavedModel.load(args.model)
    start = time.perf_counter()
    report = PROBLEMS[model.kind].classify(model, args.test, args.predictions)
    if args.verbosity >= 1:
        print(
            f"Classified {args.test} with a {model.kind} model in "
            f"{time.perf_counter() - start:.2f} s; predictions written to {args.predictions}"
        )
        print("\n".join(report))


def _show_warning(
    message: Warning | str, category: type[Warning], *args: object, **kwargs: object
) -> None:
    """Print a warning (such as a fit that ran out of iterations) as one line on stderr."""
    print(f"structsvm: {category.__name__}: {message}", file=sys.stderr)


def _silent(*args: object) -> None:
    """Print nothing (``-v 0``)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``structsvm`` with the arguments ``argv`` (default: the command line's).

    Returns
    -------
    int
        The exit status: 0 on success, 1 when the data, the model or an option are refused,
        or the task lacks an oracle the options need (the reason printed to stderr); 2 for a
        malformed command line (by argparse); 130 when interrupted.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbosity >= 2:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = _show_warning
            (learn if args.command == "learn" else classify)(args)
    except (CommandLineError, ValueError, OSError, NotImplementedError) as error:
        # NotImplementedError: a task without an oracle the options need (e.g. slack rescaling).
        print(f"structsvm {args.command}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"structsvm {args.command}: interrupted", file=sys.stderr)
        return 130
    return 0
