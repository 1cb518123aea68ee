"""The 20 Newsgroups experiment runs end to end on a tiny synthetic archive of posts."""

import io
import tarfile

import numpy as np

from experiments.taxonomy import MODELS, main, make_model, parse_args, post_body, standard_error

GROUPS = {
    "comp.sys.mac": "apple powerbook monitor",
    "comp.graphics": "render polygon monitor",
    "rec.autos": "engine wheel brake",
}


def write_archive(path, rng, posts_per_group=8):
    """Write posts in the layout of 20news-bydate.tar.xz: split/group/number."""
    filler = "the news today was about several things people said".split()
    with tarfile.open(path, "w:xz") as archive:
        for group, words in GROUPS.items():
            for number in range(posts_per_group):
                text = " ".join([*words.split(), *rng.choice(filler, 4)])
                data = f"From: someone\nSubject: {words.split()[0]}\n\n{text}\n".encode()
                member = tarfile.TarInfo(f"20news-bydate-train/{group}/{number}")
                member.size = len(data)
                archive.addfile(member, io.BytesIO(data))


def test_the_experiment_scores_every_model_on_dev_posts(tmp_path):
    write_archive(tmp_path / "20news-bydate.tar.xz", np.random.default_rng(0))
    rows = main(
        ["--data-dir", str(tmp_path), "--sizes", "2", "all", "--draws", "2", "--max-iter", "10"]
    )
    assert [(row["per group"], row["model"]) for row in rows] == [
        (size, model) for size in ("2", "all") for model in MODELS
    ]
    assert all(0.0 <= row["accuracy"] <= 1.0 and row["tree loss"] >= 0.0 for row in rows)
    assert rows[0]["draws"] == 2 and rows[-1]["draws"] == 1
    reference = [row for row in rows if row["model"] == MODELS[0]]
    assert all(row["Δ acc"] == 0.0 and row["Δ loss"] == 0.0 for row in reference)
    assert np.isnan(rows[-1]["± acc"]) and rows[0]["± acc"] >= 0.0


def test_the_standard_error_is_the_spread_of_the_mean():
    values = np.array([1.0, 2.0, 3.0, 6.0])
    assert np.isclose(standard_error(values), np.std(values, ddof=1) / 2.0)
    assert np.isnan(standard_error(np.array([1.0])))


def test_a_post_loses_its_headers_but_keeps_its_subject():
    assert (
        post_body("From: a\nSubject: engines\nLines: 2\n\nbody text\n") == " engines\nbody text\n"
    )


def test_the_taxonomy_models_take_the_feature_map_asked_for():
    args = parse_args(["--taxonomy-features", "normalized"])
    assert make_model("taxonomy tree slack", args).features == "normalized"
    assert make_model("flat 0/1", args).features == "leaf"
    assert make_model("taxonomy 0/1", parse_args([])).features == "path"
