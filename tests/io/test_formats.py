"""SVM^light and SVM^hmm files: round trips, hand-written files and malformed ones."""

import numpy as np
import pytest
import scipy.sparse as sp

from structsvm.io import (
    FileFormatError,
    read_svmhmm,
    read_svmlight,
    write_svmhmm,
    write_svmlight,
)


def write_text(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------ SVM^light
def test_svmlight_round_trip_with_query_ids(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(30, 7, density=0.3, random_state=1, format="csr")
    X.data = rng.normal(size=X.nnz)
    y = rng.integers(0, 4, 30).astype(float)
    qid = np.repeat([3, 5, 9], 10)
    path = tmp_path / "rank.dat"
    write_svmlight(path, X, y, qid=qid, comment="three queries")
    X_read, y_read, qid_read = read_svmlight(path, n_features=7, query_id=True)
    assert (X_read != X).nnz == 0
    np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(qid_read, qid)
    assert path.read_text().splitlines()[-1].split()[1] == "qid:9"


def test_svmlight_hand_written_file(tmp_path):
    path = write_text(
        tmp_path,
        "train.dat",
        "# SVM^rank example\n2 qid:1 1:0.5 4:-1 # first\n\n1 qid:1 2:3\n3 qid:7 1:1 2:1\n",
    )
    X, y, qid = read_svmlight(path, query_id=True)
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 0, -1], [0, 3, 0, 0], [1, 1, 0, 0]])
    np.testing.assert_array_equal(y, [2, 1, 3])
    np.testing.assert_array_equal(qid, [1, 1, 7])


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("1 qid:1 1:0.5 x", "line 3: expected 'fid:value', got 'x'"),
        ("1 a:0.5", "line 3: expected an integer feature id in 'fid:value', got 'a:0.5'"),
        ("1 2:abc", "line 3: expected a number as the value in 'fid:value', got '2:abc'"),
        ("1 0:1", "line 3: feature ids start at 1, got '0:1'"),
        ("1 3:1 2:1", "line 3: feature ids must increase along a line, got 2 after 3"),
        ("cat 1:1", "line 3: expected a number as the target, got 'cat'"),
        ("1 qid:x 1:1", "line 3: expected an integer query id in 'qid:ID', got 'qid:x'"),
        ("1 1:1", "line 3: expected 'qid:QUERY' after the target"),
    ],
)
def test_svmlight_malformed_line_is_named(tmp_path, line, reason):
    path = write_text(tmp_path, "train.dat", f"1 qid:1 1:1\n# comment\n{line}\n2 qid:2 2:1\n")
    with pytest.raises(FileFormatError, match=f"^train\\.dat, {reason}") as caught:
        read_svmlight(path, query_id=True)
    assert caught.value.line == 3
    assert isinstance(caught.value, ValueError)


def test_svmlight_feature_beyond_n_features_is_named(tmp_path):
    path = write_text(tmp_path, "test.dat", "1 1:1\n2 5:1\n")
    with pytest.raises(FileFormatError, match=r"test\.dat, line 2: feature id 5 is above"):
        read_svmlight(path, n_features=4)


# ------------------------------------------------------------------------ SVM^hmm
HMM_FILE = """\
# two sequences
2 qid:4 1:1 3:0.25
10 qid:4 2:-2 # a comment
1 qid:4

2 qid:8 3:1
"""


def test_svmhmm_hand_written_file(tmp_path):
    data = read_svmhmm(write_text(tmp_path, "train.dat", HMM_FILE))
    np.testing.assert_array_equal(data.tags, ["1", "2", "10"])  # integers sort by value
    np.testing.assert_array_equal(data.qids, [4, 8])
    assert [sp.isspmatrix_csr(x) for x in data.X] == [True, True]
    np.testing.assert_array_equal(data.X[0].toarray(), [[1, 0, 0.25], [0, -2, 0], [0, 0, 0]])
    np.testing.assert_array_equal(data.X[1].toarray(), [[0, 0, 1]])
    np.testing.assert_array_equal(data.Y[0], [1, 2, 0])
    np.testing.assert_array_equal(data.Y[1], [1])
    assert (data.n_features, data.n_tokens) == (3, 4)


def test_svmhmm_string_tags_sort_as_strings(tmp_path):
    data = read_svmhmm(write_text(tmp_path, "t.dat", "NN qid:1 1:1\nB-NP qid:1\nDT qid:2\n"))
    np.testing.assert_array_equal(data.tags, ["B-NP", "DT", "NN"])
    np.testing.assert_array_equal(data.Y[0], [2, 0])


