"""Model files: every ready-made task survives save and load; hostile and damaged files are
refused by name and never run code."""

import hashlib
import inspect
import json
import os
import pickle
import warnings
import zipfile

import numpy as np
import pytest

import structsvm
import tasks
from structsvm import LatentStructuredSVM, ModelFileError, ParallelTask, StructuredSVM, Task
from structsvm.datasets import load_ocr_letters
from structsvm.io import load, parse_trees, prepare_tree, register, save
from tasks import (
    AlignmentTask,
    ArcFeatures,
    ChainTask,
    DependencyTask,
    EdgeFeatureGraphTask,
    GraphTask,
    LatentChainTask,
    LatentMulticlassTask,
    MulticlassTask,
    MultiLabelTask,
    MultivariateTask,
    RankingTask,
    SemiMarkovTask,
    SequencePair,
    SiblingDependencyTask,
    TaxonomyTask,
    WeightedCFGTask,
)

PATH_EDGES = np.array([[0, 1], [1, 2], [2, 3]])


def _sequences(rng, n, n_labels, n_features, lengths=(1, 5)):
    X = [rng.normal(size=(int(rng.integers(*lengths)), n_features)) for _ in range(n)]
    return X, [rng.integers(0, n_labels, len(x)) for x in X]


def _graphs(rng, n, edge_features):
    X = []
    for _ in range(n):
        parts = [rng.normal(size=(4, 2)), PATH_EDGES]
        if edge_features:
            parts.append(rng.normal(size=(3, 2)))
        X.append(tuple(parts))
    return X, [rng.integers(0, 2, 4) for _ in X]


