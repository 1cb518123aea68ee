"""Model files: a fitted estimator in one zip archive of a JSON header and .npy arrays.

:func:`save` writes an estimator (with its task, parameters and fitted attributes) and
:func:`load` reads it back. The file holds no code: the header names every object's class
from the closed registry of :mod:`structsvm.io._registry` and its attributes as JSON nodes
(:mod:`structsvm.io._object_graph`); the arrays are uncompressed ``.npy`` members read with
``np.load(..., allow_pickle=False)``. Loading checks everything it reads against the header
(format and version, member names, sizes, dtypes, shapes and SHA-256 digests) before trusting
it, and refuses any fault with a :class:`ModelFileError` naming the file. The format is
specified in ``docs/user_guide/model_files.rst``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Iterable
from typing import IO, Any

import numpy as np

from structsvm.io._atomic import write_atomically
from structsvm.io._object_graph import GraphDecoder, GraphEncoder, GraphError, check_array_dtype
from structsvm.io._registry import name_of_class, qualified_name

FORMAT = "structsvm-model"
"""The ``format`` field of every header."""

VERSION = 1
"""The format version this structsvm writes and the newest it reads."""

HEADER = "header.json"
"""The header's member name."""

KINDS = ("model", "checkpoint")
"""What a file holds: a model to predict with, or a checkpoint to continue a fit from."""

MAX_HEADER_BYTES = 256 * 2**20
"""The largest header read."""

_NPY_HEADER_BYTES = 2**16 + 16
"""An upper bound on the bytes of a .npy member beyond its data (magic, version, header)."""

_HEADER_FIELDS = (
    "format",
    "version",
    "structsvm_version",
    "kind",
    "class",
    "task",
    "root",
    "arrays",
)
_ARRAY_FIELDS = ("dtype", "shape", "bytes", "sha256")


class ModelFileError(ValueError):
    """A file that is not a model file this structsvm reads, or a damaged one.

    The message starts with the file's name, e.g. ``"svm.model: array 3 does not match its
    SHA-256 digest (damaged or altered)"``.

    Attributes
    ----------
    path : str
        The file, as given.
    reason : str
        What is wrong, without the file's name.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def array_member(index: int) -> str:
    """Return the member name of array ``index``."""
    return f"arrays/{index}.npy"


def save(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted (or unfitted) estimator to a model file.

    The file holds the estimator's class, parameters and fitted attributes, with its task;
    what only continuing the fit needs (the solver's dual state) is left out, so the file is
    about the size of the weights. It is written to a temporary file in the same directory
    and moved over ``path`` in one step. Read it with :func:`load`.

    Raises
    ------
    ValueError
        If the estimator holds something a model file cannot: a function or callable that is
        not registered, an object array of such values, a dict with non-str keys... The
        message names the attribute.
    """
    write_atomically(path, lambda stream: write_model_file(estimator, stream, kind="model"))


def load(path: str | os.PathLike[str], *, task_classes: Iterable[type] = ()) -> Any:
    """Read an estimator from a model file written by :func:`save` (or a checkpoint).

    No code is run to load it: every class the file names must be one of structsvm's own or
    registered (:func:`register`), and objects are rebuilt from their attributes.

    Parameters
    ----------
    path : str or path-like
        The model file.
    task_classes : iterable of classes, optional
        Your own classes the file may name (a task of yours, its helpers), beside the
        registered ones; they are matched by ``module.qualname``.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError
        If there is no readable file at ``path``.
    ModelFileError
        If the file is not a model file, was written by a newer format version, is
        truncated, damaged or altered, or names a class that is neither structsvm's nor
        registered nor passed; the message names the file and the fault.
    """
    return read_model_file(path, task_classes=task_classes)[0]