def test_svmhmm_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    X = [sp.random(T, 6, density=0.4, random_state=T, format="csr") for T in (1, 4, 7)]
    for x in X:
        x.data = rng.normal(size=x.nnz)
    Y = [rng.integers(0, 3, x.shape[0]) for x in X]
    tags = ["B-NP", "I-NP", "O"]
    path = tmp_path / "seq.dat"
    write_svmhmm(path, X, Y, tags, qids=[11, 2, 30])
    data = read_svmhmm(path, tags=tags, n_features=6)
    for x, x_read in zip(X, data.X):
        assert (x_read != x).nnz == 0
    for y, y_read in zip(Y, data.Y):
        np.testing.assert_array_equal(y_read, y)
    np.testing.assert_array_equal(data.tags, tags)
    np.testing.assert_array_equal(data.qids, [11, 2, 30])


def test_svmhmm_round_trip_of_dense_sequences_without_given_tags(tmp_path):
    X = [np.array([[1.0, 0.0], [0.5, 2.0]]), np.array([[0.0, 3.0]])]
    Y = [np.array([1, 0]), np.array([1])]
    path = tmp_path / "seq.dat"
    write_svmhmm(path, X, Y, ["3", "7"])
    data = read_svmhmm(path)
    np.testing.assert_array_equal(data.tags, ["3", "7"])
    np.testing.assert_array_equal(data.qids, [1, 2])
    for x, x_read in zip(X, data.X):
        np.testing.assert_array_equal(x_read.toarray(), x)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("A qid:1 1:1\nB 1:1\n", ", line 2: expected 'qid:SEQUENCE' after the tag 'B'"),
        ("A qid:1 1:1\nB qid:1 x\n", ", line 2: expected 'fid:value', got 'x'"),
        ("A qid:1\nB qid:2\n# c\nA qid:1\n", ", line 4: qid:1 appears again after another"),
        ("A qid:1 1:nan\n", ", line 1: feature values must be finite, got '1:nan'"),
        ("qid:1 1:1\n", ", line 1: expected a target \\(label or tag\\) first, got 'qid:1'"),
        ("# nothing\n\n", ": no tokens in the file"),
    ],
)
def test_svmhmm_malformed_file_is_named(tmp_path, text, reason):
    path = write_text(tmp_path, "train.dat", text)
    with pytest.raises(FileFormatError, match=f"^train\\.dat{reason}"):
        read_svmhmm(path)


def test_svmhmm_unknown_tag_is_named(tmp_path):
    path = write_text(tmp_path, "test.dat", "A qid:1\nZ qid:1\n")
    message = r"test\.dat, line 2: unknown tag 'Z': the tags are A, B"
    with pytest.raises(FileFormatError, match=message):
        read_svmhmm(path, tags=["A", "B"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tags": ["a b", "c"]}, "tags must be non-empty printable text without whitespace"),
        ({"Y": [np.array([0])]}, "Y\\[0\\] must hold one label per row of X\\[0\\]"),
        ({"Y": [np.array([0, 2])]}, "Y\\[0\\] has labels outside 0..1"),
        (
            {"X": [np.ones((2, 2))] * 2, "Y": [np.array([0, 1])] * 2, "qids": [1, 1]},
            "qids must be distinct",
        ),
        ({"qids": [1.5]}, "qids must hold one int64 integer per sequence"),
    ],
)
def test_write_svmhmm_refuses_what_it_cannot_write(tmp_path, kwargs, message):
    arguments = {"X": [np.ones((2, 2))], "Y": [np.array([0, 1])], "tags": ["a", "b"], **kwargs}
    with pytest.raises(ValueError, match=message):
        write_svmhmm(tmp_path / "out.dat", **arguments)


@pytest.mark.parametrize("features", ["1:2:3 4:5", "4:5 1:2:3", "1:1 2", "2:1 1:1", "1e3:1"])
def test_every_feature_is_checked_by_the_whole_file_reader(tmp_path, features):
    # Faulty features anywhere in a file that is otherwise fine, behind empty lines and lines
    # without features.
    text = f"A qid:1\n\nB qid:1 1:1 3:1\nA qid:2 {features}\nB qid:2 2:1\n"
    with pytest.raises(FileFormatError, match=r"^t\.dat, line 4: (expected|feature ids must)"):
        read_svmhmm(write_text(tmp_path, "t.dat", text))


def test_feature_ids_may_restart_on_every_line(tmp_path):
    text = "A qid:1 3:1\nB qid:1 1:1 2:1\nA qid:2\nB qid:2 2:1\n"
    data = read_svmhmm(write_text(tmp_path, "t.dat", text))
    np.testing.assert_array_equal(data.X[0].toarray(), [[0, 0, 1], [1, 1, 0]])
    np.testing.assert_array_equal(data.X[1].toarray(), [[0, 0, 0], [0, 1, 0]])


