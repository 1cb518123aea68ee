"""The shipped data sets: the OCR letters split, its pixels in the type asked for."""

import numpy as np
import pytest

from structsvm.datasets import ocr_letters_split


def test_the_ocr_pixels_as_stored_are_the_float_pixels():
    train, test = ocr_letters_split("small")
    train_bytes, test_bytes = ocr_letters_split("small", dtype=np.uint8)
    assert (len(train.X), len(test.X)) == (704, 6173)
    for floats, stored in ((train, train_bytes), (test, test_bytes)):
        assert {x.dtype for x in floats.X} == {np.dtype(np.float64)}
        assert {x.dtype for x in stored.X} == {np.dtype(np.uint8)}
        np.testing.assert_array_equal(np.concatenate(stored.X), np.concatenate(floats.X))
        np.testing.assert_array_equal(np.concatenate(stored.Y), np.concatenate(floats.Y))


def test_a_pixel_type_that_is_not_numeric_is_refused():
    with pytest.raises(ValueError, match="dtype must be a numeric type"):
        ocr_letters_split("small", dtype=str)
