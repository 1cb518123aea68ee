"""Newsgroup classification with the taxonomy of the group names (Cai & Hofmann, CIKM 2004).

The 20 Newsgroups posts (the "bydate" version: Lang 1995, split by date by J. Rennie) are
classified into their group, a leaf of the tree that the group names spell when split on "."
(``comp.sys.mac.hardware`` is the leaf ``comp/sys/mac/hardware``); the tree loss of a prediction
is the number of edges between the two groups in that tree. The models are trained on that
tree, or with ``--tree collapsed`` on the same tree with its single-child chains merged
(``comp/sys/mac.hardware``; ``alt.atheism`` a child of the root). Only the training
split is read: a dev split is carved out of it (a fraction of every group's posts), on which
every figure is measured; the test split is kept apart. The posts' header lines are dropped (the
subject kept); features are TF-IDF vectors (scikit-learn, sublinear term frequencies) of the
``--max-features`` most frequent terms, fitted on the training posts that are not dev posts.

With 4, 20 and all training posts per group (the small sizes drawn several times), five
classifiers:

* :class:`structsvm.TaxonomySVM` with flat features (one weight row per group) or taxonomy
  features (one per node of the tree, a group's score the sum over its ancestors; with
  ``--taxonomy-features normalized`` the nodes weighted to sum to 1 along every path), each
  trained with the 0/1 loss or the tree loss (the number of edges between two groups), the
  loss normalised to a mean of 1 (``normalize_loss``) so that C means the same under both,
  with margin rescaling, and the taxonomy model with the tree loss also with slack rescaling
  (``taxonomy tree slack``: a margin of 1 against every wrong group, its violation weighed by
  the tree loss);
* one-vs-rest ``LinearSVC``, scikit-learn's linear baseline.

Each is scored by its accuracy and its mean tree loss on the dev posts: their means over the
draws with standard errors (±), and the paired differences (Δ) from the first model of
``--models`` (``flat 0/1`` by default) on the same draws, with theirs. Training on all posts
is slower: its solvers are capped by ``--max-iter`` (and the table says whether they stopped
there).

The data are not part of the project: give ``--data-dir`` or the environment variable
``STRUCTSVM_DATA``, a directory holding ``20news-bydate.tar.xz`` (or ``20newsgroups/`` holding
it). Run ``python -m experiments.taxonomy --help`` for the options.
"""

from __future__ import annotations

import argparse
import tarfile
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from experiments._data import candidate_directories
from experiments._measure import format_table
from structsvm import TaxonomySVM
from tasks import TaxonomyTask, taxonomy_from_paths

ARCHIVE = "20news-bydate.tar.xz"
TRAIN_SPLIT = "20news-bydate-train"
MODELS = (
    "flat 0/1",
    "flat tree",
    "taxonomy 0/1",
    "taxonomy tree",
    "taxonomy tree slack",
    "LinearSVC",
)
LOSSES = {"0/1": "zero_one", "tree": "tree", "lca": "lca"}
"""The training losses of a model's name (``"taxonomy lca"`` may be asked for too)."""


class Posts(NamedTuple):
    """Posts and the names of their groups (``comp.sys.mac.hardware``)."""

    texts: list[str]
    groups: np.ndarray


def find_archive(data_dir: str | None) -> Path:
    """Return the path of the 20 Newsgroups archive.

    Raises
    ------
    FileNotFoundError
        If no directory is given, or it holds no archive.
    """
    candidates = candidate_directories(data_dir, "20newsgroups")
    if not candidates:
        raise FileNotFoundError("give --data-dir or set STRUCTSVM_DATA (see --help)")
    for candidate in candidates:
        if (candidate / ARCHIVE).is_file():
            return candidate / ARCHIVE
    raise FileNotFoundError(f"{candidates[0]}: no {ARCHIVE} (nor 20newsgroups/{ARCHIVE})")


def post_body(text: str) -> str:
    """Return a post without its header lines, its subject kept."""
    header, _, body = text.partition("\n\n")
    subjects = [line for line in header.splitlines() if line.lower().startswith("subject:")]
    return "\n".join([*(line[len("subject:") :] for line in subjects), body])


def read_training_posts(archive: Path) -> Posts:
    """Return every post of the archive's training split, in the archive's order."""
    texts, groups = [], []
    with tarfile.open(archive) as members:
        for member in members:
            parts = member.name.split("/")
            if not member.isfile() or len(parts) != 3 or parts[0] != TRAIN_SPLIT:
                continue
            if parts[1].startswith("."):
                continue
            raw = members.extractfile(member).read().decode("latin-1")
            texts.append(post_body(raw))
            groups.append(parts[1])
    return Posts(texts, np.array(groups))