def write_model_file(obj: Any, stream: IO[bytes], *, kind: str) -> None:
    """Write ``obj`` as a model file of ``kind`` ("model" or "checkpoint") to a binary stream."""
    from structsvm import __version__

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    encoder = GraphEncoder(checkpoint=kind == "checkpoint")
    try:
        root = encoder.encode(obj, type(obj).__name__)
    except GraphError as error:
        raise ValueError(f"cannot write {type(obj).__name__} to a model file: {error}") from None
    entries = []
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for index, array in enumerate(encoder.arrays):
            digest = _Digest()
            large = array.nbytes + _NPY_HEADER_BYTES >= zipfile.ZIP64_LIMIT
            with archive.open(array_member(index), "w", force_zip64=large) as member:
                np.lib.format.write_array(_Tee(member, digest), array, allow_pickle=False)
            entries.append(
                {
                    "dtype": array.dtype.str,
                    "shape": list(array.shape),
                    "bytes": digest.size,
                    "sha256": digest.hash.hexdigest(),
                }
            )
        task = getattr(obj, "task", None)
        header = {
            "format": FORMAT,
            "version": VERSION,
            "structsvm_version": __version__,
            "kind": kind,
            "class": name_of_class(type(obj)),
            "task": None if task is None else name_of_class(type(task)),
            "root": root,
            "arrays": entries,
        }
        # ASCII, with \u escapes: also a str holding lone surrogates is written
        text = json.dumps(header, allow_nan=False, separators=(",", ":"))
        archive.writestr(HEADER, text.encode("utf-8"))


class _Digest:
    """The SHA-256 digest and size of the bytes written through a :class:`_Tee`."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.size = 0


class _Tee:
    """A writable stream that also feeds what it writes to a :class:`_Digest`."""

    def __init__(self, stream: IO[bytes], digest: _Digest) -> None:
        self.stream = stream
        self.digest = digest

    def write(self, data: bytes | memoryview) -> int:
        self.digest.hash.update(data)
        self.digest.size += len(memoryview(data).cast("B"))
        return self.stream.write(data)


def read_model_file(
    path: str | os.PathLike[str], *, task_classes: Iterable[type] = ()
) -> tuple[Any, dict[str, Any]]:
    """Read a model file: return the object and the header (without its root node)."""
    extra = {qualified_name(cls): cls for cls in task_classes}
    size = os.stat(path).st_size
    with open(path, "rb") as stream:
        try:
            archive = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
            raise ModelFileError(
                path, f"not a structsvm model file: not a zip archive, or truncated ({error})"
            ) from None
        with archive:
            header = _read_header(path, archive, size)
            arrays = _read_arrays(path, archive, header["arrays"], size)
            try:
                obj = GraphDecoder(arrays, extra).decode(header["root"], "root")
            except GraphError as error:
                raise ModelFileError(path, f"at {error.where}: {error.reason}") from None
            except RecursionError:
                raise ModelFileError(path, "the header nests values too deeply") from None
    return obj, {key: value for key, value in header.items() if key != "root"}


def _fail(path: str | os.PathLike[str], condition: bool, reason: str) -> None:
    if not condition:
        raise ModelFileError(path, reason)


def _read_header(path: str | os.PathLike[str], archive: zipfile.ZipFile, size: int) -> dict:
    """Check the archive's members and return its header, checked field by field."""
    infos = archive.infolist()
    names = [info.filename for info in infos]
    _fail(path, HEADER in names, f"not a structsvm model file: it holds no {HEADER}")
    _fail(path, len(set(names)) == len(names), "a member name occurs twice")
    for info in infos:
        _fail(
            path,
            info.compress_type == zipfile.ZIP_STORED and info.compress_size == info.file_size,
            f"member {info.filename} is compressed; model files store their members as they are",
        )
        _fail(path, not info.flag_bits & 0x1, f"member {info.filename} is encrypted")
        _fail(
            path,
            info.file_size <= size,
            f"member {info.filename} claims {info.file_size} bytes, more than the file holds",
        )
    _fail(
        path,
        sum(info.file_size for info in infos) <= size,
        "its members claim more bytes together than the file holds (they overlap)",
    )
    info = archive.getinfo(HEADER)
    _fail(
        path,
        info.file_size <= MAX_HEADER_BYTES,
        f"{HEADER} is larger than {MAX_HEADER_BYTES} bytes",
    )
    raw = _read_member(path, archive, HEADER)
    try:
        header = json.loads(
            raw.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant
        )
    except (UnicodeDecodeError, ValueError) as error:
        raise ModelFileError(path, f"{HEADER} is not valid JSON ({error})") from None
    except RecursionError:
        raise ModelFileError(path, f"{HEADER} nests values too deeply") from None
    _fail(path, isinstance(header, dict), f"{HEADER} is not a JSON object")
    _fail(
        path,
        header.get("format") == FORMAT,
        f"not a structsvm model file: format {header.get('format')!r}, not {FORMAT!r}",
    )
    version = header.get("version")
    _fail(path, type(version) is int and version >= 1, f"malformed format version {version!r}")
    _fail(
        path,
        version <= VERSION,
        f"written in format version {version} (structsvm {header.get('structsvm_version')}); "
        f"this structsvm reads versions up to {VERSION}: upgrade structsvm to read it",
    )
    missing = [name for name in _HEADER_FIELDS if name not in header]
    unknown = [name for name in header if name not in _HEADER_FIELDS]
    _fail(path, not missing, f"the header lacks {', '.join(missing)}")
    _fail(path, not unknown, f"the header has unknown field(s) {', '.join(unknown)}")
    _fail(path, header["kind"] in KINDS, f"unknown kind {header['kind']!r}")
    entries = header["arrays"]
    _fail(path, isinstance(entries, list), "the header's arrays must be a list")
    expected = {HEADER, *(array_member(i) for i in range(len(entries)))}
    _fail(
        path,
        set(names) == expected,
        f"its members {sorted(set(names) ^ expected)} do not match the header's "
        f"{len(entries)} arrays",
    )
    return header


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a JSON object repeats a key")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _read_member(path: str | os.PathLike[str], archive: zipfile.ZipFile, name: str) -> bytes:
    """Return a member's bytes (the zip's CRC-32 is checked as it is read)."""
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ModelFileError(path, f"member {name} is damaged or truncated ({error})") from None


