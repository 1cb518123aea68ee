"""The four problems of the command line: what each reads, trains, predicts and reports.

``multiclass`` reads SVM^multiclass files and writes, per example, the predicted label and the
score of every class; ``hmm`` reads SVM^hmm files and writes one tag per token line; ``rank``
reads SVM^rank files and writes one score per line; ``parse`` reads CoNLL-U treebanks and
writes them back with the predicted heads and relations. Each also prints the evaluation of the
predictions against the labels of the test file, as the SVM^struct tools do.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from structsvm._task import Task
from structsvm.cli._model import CommandLineError, SavedModel
from structsvm.cli._options import chain_options, multiclass_loss_scale
from structsvm.io import read_conllu, read_svmhmm, read_svmlight, write_conllu
from structsvm.io._lines import format_target
from structsvm.learners import mean_ndcg, pairwise_accuracy
from structsvm.learners._ranking_metrics import query_rows

Path = str | os.PathLike[str]


@dataclass
class TrainingSet:
    """Training data as the task takes them, with the label mapping to keep in the model."""

    X: Any
    Y: Any
    labels: np.ndarray | None
    n_features: int
    n_examples: int
    description: str
    relations: list[list[str]] | None = None


class Problem(ABC):
    """One kind of problem of the command line (a subclass per ``--task``)."""

    kind: ClassVar[str]

    @abstractmethod
    def read_training(self, path: Path) -> TrainingSet:
        """Read a training file."""

    @abstractmethod
    def task(self, training: TrainingSet, options: dict[str, Any]) -> Task:
        """Return the task for the data and the command-line options."""

    @abstractmethod
    def classify(self, model: SavedModel, test: Path, predictions: Path) -> list[str]:
        """Write the predictions for a test file; return the lines of its evaluation."""

    def labeller(self, training: TrainingSet) -> Any:
        """Return what labels the predicted structures, trained on ``training`` (None here)."""
        return None


def with_width(X: sp.csr_matrix, n_features: int) -> sp.csr_matrix:
    """Return X with ``n_features`` columns: features the model never saw weigh 0, so go."""
    X = sp.csr_matrix(X)
    if X.shape[1] > n_features:
        return X[:, :n_features]
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))


def _percent_line(name: str, wrong: int, total: int) -> str:
    return (
        f"Zero/one-error on test set: {100.0 * wrong / total:.2f}% "
        f"({total - wrong} correct, {wrong} incorrect, {total} total {name})"
    )


class MulticlassProblem(Problem):
    """SVM^multiclass: one example per line, ``LABEL FID:VALUE ...``."""

    kind = "multiclass"

    def read_training(self, path: Path) -> TrainingSet:
        X, y = read_svmlight(path)
        labels, encoded = np.unique(y, return_inverse=True)
        if len(labels) < 2:
            raise CommandLineError(
                f"{os.fspath(path)}: multiclass training needs at least two classes, "
                f"found {len(labels)}"
            )
        return TrainingSet(
            X=X,
            Y=encoded.ravel(),
            labels=labels,
            n_features=X.shape[1],
            n_examples=X.shape[0],
            description=f"{X.shape[0]} examples, {len(labels)} classes, {X.shape[1]} features",
        )

    def task(self, training: TrainingSet, options: dict[str, Any]) -> Task:
        from tasks import MulticlassTask

        k = len(training.labels)
        loss = multiclass_loss_scale(options["C"]) * (1.0 - np.eye(k))
        return MulticlassTask(k, training.n_features, loss_matrix=loss)

    def classify(self, model: SavedModel, test: Path, predictions: Path) -> list[str]:
        X, y = read_svmlight(test)
        X = with_width(X, model.n_features)
        weights = model.svm.w_.reshape(len(model.labels), model.n_features)
        scores = np.asarray(X @ weights.T)
        predicted = model.labels[model.svm.predict(X)]
        with open(predictions, "w", encoding="utf-8") as handle:
            for label, row in zip(predicted, scores, strict=True):
                handle.write(" ".join([format_target(label), *(f"{s:.10g}" for s in row)]) + "\n")
        wrong = int(np.sum(predicted != y))
        return [
            f"Average loss on test set: {wrong / len(y) * model.svm.task.loss_matrix[0, 1]:.4f}",
            _percent_line("examples", wrong, len(y)),
        ]


class HmmProblem(Problem):
    """SVM^hmm: one token per line, ``TAG qid:SEQUENCE FID:VALUE ...``."""

    kind = "hmm"

    def read_training(self, path: Path) -> TrainingSet:
        data = read_svmhmm(path)
        if len(data.tags) < 2:
            raise CommandLineError(
                f"{os.fspath(path)}: sequence tagging needs at least two tags, found "
                f"{len(data.tags)}"
            )
        return TrainingSet(
            X=data.X,
            Y=data.Y,
            labels=data.tags,
            n_features=data.n_features,
            n_examples=len(data.X),
            description=(
                f"{len(data.X)} sequences, {data.n_tokens} tokens, {len(data.tags)} tags, "
                f"{data.n_features} features"
            ),
        )

    def task(self, training: TrainingSet, options: dict[str, Any]) -> Task:
        from tasks import ChainTask

        return ChainTask(
            len(training.labels), training.n_features, **chain_options(options["transitions"])
        )

    def classify(self, model: SavedModel, test: Path, predictions: Path) -> list[str]:
        data = read_svmhmm(test)
        X = [with_width(x, model.n_features) for x in data.X]
        predicted = [model.labels[y] for y in model.svm.predict(X)]
        true = [data.tags[y] for y in data.Y]
        with open(predictions, "w", encoding="utf-8") as handle:
            for tags in predicted:
                handle.writelines(f"{tag}\n" for tag in tags)
        mistagged = np.array([int(np.sum(p != t)) for p, t in zip(predicted, true, strict=True)])
        return [
            f"Average loss on test set: {mistagged.mean():.4f} mistagged tokens per sequence",
            _percent_line("sequences", int(np.count_nonzero(mistagged)), len(mistagged)),
            f"Token accuracy on test set: {100.0 * (1 - mistagged.sum() / data.n_tokens):.2f}% "
            f"({data.n_tokens - mistagged.sum()} of {data.n_tokens} tokens)",
        ]


class RankProblem(Problem):
    """SVM^rank: one document per line, ``GRADE qid:QUERY FID:VALUE ...``."""

    kind = "rank"

    def read_training(self, path: Path) -> TrainingSet:
        X, y, qid = read_svmlight(path, query_id=True)
        queries = query_rows(qid, X.shape[0])
        return TrainingSet(
            X=[X[rows] for rows in queries],
            Y=[y[rows] for rows in queries],
            labels=None,
            n_features=X.shape[1],
            n_examples=len(queries),
            description=f"{len(queries)} queries, {X.shape[0]} documents, {X.shape[1]} features",
        )

    def task(self, training: TrainingSet, options: dict[str, Any]) -> Task:
        from tasks import RankingTask

        return RankingTask(training.n_features)

    def classify(self, model: SavedModel, test: Path, predictions: Path) -> list[str]:
        X, y, qid = read_svmlight(test, query_id=True)
        scores = np.asarray(with_width(X, model.n_features) @ model.svm.w_).ravel()
        with open(predictions, "w", encoding="utf-8") as handle:
            handle.writelines(f"{s:.10g}\n" for s in scores)
        try:
            accuracy = pairwise_accuracy(y, scores, qid)
        except ValueError:  # no query of the test file has two grades: nothing to evaluate
            return ["No query of the test set has documents of different grades: no evaluation"]
        return [
            f"Pairwise accuracy on test set: {accuracy:.4f} (swapped pairs: "
            f"{1 - accuracy:.4f}; equal scores count half)",
            f"Mean NDCG@10 on test set: {mean_ndcg(y, scores, qid, k=10):.4f}",
        ]


class ParseProblem(Problem):
    """CoNLL-U treebanks: dependency trees over words and their UPOS tags.

    The structural SVM learns the heads (:class:`tasks.DependencyTask`); an
    :class:`tasks.ArcLabeller` trained on the true arcs gives the predicted arcs their
    relations.
    """

    kind = "parse"

    def read_training(self, path: Path) -> TrainingSet:
        from tasks import ArcFeatures

        sentences = read_conllu(path)
        unannotated = next((k for k, s in enumerate(sentences) if np.any(s.heads < 0)), None)
        if unannotated is not None:
            raise CommandLineError(
                f"{os.fspath(path)}: sentence {unannotated + 1} has words without a head"
            )
        n_words = sum(len(sentence) for sentence in sentences)
        return TrainingSet(
            X=ArcFeatures().transform(sentences),
            Y=[sentence.heads for sentence in sentences],
            labels=None,
            n_features=ArcFeatures().n_features,
            n_examples=len(sentences),
            description=f"{len(sentences)} sentences, {n_words} words",
            relations=[sentence.deprels for sentence in sentences],
        )

    def task(self, training: TrainingSet, options: dict[str, Any]) -> Task:
        from tasks import DependencyTask

        return DependencyTask(decoder=options["decoder"])

    def labeller(self, training: TrainingSet) -> Any:
        from tasks import ArcLabeller

        return ArcLabeller().fit(training.X, training.Y, training.relations)

    def classify(self, model: SavedModel, test: Path, predictions: Path) -> list[str]:
        from tasks import attachment_scores

        sentences = read_conllu(test)
        X = model.svm.task.inputs(sentences)
        heads = model.svm.predict(X)
        relations = model.labeller.predict(X, heads)
        annotated = all(np.all(sentence.heads >= 0) for sentence in sentences)
        scores = attachment_scores(sentences, heads, relations) if annotated else None
        for sentence, tree, labels in zip(sentences, heads, relations, strict=True):
            sentence.heads, sentence.deprels = tree, labels
        write_conllu(predictions, sentences)
        if scores is None:
            return ["Some words of the test set have no head: no evaluation"]
        return [
            f"Attachment scores on test set ({scores.n_words} words): "
            f"UAS {100 * scores.uas:.2f}%, LAS {100 * scores.las:.2f}%",
            f"Without punctuation ({scores.n_words_without_punctuation} words): "
            f"UAS {100 * scores.uas_without_punctuation:.2f}%, "
            f"LAS {100 * scores.las_without_punctuation:.2f}%",
        ]


PROBLEMS: dict[str, Problem] = {
    problem.kind: problem
    for problem in (MulticlassProblem(), HmmProblem(), RankProblem(), ParseProblem())
}
"""Every problem of the command line, by ``--task``."""