def _signs(rng, n, d):
    X = [rng.normal(size=(n, d)) for _ in range(2)]
    Y = [np.where(x[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1) for x in X]
    for y in Y:
        y[:2] = [1, -1]
    return X, Y


def _pairs(rng, n):
    """Pairs of DNA-like sequences, b a with one residue deleted, and their true alignment."""
    X, Y = [], []
    for _ in range(n):
        a = rng.integers(0, 4, 6)
        cut = int(rng.integers(0, 6))
        X.append(SequencePair(a, np.delete(a, cut)))
        Y.append(np.array([t if t < cut else (-1 if t == cut else t - 1) for t in range(6)]))
    return X, Y


def _parses():
    """A grammar of three treebank trees, with the trees' sentences and parses."""
    trees = [
        prepare_tree(tree)
        for tree in parse_trees(
            "(S (NP-SBJ (DT the) (NN dog)) (VP (VBZ barks)))"
            "(S (NP (PRP it)) (VP (VBZ sees) (NP (DT the) (JJ big) (NN cat))))"
            "(NP (NP (DT a) (NN dog)) (PP (IN in) (NP (NN town))))"
        )
    ]
    task = WeightedCFGTask(trees)
    X, Y = zip(*(task.encode(tree) for tree in trees), strict=True)
    return task, list(X), list(Y)


def _dependency_trees(rng, n, task_class=DependencyTask):
    """Sentences of random words and tags, with the trees a random weight vector gives them."""
    words, tags = ["the", "dog", "barks", "at", "cats"], ["DET", "NOUN", "VERB", "ADP", "NOUN"]
    task = task_class(ArcFeatures(2**10))
    X = []
    for _ in range(n):
        picks = rng.integers(0, len(words), rng.integers(2, 5))
        X.append(task.features.sentence([words[k] for k in picks], [tags[k] for k in picks]))
    hidden = rng.normal(size=task.size_joint_feature)
    return task, X, [task.argmax(x, hidden) for x in X]


PROBLEMS = {
    "WeightedCFGTask": lambda rng: _parses(),
    "DependencyTask": lambda rng: _dependency_trees(rng, 6),
    "SiblingDependencyTask": lambda rng: _dependency_trees(rng, 6, SiblingDependencyTask),
    "AlignmentTask": lambda rng: (AlignmentTask("ACGT"), *_pairs(rng, 6)),
    "TaxonomyTask": lambda rng: (
        TaxonomyTask([-1, 0, 0, 1, 1, 2], 2),
        rng.normal(size=(12, 2)),
        rng.integers(0, 3, 12),
    ),
    "ChainTask": lambda rng: (ChainTask(3, 2, start_end=True), *_sequences(rng, 8, 3, 2)),
    "MulticlassTask": lambda rng: (
        MulticlassTask(3, 2, loss_matrix=1 - np.eye(3)),
        rng.normal(size=(12, 2)),
        rng.integers(0, 3, 12),
    ),
    "MultiLabelTask": lambda rng: (
        MultiLabelTask(3, 2, edges="tree"),
        rng.normal(size=(10, 2)),
        rng.integers(0, 2, (10, 3)),
    ),
    "MultivariateTask": lambda rng: (MultivariateTask(2, "f1"), *_signs(rng, 6, 2)),
    "RankingTask": lambda rng: (
        RankingTask(2),
        [rng.normal(size=(5, 2)) for _ in range(3)],
        [rng.integers(0, 3, 5) for _ in range(3)],
    ),
    "GraphTask": lambda rng: (GraphTask(2, 2), *_graphs(rng, 5, False)),
    "EdgeFeatureGraphTask": lambda rng: (
        EdgeFeatureGraphTask(2, 2, 2, symmetric_edge_features=[0]),
        *_graphs(rng, 5, True),
    ),
    "LatentMulticlassTask": lambda rng: (
        LatentMulticlassTask(2, 2, 3),
        rng.normal(size=(10, 3)),
        rng.integers(0, 2, 10),
    ),
    "SemiMarkovTask": lambda rng: (
        SemiMarkovTask(2, 2, max_length=2, loss="segments"),
        *_sequences(rng, 8, 2, 2),
    ),
    "LatentChainTask": lambda rng: (
        LatentChainTask(2, 2, 2),
        *_sequences(rng, 5, 2, 2, lengths=(3, 4)),
    ),
}


def _fitted(name, **options):
    task, X, Y = PROBLEMS[name](np.random.default_rng(0))
    if name.startswith("Latent"):
        model = LatentStructuredSVM(task, max_outer=2, random_state=0)
    else:
        model = StructuredSVM(task, solver="1-slack", max_iter=5, **options)
    return quietly(model.fit, X, Y), X


def quietly(fit, *args):
    """Run a fit, ignoring the warnings of a fit stopped early."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args)


def _same_predictions(before, after):
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


def test_every_ready_made_task_is_tried():
    ready_made = {
        name
        for name in tasks.__all__
        if inspect.isclass(getattr(tasks, name)) and issubclass(getattr(tasks, name), Task)
    }
    assert ready_made == set(PROBLEMS)


@pytest.mark.parametrize("name", PROBLEMS)
def test_a_model_of_every_ready_made_task_predicts_the_same_after_save_and_load(name, tmp_path):
    model, X = _fitted(name)
    path = tmp_path / f"{name}.model"
    save(model, path)
    restored = load(path)
    assert type(restored) is type(model) and type(restored.task) is type(model.task)
    assert restored.get_params(deep=False).keys() == model.get_params(deep=False).keys()
    np.testing.assert_array_equal(restored.w_, model.w_)
    _same_predictions(model.predict(X), restored.predict(X))


def test_the_header_names_estimator_task_and_their_parameters(tmp_path, model_archive):
    model, _ = _fitted("ChainTask")
    save(model, tmp_path / "chain.model")
    header = model_archive(tmp_path / "chain.model").header
    assert header["format"] == "structsvm-model" and header["version"] == 1
    assert header["kind"] == "model"
    assert header["structsvm_version"] == structsvm.__version__
    assert (header["class"], header["task"]) == ("structsvm.StructuredSVM", "tasks.ChainTask")
    root = header["root"]["object"]
    assert root["params"]["C"] == 1.0 and root["params"]["solver"] == "1-slack"
    task = root["params"]["task"]["object"]
    assert task["class"] == "tasks.ChainTask"
    assert task["params"]["n_labels"] == 3 and task["params"]["start_end"] is True
    assert "w_" in root["attributes"] and "dual_state_" not in root["attributes"]


def test_a_model_file_leaves_out_the_solver_state_and_a_checkpoint_keeps_it(tmp_path):
    model, _ = _fitted("ChainTask")
    save(model, tmp_path / "m")
    model.save_checkpoint(tmp_path / "c")
    saved = load(tmp_path / "m")
    assert not hasattr(saved, "dual_state_") and not hasattr(saved, "_resumable_state")
    checkpoint = StructuredSVM.load_checkpoint(tmp_path / "c")
    assert checkpoint.warm_start and checkpoint.dual_state_ is not None


def test_a_parallel_task_round_trips(tmp_path):
    task, X, Y = PROBLEMS["MulticlassTask"](np.random.default_rng(1))
    model = StructuredSVM(ParallelTask(task, n_jobs=1), max_iter=3)
    quietly(model.fit, X, Y)
    save(model, tmp_path / "m")
    restored = load(tmp_path / "m")
    assert isinstance(restored.task, ParallelTask)
    _same_predictions(model.predict(X), restored.predict(X))


def test_an_ocr_chain_model_file_is_its_weights_and_a_few_kilobytes(tmp_path):
    data = load_ocr_letters()
    model = StructuredSVM(ChainTask(26, 128), solver="1-slack", max_iter=10)
    quietly(model.fit, data.X[:40], data.Y[:40])
    path = tmp_path / "ocr.model"
    save(model, path)
    assert model.w_.nbytes == 8 * (26 * 128 + 26 * 26)
    assert os.path.getsize(path) <= model.w_.nbytes + 8 * 1024
    _same_predictions(model.predict(data.X[:40]), load(path).predict(data.X[:40]))


# ------------------------------------------------------------------------ a user's own task
class PairTask(MulticlassTask):
    """A user's subclass of a ready-made task, with an attribute of its own."""

    def __init__(self, n_features, scale):
        super().__init__(2, n_features)
        self.scale = scale


def _pair_model():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(10, 2)), rng.integers(0, 2, 10)
    return quietly(StructuredSVM(PairTask(2, scale=2.0), max_iter=3).fit, X, Y), X