def split_dev(groups: np.ndarray, dev_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the indices of the training pool and of the dev posts, a fraction of every group."""
    rng = np.random.default_rng(seed)
    pool, dev = [], []
    for group in np.unique(groups):
        members = rng.permutation(np.flatnonzero(groups == group))
        cut = round(dev_fraction * len(members))
        dev.extend(members[:cut])
        pool.extend(members[cut:])
    return np.sort(pool), np.sort(dev)


def draw_per_group(groups: np.ndarray, pool: np.ndarray, size: int | None, rng) -> np.ndarray:
    """Return ``size`` posts of every group drawn from ``pool`` (all of them if None)."""
    if size is None:
        return pool
    chosen = [rng.choice(pool[groups[pool] == g], size, replace=False) for g in np.unique(groups)]
    return np.sort(np.concatenate(chosen))


def collapsed_paths(groups: list[str]) -> dict[str, str]:
    """Return every group's path in the tree of the names with single-child chains merged.

    ``comp.sys.ibm.pc.hardware`` becomes ``comp/sys/ibm.pc.hardware``: ``ibm`` and ``ibm.pc``
    have one child each, so they are one node with it; ``alt.atheism`` becomes one node.
    """
    children: dict[tuple[str, ...], set[str]] = {}
    for group in groups:
        parts = group.split(".")
        for depth in range(len(parts)):
            children.setdefault(tuple(parts[:depth]), set()).add(parts[depth])
    paths = {}
    for group in groups:
        parts = group.split(".")
        segments = [parts[0]]
        for depth in range(1, len(parts)):
            if len(children[tuple(parts[:depth])]) == 1:
                segments[-1] += "." + parts[depth]
            else:
                segments.append(parts[depth])
        paths[group] = "/".join(segments)
    return paths


def make_model(name: str, args: argparse.Namespace):
    """Return an unfitted classifier of the table."""
    if name == "LinearSVC":
        return LinearSVC(C=args.C)
    features, loss, *rescaling = name.split()
    return TaxonomySVM(
        C=args.C,
        features="leaf" if features == "flat" else args.taxonomy_features,
        loss=LOSSES[loss],
        normalize_loss=True,
        rescaling=rescaling[0] if rescaling else "margin",
        tol=args.tol,
        max_iter=args.max_iter,
    )


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Train and score every model at every size; return one row per (size, model)."""
    posts = read_training_posts(find_archive(args.data_dir))
    pool, dev = split_dev(posts.groups, args.dev_fraction, args.seed)
    vectorizer = TfidfVectorizer(
        sublinear_tf=True,
        min_df=2,
        max_df=0.5,
        stop_words="english",
        max_features=args.max_features,
    )
    vectorizer.fit([posts.texts[k] for k in pool])
    features = vectorizer.transform(posts.texts)
    taxonomy = taxonomy_from_paths(posts.groups, separator=".")
    tree = TaxonomyTask(taxonomy.parents, 1, loss="tree")
    leaf_of = {taxonomy.names[node]: k for k, node in enumerate(tree.leaves)}
    dev_leaves = np.array([leaf_of[g] for g in posts.groups[dev]])
    names = sorted(set(posts.groups))
    if args.tree == "collapsed":
        path_of = collapsed_paths(names)
    else:
        path_of = {name: name.replace(".", "/") for name in names}
    group_of = {path: name for name, path in path_of.items()}
    labels = np.array([path_of[g] for g in posts.groups])
    print(
        f"posts: {len(pool)} training pool, {len(dev)} dev; {features.shape[1]} features; "
        f"tree of the names: {len(taxonomy.parents)} nodes, {tree.n_leaves} leaves; "
        f"trained on the {args.tree} tree"
    )
    rows = []
    for size in args.sizes:
        per_group = None if size == "all" else int(size)
        draws = 1 if per_group is None else args.draws
        scores: dict[str, list[tuple[float, float, float, bool]]] = {m: [] for m in args.models}
        for draw in range(draws):
            rng = np.random.default_rng(args.seed + 1 + draw)
            chosen = draw_per_group(posts.groups, pool, per_group, rng)
            for name in args.models:
                model = make_model(name, args)
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model.fit(features[chosen], labels[chosen])
                seconds = time.perf_counter() - start
                predicted = np.array([group_of[path] for path in model.predict(features[dev])])
                leaves = np.array([leaf_of[g] for g in predicted])
                capped = bool(getattr(model, "n_iter_", 0) == args.max_iter)
                scores[name].append(
                    (
                        float(np.mean(predicted == posts.groups[dev])),
                        float(np.mean(tree.loss_matrix[dev_leaves, leaves])),
                        seconds,
                        capped,
                    )
                )
        reference = np.array(scores[args.models[0]])[:, :2]
        for name, results in scores.items():
            accuracy, tree_loss, seconds, capped = (np.array(v) for v in zip(*results, strict=True))
            gain = np.array(results)[:, :2] - reference
            rows.append(
                {
                    "per group": size,
                    "draws": draws,
                    "model": name,
                    "accuracy": accuracy.mean(),
                    "± acc": standard_error(accuracy),
                    "tree loss": tree_loss.mean(),
                    "± loss": standard_error(tree_loss),
                    "Δ acc": gain[:, 0].mean(),
                    "± Δ acc": standard_error(gain[:, 0]),
                    "Δ loss": gain[:, 1].mean(),
                    "± Δ loss": standard_error(gain[:, 1]),
                    "train s": seconds.mean(),
                    "at max_iter": int(capped.sum()),
                }
            )
    return rows


def standard_error(values: np.ndarray) -> float:
    """Return the standard error of the mean of ``values`` (NaN for a single value)."""
    if len(values) < 2:
        return float("nan")
    return float(np.std(values, ddof=1) / np.sqrt(len(values)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Return the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="the directory holding the archive (see above)")
    parser.add_argument("--sizes", nargs="+", default=["4", "20", "all"])
    parser.add_argument("--draws", type=int, default=10, help="draws of each small size")
    parser.add_argument(
        "--models", nargs="+", choices=[*MODELS, "taxonomy lca"], default=list(MODELS)
    )
    parser.add_argument(
        "--max-features", type=int, default=20000, help="the most frequent terms kept"
    )
    parser.add_argument(
        "--taxonomy-features",
        choices=("path", "normalized"),
        default="path",
        help="the feature map of the taxonomy models (see tasks.TaxonomyTask)",
    )
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--max-iter", type=int, default=300, help="solver iterations at most")
    parser.add_argument(
        "--tree",
        choices=("names", "collapsed"),
        default="names",
        help="train on the tree of the names, or on it with single-child chains merged",
    )
    parser.add_argument("--dev-fraction", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Run the comparison and print its table; return the rows."""
    args = parse_args(argv)
    rows = run(args)
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    main()
