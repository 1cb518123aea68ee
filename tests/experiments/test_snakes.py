"""The snakes experiment: its features, and a run on a tiny budget that learns the snakes."""

import numpy as np
import pytest

from experiments.snakes import (
    MODELS,
    PALETTE,
    make_task,
    model_data,
    parse_args,
    run,
    window_features,
)
from structsvm.datasets import ImageDataset, load_snakes


def test_window_features_are_the_one_hot_colours_around_each_pixel():
    image = PALETTE[[[0, 1, 2], [3, 4, 0]]].astype(np.uint8)  # 2 × 3 pixels
    features = window_features(image).reshape(2, 3, 3, 3, len(PALETTE))
    colours = np.array([[0, 1, 2], [3, 4, 0]])
    for r in range(2):
        for c in range(3):
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    window = features[r, c, dr + 1, dc + 1]
                    if 0 <= r + dr < 2 and 0 <= c + dc < 3:
                        np.testing.assert_array_equal(
                            window, np.eye(len(PALETTE))[colours[r + dr, c + dc]]
                        )
                    else:
                        assert not window.any()
    with pytest.raises(ValueError, match="outside the snakes palette"):
        window_features(np.full((2, 2, 3), 7, dtype=np.uint8))


@pytest.mark.parametrize("model", list(MODELS))
def test_model_inputs_are_accepted_by_their_task(model):
    train, _ = load_snakes()
    X, Y = model_data(model, ImageDataset(train.images[:3], train.labels[:3]))
    task = make_task(model, "max-product")
    X, Y = task.check_data(X, Y)
    assert [len(y) for y in Y] == [image.shape[0] * image.shape[1] for image in train.images[:3]]


def test_tiny_run_learns_more_than_the_background(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "snakes.png"
    args = parse_args(
        ["--models", "edge features", "--n-train", "30", "--max-iter", "3", "--plot", str(figure)]
    )
    (row,) = run(args)
    _, test = load_snakes()
    background = sum(int(np.sum(y == 0)) for y in test.labels) / test.n_pixels
    assert row["accuracy"] > background + 0.05
    assert row["inference"] == "max-product" and row["seconds"] > 0
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "edge features" in capsys.readouterr().out


def test_inference_options_are_read_as_numbers_where_they_are_numbers():
    options = ["schedule=serial", "max_iter=10", "damping=0.0"]
    args = parse_args([part for option in options for part in ("--inference-option", option)])
    assert args.inference_options == {"schedule": "serial", "max_iter": 10, "damping": 0.0}
    task = make_task("edge features", args.inference, args.inference_options)
    assert task.inference_options == args.inference_options