def test_a_users_task_is_refused_unless_its_class_is_passed(tmp_path):
    model, X = _pair_model()
    save(model, tmp_path / "m")
    name = f"{PairTask.__module__}.PairTask"
    with pytest.raises(ModelFileError, match=rf"the class '{name}' is not one of structsvm's"):
        load(tmp_path / "m")
    restored = load(tmp_path / "m", task_classes=[PairTask])
    assert type(restored.task) is PairTask and restored.task.scale == 2.0
    _same_predictions(model.predict(X), restored.predict(X))


def test_register_refuses_what_it_cannot_register():
    with pytest.raises(ValueError, match="needs no registering"):
        register(ChainTask)
    with pytest.raises(TypeError, match="a class or a function"):
        register(3)


def test_save_refuses_what_a_model_file_cannot_hold_by_attribute(tmp_path):
    model, _ = _pair_model()
    model.task.scale = lambda x: x
    with pytest.raises(ValueError, match=r"StructuredSVM\.task\.scale: the function .* registered"):
        save(model, tmp_path / "m")
    assert not (tmp_path / "m").exists()
    model.task.scale = {1: "a"}
    with pytest.raises(ValueError, match="a dict key of type int"):
        save(model, tmp_path / "m")


def test_odd_values_round_trip(tmp_path):
    model, _ = _pair_model()
    odd = {
        "big": 2**100,
        "inf": [float("inf"), -float("inf")],
        "bytes": b"\x00\xff",
        "set": {(1, b"k"), (2, b"l")},
        "frozenset": frozenset({"a"}),
        "tuple": (1, (2.5, None)),
        "scalar": np.float32(1.5),
        "strings": np.array(["ab", "c"]),
        "objects": np.array(["ab", 3, None], dtype=object),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "rng": np.random.default_rng(5),
        "legacy": np.random.RandomState(7),
        "records": [{"a": 1, "b": 0.5, "c": True}, {"a": 2, "b": float("nan"), "c": False}],
        "matrix": np.asmatrix(np.eye(2)),
    }
    odd["same"] = odd["fortran"]
    model.task.scale = odd
    save(model, tmp_path / "m")
    back = load(tmp_path / "m", task_classes=[PairTask]).task.scale
    assert back["big"] == 2**100 and back["inf"] == odd["inf"] and back["bytes"] == b"\x00\xff"
    assert back["set"] == odd["set"] and back["frozenset"] == odd["frozenset"]
    assert back["tuple"] == odd["tuple"]
    assert back["scalar"].dtype == np.float32 and back["scalar"] == 1.5
    np.testing.assert_array_equal(back["strings"], odd["strings"])
    assert back["objects"].dtype == object and list(back["objects"]) == ["ab", 3, None]
    np.testing.assert_array_equal(back["fortran"], odd["fortran"])
    assert back["same"] is back["fortran"]
    assert back["rng"].random() == odd["rng"].random()
    assert back["legacy"].normal() == odd["legacy"].normal()
    assert back["records"][0] == odd["records"][0]
    assert type(back["records"][1]["a"]) is int and np.isnan(back["records"][1]["b"])
    assert type(back["matrix"]) is np.ndarray and np.array_equal(back["matrix"], np.eye(2))


