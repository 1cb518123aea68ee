"""Generated data files and model files, good, odd and damaged: every reader either gives a
sound result or refuses the file with an error naming it, and writing then reading gives back
exactly what was written."""

import functools
import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from structsvm import ModelFileError, StructuredSVM, load, save
from structsvm.io import FileFormatError, read_svmhmm, read_svmlight, write_svmhmm, write_svmlight
from tasks import MulticlassTask
from tests.fuzzing import FUZZ

# ------------------------------------------------------------------------ data files
TOKENS = [
    "1", "2", "-1", "+3", "0", "qid:1", "qid:2", "qid:-4", "qid:x", "qid:9223372036854775808",
    "1:1", "2:0.5", "3:-2e3", "1:nan", "2:inf", "0:1", "-1:1", "1:", ":1", "1::1", "1:0x1",
    "99999999999999999999:1", "4611686018427387904:1", "A", "B-NP", "a:b", "#", "# c", "1e400",
    "\x00", "\u00a0", "\u0661", "\t", "\udce9",
]  # fmt: skip
"""Fields of data lines, good and bad; ``\\udce9`` stands for the byte 0xE9, not UTF-8."""

LINES = st.lists(
    st.lists(st.sampled_from(TOKENS), max_size=6).map(" ".join), min_size=0, max_size=6
).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogateescape"))


def _read(reader, content):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "fuzzed.dat")
        path.write_bytes(content)
        try:
            return reader(path)
        except FileFormatError as error:
            assert str(error).startswith("fuzzed.dat"), error
            assert error.line is None or 1 <= error.line <= content.count(b"\n") + 1
            return None


def _sound_matrix(X):
    assert sp.issparse(X) and X.dtype == np.float64 and np.all(np.isfinite(X.data))
    assert X.indices.dtype.kind == "i" and np.all(X.indices >= 0)


@FUZZ
@given(content=LINES, query_id=st.booleans())
def test_read_svmlight_gives_finite_data_or_names_the_file_and_line(content, query_id):
    result = _read(lambda p: read_svmlight(p, query_id=query_id), content)
    if result is not None:
        _sound_matrix(result[0])
        assert result[1].shape == (result[0].shape[0],) and np.all(np.isfinite(result[1]))
        if query_id:
            assert result[2].dtype == np.int64 and len(result[2]) == len(result[1])


@FUZZ
@given(content=LINES)
def test_read_svmhmm_gives_finite_sequences_or_names_the_file_and_line(content):
    result = _read(read_svmhmm, content)
    if result is not None:
        for x, y in zip(result.X, result.Y, strict=True):
            _sound_matrix(x)
            assert y.shape == (x.shape[0],) and np.all((y >= 0) & (y < len(result.tags)))


FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)


@FUZZ
@given(
    values=st.lists(st.lists(FLOATS, min_size=3, max_size=3), min_size=1, max_size=5),
    targets=st.data(),
)
def test_write_then_read_svmlight_gives_back_every_bit(values, targets):
    X = np.array(values)
    y = np.array(targets.draw(st.lists(FLOATS, min_size=len(X), max_size=len(X))))
    qid = np.array(
        targets.draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=len(X), max_size=len(X)))
    )
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "round.dat")
        write_svmlight(path, X, y, qid=qid)
        X_read, y_read, qid_read = read_svmlight(path, n_features=3, query_id=True)
    np.testing.assert_array_equal(X_read.toarray(), X + 0.0)  # -0.0 is left out as a zero
    assert y_read.tobytes() == (y + 0.0).tobytes()
    np.testing.assert_array_equal(qid_read, qid)


@FUZZ
@given(
    values=st.lists(st.lists(FLOATS, min_size=2, max_size=2), min_size=1, max_size=4),
    tags=st.lists(
        st.text(
            st.characters(blacklist_categories=["Cc", "Cs", "Zs", "Zl", "Zp"]), min_size=1
        ).filter(lambda t: not any(c in ":#" or c.isspace() or not c.isprintable() for c in t)),
        min_size=2,
        max_size=3,
        unique=True,
    ),
)
def test_write_then_read_svmhmm_gives_back_every_bit(values, tags):
    X = [np.array(values)]
    Y = [np.arange(len(values)) % len(tags)]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "round.dat")
        write_svmhmm(path, X, Y, tags)
        data = read_svmhmm(path, tags=tags, n_features=2)
    np.testing.assert_array_equal(data.X[0].toarray(), X[0] + 0.0)
    np.testing.assert_array_equal(data.Y[0], Y[0])


# ------------------------------------------------------------------------ model files
@functools.cache
def _model_file_bytes():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(10, 2)), rng.integers(0, 2, 10)
    model = StructuredSVM(MulticlassTask(2, 2), max_iter=2).fit(X, Y)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "m")
        save(model, path)
        return path.read_bytes()


def _load(content):
    """Load bytes as a model file: the object, or None if refused naming the file."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "fuzzed.model")
        path.write_bytes(content)
        try:
            return load(path)
        except ModelFileError as error:
            assert str(error).startswith(os.fspath(path)), error
            return None


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@FUZZ
@given(data=st.data())
def test_damaged_model_files_are_refused_naming_the_file(data):
    good = bytearray(_model_file_bytes())
    damage = data.draw(st.sampled_from(["flip", "cut", "insert", "overwrite"]), label="damage")
    at = data.draw(st.integers(0, len(good) - 1), label="at")
    if damage == "flip":
        good[at] ^= data.draw(st.integers(1, 255), label="mask")
    elif damage == "cut":
        del good[at:]
    elif damage == "insert":
        good[at:at] = data.draw(st.binary(min_size=1, max_size=8), label="bytes")
    else:
        chunk = data.draw(st.binary(min_size=1, max_size=8), label="bytes")
        good[at : at + len(chunk)] = chunk
    _load(bytes(good))  # a sound file or a named refusal, nothing else


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
NODE_TAGS = [
    "int", "float", "ref", "array", "object array", "scalar", "sparse", "random state",
    "generator", "method", "function", "path", "bytes", "tuple", "set", "dict", "records",
    "named tuple", "object", "class",
]  # fmt: skip


@FUZZ
@given(data=st.data())
def test_a_header_with_a_value_replaced_loads_or_is_refused_naming_the_file(data):
    with zipfile.ZipFile(io.BytesIO(_model_file_bytes())) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    header = json.loads(members["header.json"])
    attributes = header["root"]["object"]["attributes"]
    name = data.draw(st.sampled_from(sorted(attributes)), label="attribute")
    tag = data.draw(st.sampled_from(NODE_TAGS), label="tag")
    attributes[name] = data.draw(
        st.one_of(JSON_VALUES, JSON_VALUES.map(lambda body: {tag: body})), label="node"
    )
    members["header.json"] = json.dumps(header).encode()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "altered.model")
        with zipfile.ZipFile(path, "w") as archive:
            for member, content in members.items():
                archive.writestr(member, content)
        _load(path.read_bytes())