def _read_arrays(
    path: str | os.PathLike[str], archive: zipfile.ZipFile, entries: list[Any], size: int
) -> list[np.ndarray]:
    """Read and check every array the header lists: size, digest, dtype and shape."""
    checked = []
    for index, entry in enumerate(entries):
        where = f"array {index}"
        _fail(
            path,
            isinstance(entry, dict) and sorted(entry) == sorted(_ARRAY_FIELDS),
            f"{where}: its header entry must have the fields {', '.join(_ARRAY_FIELDS)}",
        )
        try:
            dtype = check_array_dtype(entry["dtype"], where)
        except GraphError as error:
            raise ModelFileError(path, str(error)) from None
        shape = entry["shape"]
        _fail(
            path,
            isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape),
            f"{where}: malformed shape {shape!r}",
        )
        data_bytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        declared = entry["bytes"]
        _fail(
            path,
            type(declared) is int and data_bytes <= declared <= data_bytes + _NPY_HEADER_BYTES,
            f"{where}: {declared!r} bytes cannot hold a {dtype} array of shape {tuple(shape)}",
        )
        _fail(path, declared <= size, f"{where}: claims more bytes than the file holds")
        member = array_member(index)
        _fail(
            path,
            archive.getinfo(member).file_size == declared,
            f"{where}: member {member} holds {archive.getinfo(member).file_size} bytes, "
            f"the header says {declared}",
        )
        raw = _read_member(path, archive, member)
        _fail(
            path,
            hashlib.sha256(raw).hexdigest() == entry["sha256"],
            f"{where} does not match its SHA-256 digest (damaged or altered)",
        )
        try:
            array = np.load(io.BytesIO(raw), allow_pickle=False)
        except (ValueError, OSError, EOFError) as error:
            raise ModelFileError(path, f"{where} is not a readable .npy array ({error})") from None
        _fail(path, isinstance(array, np.ndarray), f"{where} is not a .npy array")
        _fail(
            path,
            array.dtype == dtype
            and array.dtype.str == entry["dtype"]
            and list(array.shape) == shape,
            f"{where} is a {array.dtype.str} array of shape {array.shape}, the header says "
            f"{entry['dtype']} of shape {tuple(shape)}",
        )
        checked.append(array)
    return checked