# ------------------------------------------------------------------------ hostile lines
HOSTILE_LINES = {
    "nan target": ("nan 1:1", "expected a number as the target, got 'nan'"),
    "infinite target": ("1e400 1:1", "expected a number as the target, got '1e400'"),
    "nan value": ("1 1:nan", "feature values must be finite"),
    "overflowing value": ("1 1:1e400", "feature values must be finite"),
    "hexadecimal value": ("1 1:0x10", "expected a number as the value"),
    "underscored value": ("1 1:1_0", "expected a number as the value"),
    "arabic-indic digit": ("1 \u0661:1", "expected an integer feature id"),
    "id beyond int64": ("1 99999999999999999999:1", "the feature id in .* is beyond int64"),
    "id at 2**63": ("1 9223372036854775808:1", "is beyond int64"),
    "query id beyond int64": ("1 qid:9223372036854775808 1:1", "query id in .* beyond int64"),
    "NUL byte": ("1 1:\x001", "a control character"),
    "no-break space": ("1 1:1\u00a02:3", "a control character"),
    "missing value": ("1 1:", "expected a number as the value"),
    "missing id": ("1 :1", "expected an integer feature id"),
}


@pytest.mark.parametrize("reader", ["svmlight", "svmhmm"])
@pytest.mark.parametrize("name", HOSTILE_LINES)
def test_hostile_lines_are_refused_naming_file_and_line(reader, name, tmp_path):
    line, reason = HOSTILE_LINES[name]
    if reader == "svmhmm":
        if "qid:" not in line:
            line = line.replace(" ", " qid:1 ", 1)
        if "target" in name:
            pytest.skip("SVM^hmm targets are tags, any text")
    path = write_text(tmp_path, "data.dat", f"1 qid:1 1:1\n# fine\n{line} # comment\n")
    read = read_svmhmm if reader == "svmhmm" else read_svmlight
    with pytest.raises(FileFormatError, match=rf"^data\.dat, line 3: .*{reason}"):
        read(path)


@pytest.mark.parametrize("reader", [read_svmlight, read_svmhmm])
def test_binary_garbage_is_refused_naming_the_line(reader, tmp_path):
    path = tmp_path / "garbage.dat"
    path.write_bytes(b"1 qid:1 1:1\n" + bytes(range(256)) + b"\n")
    with pytest.raises(FileFormatError, match=r"^garbage\.dat, line 2: a control character"):
        reader(path)
    path.write_bytes(b"1 qid:1 1:1\n1 qid:1 1:\xe9\n")
    with pytest.raises(FileFormatError, match=r"line 2: bytes that are not UTF-8"):
        reader(path)


def test_a_comment_may_hold_any_bytes(tmp_path):
    path = tmp_path / "latin1.dat"
    path.write_bytes(b"1 qid:1 1:1 # caf\xe9\n")
    assert read_svmlight(path)[0].shape == (1, 1)
    assert read_svmhmm(path).n_tokens == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"X": np.array([[np.nan, 1.0]])}, "X must hold finite numbers"),
        ({"X": np.ones((1, 2, 2))}, "X must be a 2-D array or sparse matrix"),
        ({"X": np.array([["a", "b"]])}, "X must hold real numbers"),
        ({"X": np.ones((1, 2)) * 1j}, "X must hold real numbers"),
        ({"y": ["cat"]}, "y must hold real numbers"),
        ({"y": [np.inf]}, "y must hold finite numbers"),
        ({"qid": np.array([2**63 + 1], dtype=np.uint64)}, "qid must hold one int64 integer"),
        ({"comment": 3}, "comment must be a str"),
    ],
)
def test_write_svmlight_refuses_what_it_cannot_write_by_name(arguments, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        write_svmlight(tmp_path / "out.dat", **{"X": np.ones((1, 2)), "y": [1.0], **arguments})
    assert not (tmp_path / "out.dat").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"X": [np.array([[np.inf, 1.0], [1.0, 1.0]])]}, r"X\[0\] must hold finite numbers"),
        ({"Y": [np.array([0.0, 1.0])]}, r"Y\[0\] must hold integer labels"),
        ({"tags": ["a\x00", "b"]}, "tags must be non-empty printable text"),
        ({"X": 5}, "X and Y must be sequences"),
    ],
)
def test_write_svmhmm_refuses_before_writing_anything(arguments, message, tmp_path):
    base = {"X": [np.ones((2, 2))], "Y": [np.array([0, 1])], "tags": ["a", "b"]}
    with pytest.raises(ValueError, match=message):
        write_svmhmm(tmp_path / "out.dat", **{**base, **arguments})
    assert not (tmp_path / "out.dat").exists()