# ------------------------------------------------------------------------ hostile files
class WritesMarker:
    """Unpickling it creates the marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (os.fspath(self.marker), "w"))


@pytest.fixture
def saved(tmp_path):
    """The path of a model file of a small multiclass model."""
    model, _ = _fitted("MulticlassTask")
    path = tmp_path / "good.model"
    save(model, path)
    return path


def _refused(path, *phrases):
    with pytest.raises(ModelFileError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(os.fspath(path)), message
    for phrase in phrases:
        assert phrase in message, message
    return message


def test_a_pickle_is_refused_and_never_unpickled(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(WritesMarker(marker)))
    _refused(path, "not a structsvm model file")
    assert not marker.exists()


def test_a_pickled_array_member_is_refused_and_never_unpickled(tmp_path, saved, model_archive):
    marker = tmp_path / "marker"
    archive = model_archive(saved)
    payload = np.empty(1, dtype=object)
    payload[0] = WritesMarker(marker)
    member = tmp_path / "payload.npy"
    np.save(member, payload, allow_pickle=True)
    raw = member.read_bytes()
    archive.members["arrays/0.npy"] = raw
    entry = archive.header["arrays"][0]
    entry.update(bytes=len(raw), sha256=hashlib.sha256(raw).hexdigest())
    _refused(archive.write(tmp_path / "payload.model"), "array 0")  # its dtype and size differ
    entry.update(dtype="|O", shape=[1])
    _refused(archive.write(tmp_path / "object.model"), "dtype '|O' is not allowed")
    entry.update(dtype="<f8", shape=[len(raw) // 8 - 16])
    _refused(archive.write(tmp_path / "claimed.model"), "array 0")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("node", "phrase"),
    [
        ({"object": {"class": "os.system", "id": 0, "params": {}, "attributes": {}}}, "os.system"),
        (
            {"object": {"class": "subprocess.Popen", "id": 0, "params": {}, "attributes": {}}},
            "subprocess.Popen",
        ),
        ({"function": "os.system"}, "'os.system' is not a registered function"),
        ({"function": "builtins.eval"}, "'builtins.eval' is not a registered function"),
        ({"class": "subprocess.Popen"}, "subprocess.Popen"),
        ({"named tuple": {"class": "os.stat_result", "fields": {}}}, "os.stat_result"),
        (
            {"object": {"class": "builtins.RuntimeError", "id": 0, "params": {}, "attributes": {}}},
            "not rebuilt from attributes",
        ),
        (
            {"method": {"of": {"ref": 0}, "name": "__class__"}},
            "StructuredSVM has no method '__class__'",
        ),
        ({"pickle": "gASV"}, "unknown kind of value 'pickle'"),
    ],
    ids=[
        "os.system",
        "Popen",
        "function",
        "eval",
        "class",
        "named tuple",
        "exception",
        "method",
        "pickle",
    ],
)
def test_a_header_naming_a_class_or_function_outside_the_registry_is_refused(
    node, phrase, tmp_path, saved, model_archive
):
    marker = tmp_path / "marker"
    archive = model_archive(saved)
    archive.header["root"]["object"]["attributes"]["hostile"] = node
    if "object" in node:
        node["object"]["attributes"]["args"] = [f"touch {marker}"]
        node["object"]["id"] = 2
    message = _refused(archive.write(tmp_path / "hostile.model"), phrase)
    assert "hostile" in message  # where in the header
    assert not marker.exists()


def test_a_method_of_a_registered_object_must_be_a_plain_method(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    archive.header["root"]["object"]["attributes"]["hostile"] = {
        "method": {"of": {"ref": 0}, "name": "n_features_in_"}
    }
    _refused(archive.write(tmp_path / "h.model"), "has no method 'n_features_in_'")


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    bomb = tmp_path / "bomb.model"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for name, data in archive.members.items():
            out.writestr(name, data)
        with out.open("arrays/99.npy", "w") as member:
            block = bytes(2**20)
            for _ in range(256):  # 256 MiB of zeros, a few hundred kB compressed
                member.write(block)
    assert os.path.getsize(bomb) < 2**20
    _refused(bomb, "is compressed")


def test_a_member_claiming_more_than_the_file_holds_is_refused(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    archive.header["arrays"][0]["shape"] = [2**40]
    _refused(archive.write(tmp_path / "big.model"), "array 0", "cannot hold")


def test_a_newer_format_version_is_refused_saying_so(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    archive.header["version"] = 2
    _refused(archive.write(tmp_path / "v2.model"), "format version 2", "upgrade structsvm")


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        (lambda e: e.update(shape=[e["shape"][0] + 1, *e["shape"][1:]]), "the header says"),
        (lambda e: e.update(dtype="<f4" if e["dtype"] != "<f4" else "<f8"), "array 0"),
        (lambda e: e.update(bytes=e["bytes"] + 8), "the header says"),
        (lambda e: e.update(sha256="0" * 64), "does not match its SHA-256 digest"),
        (lambda e: e.pop("sha256"), "must have the fields"),
    ],
    ids=["shape", "dtype", "size", "digest", "missing field"],
)
def test_arrays_not_matching_the_header_are_refused(change, phrase, tmp_path, saved, model_archive):
    archive = model_archive(saved)
    change(archive.header["arrays"][0])
    _refused(archive.write(tmp_path / "changed.model"), phrase)


def test_a_tampered_array_is_refused(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    raw = bytearray(archive.members["arrays/0.npy"])
    raw[-1] ^= 0x01
    archive.members["arrays/0.npy"] = bytes(raw)
    _refused(archive.write(tmp_path / "tampered.model"), "SHA-256")
    data = bytearray(saved.read_bytes())  # a byte flipped in place fails the zip's CRC-32
    offset = data.index(b"NUMPY") + 200
    data[offset] ^= 0x01
    (tmp_path / "flipped.model").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"flipped\.model"):
        load(tmp_path / "flipped.model")


def test_a_truncated_file_is_refused_at_every_length(tmp_path, saved):
    data = saved.read_bytes()
    path = tmp_path / "cut.model"
    for length in np.linspace(0, len(data) - 1, 25).astype(int):
        path.write_bytes(data[:length])
        _refused(path)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"", "not a zip archive"),
        (b"plain text\n", "not a zip archive"),
        (None, "holds no header.json"),  # a NumPy .npz
    ],
    ids=["empty", "text", "npz"],
)
def test_a_foreign_file_is_refused(content, phrase, tmp_path):
    path = tmp_path / "foreign.model"
    if content is None:
        np.savez(path, w=np.zeros(3))
        path = tmp_path / "foreign.model.npz"
    else:
        path.write_bytes(content)
    _refused(path, phrase)


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        (lambda h: h.update(format="other"), "format 'other'"),
        (lambda h: h.update(kind="script"), "unknown kind 'script'"),
        (lambda h: h.update(extra=1), "unknown field(s) extra"),
        (lambda h: h.pop("root"), "lacks root"),
        (lambda h: h["root"]["object"].update(id=5), "out of sequence"),
        (lambda h: h["root"]["object"]["attributes"].update(w_={"array": 99}), "array 99"),
        (lambda h: h["root"]["object"]["attributes"].update(w_={"ref": 7}), "object 7"),
        (lambda h: h["root"]["object"]["attributes"].update(w_={"int": "1e9"}), "malformed"),
        (lambda h: h["root"]["object"]["attributes"].update(w_={"a": 1, "b": 2}), "several"),
        (lambda h: h["root"]["object"]["attributes"].update(w_=2**70), "beyond int64"),
    ],
    ids=[
        "format",
        "kind",
        "extra field",
        "no root",
        "id",
        "missing array",
        "forward reference",
        "integer",
        "node",
        "huge integer",
    ],
)
def test_a_malformed_header_is_refused(change, phrase, tmp_path, saved, model_archive):
    archive = model_archive(saved)
    change(archive.header)
    _refused(archive.write(tmp_path / "malformed.model"), phrase)


def test_extra_duplicate_and_compressed_members_are_refused(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    archive.members["notes.txt"] = b"hello"
    _refused(archive.write(tmp_path / "extra.model"), "do not match the header")
    del archive.members["notes.txt"]
    _refused(
        archive.write(tmp_path / "deflated.model", compression=zipfile.ZIP_DEFLATED), "compressed"
    )
    path = archive.write(tmp_path / "twice.model")
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "a") as out:
        out.writestr("arrays/0.npy", archive.members["arrays/0.npy"])
    _refused(path, "occurs twice")


def test_a_header_that_is_not_json_is_refused(tmp_path, saved, model_archive):
    archive = model_archive(saved)
    path = archive.write(tmp_path / "nan.model")
    text = json.dumps(archive.header).replace('"C": 1.0', '"C": NaN')
    with zipfile.ZipFile(path, "w") as out:
        for name, data in archive.members.items():
            out.writestr(name, text if name == "header.json" else data)
    _refused(path, "not valid JSON")
    nested = "[" * 100_000 + "]" * 100_000
    with zipfile.ZipFile(path, "w") as out:
        for name, data in archive.members.items():
            out.writestr(name, nested if name == "header.json" else data)
    _refused(path, "nests values too deeply")
