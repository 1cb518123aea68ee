"""A restricted object graph as JSON nodes and arrays, and back, without running any code.

:class:`GraphEncoder` turns a value into a JSON node, putting its arrays aside;
:class:`GraphDecoder` rebuilds the value from the node and the arrays. The values are
``None``, bool, int, float, str, lists, tuples, sets, dicts with str keys, bytes, paths,
NumPy arrays and scalars, SciPy CSR/CSC/COO matrices, NumPy random states and generators,
named tuples, objects of registered classes (:mod:`structsvm.io._registry`) with their
attributes, registered classes and functions themselves, and the methods of registered
objects. An object is rebuilt by ``cls.__new__(cls)`` and setting its attributes: no
constructor, ``__setstate__`` or property runs. Objects, random generators and arrays met
twice are written once and refer to each other as in the original (cycles included). The
node grammar is specified in the guide ``docs/user_guide/model_files.rst``.
"""

from __future__ import annotations

import base64
import inspect
import math
import pathlib
import re
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from structsvm.io._registry import find_class, find_function, name_of_class, name_of_function

ARRAY_KINDS = frozenset("biufcU")
"""dtype kinds an array may have: bool, integers, floats, complex numbers and str."""

SCALAR_KINDS = frozenset("biuf")
"""dtype kinds a NumPy scalar may have."""

INT64 = (-(2**63), 2**63 - 1)

_SPARSE = {
    cls.__name__: cls
    for cls in (
        sp.csr_matrix,
        sp.csc_matrix,
        sp.coo_matrix,
        sp.csr_array,
        sp.csc_array,
        sp.coo_array,
    )
}
_BIT_GENERATORS = {
    cls.__name__: cls
    for cls in (
        np.random.MT19937,
        np.random.PCG64,
        np.random.PCG64DXSM,
        np.random.Philox,
        np.random.SFC64,
    )
}
_RECORD_TYPES: dict[str, Callable[[float], Any]] = {"int": int, "float": float, "bool": bool}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_DIGITS = re.compile(r"-?[0-9]{1,400}")


class GraphError(ValueError):
    """A value that cannot be written, or a node that does not describe one.

    Attributes
    ----------
    where : str
        The path of the value from the root, such as ``StructuredSVM.task.label_weights``.
    reason : str
        What is wrong.
    """

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        self.reason = reason
        super().__init__(f"{where}: {reason}")


def _leaves_out(obj: Any) -> tuple[str, ...]:
    """Return the attributes a model file (not a checkpoint) leaves out of ``obj``."""
    return tuple(getattr(type(obj), "_checkpoint_only", ()))


def _holds_attributes(value: Any) -> bool:
    """Tell whether a value is an object written as its class and attributes.

    It has a ``__dict__`` and is no class or module; a callable one (a kernel, say) must be of
    a registered class, which keeps compiled functions and other code out of files.
    """
    if not hasattr(value, "__dict__") or inspect.isclass(value):
        return False
    if isinstance(value, types.ModuleType):
        return False
    return not callable(value) or find_class(name_of_class(type(value)), {}) is not None


_EXACT_INTEGER = 2**53
"""Integers up to this size are exact in a float64 table."""


def _is_record_value(value: Any) -> bool:
    kind = type(value)
    return kind in (bool, float) or (kind is int and abs(value) <= _EXACT_INTEGER)


def _is_records(value: list[Any]) -> bool:
    """Tell whether a list is of dicts with the same str keys, each a number of one type.

    Such a list (a fit's history) is written as a float64 table of one row per record.
    """
    if not value or type(value[0]) is not dict or not value[0]:
        return False
    first = value[0]
    names = list(first)
    kinds = [type(first[name]) for name in names]
    return all(type(name) is str for name in names) and all(
        type(record) is dict
        and list(record) == names
        and all(
            type(item) is kind and _is_record_value(item)
            for item, kind in zip(record.values(), kinds, strict=True)
        )
        for record in value
    )


def _init_parameters(cls: type) -> list[str]:
    """Return the names of the parameters of ``cls.__init__`` (without ``self``)."""
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return []
    return list(signature.parameters)[1:]


class GraphEncoder:
    """Turn values into JSON nodes, collecting their arrays in :attr:`arrays`.

    Parameters
    ----------
    checkpoint : bool
        Keep every attribute. If False, leave out of every object the attributes its class
        lists in ``_checkpoint_only`` (what only continuing a fit needs).
    """

    def __init__(self, *, checkpoint: bool) -> None:
        self.checkpoint = checkpoint
        self.arrays: list[np.ndarray] = []
        self._array_index: dict[int, int] = {}
        self._object_index: dict[int, int] = {}
        self._held: list[Any] = []  # keeps every memoised value alive, so ids stay unique
        self._open: set[int] = set()
        self._records_node: dict[int, Any] = {}

    def encode(self, value: Any, where: str) -> Any:
        """Return the node of ``value``; ``where`` names it in errors."""
        kind = type(value)
        if value is None or kind in (bool, str):
            return value
        if kind is int:
            return value if INT64[0] <= value <= INT64[1] else {"int": str(value)}
        if kind is float:
            return value if math.isfinite(value) else {"float": str(value)}
        if id(value) in self._object_index:
            return {"ref": self._object_index[id(value)]}
        if isinstance(value, np.ndarray):  # a subclass (memmap, matrix) as a plain array
            return self._array(value, where)
        if isinstance(value, np.generic):
            return self._scalar(value, where)
        if sp.issparse(value):
            return self._sparse(value, where)
        if kind in (np.random.RandomState, np.random.Generator):
            return self._random(value, where)
        if isinstance(value, types.MethodType):
            return self._method(value, where)
        if isinstance(value, types.FunctionType):
            name = name_of_function(value)
            if name is None:
                raise GraphError(where, f"the function {value.__qualname__} is not registered")
            return {"function": name}
        if inspect.isclass(value):
            name = name_of_class(value)
            if find_class(name, {}) is None:
                raise GraphError(where, f"the class {name} is not registered")
            return {"class": name}
        if isinstance(value, pathlib.PurePath):
            return {"path": str(value)}
        if kind is bytes:
            return {"bytes": base64.b64encode(value).decode("ascii")}
        if kind is list and _is_records(value):
            return self._records(value)
        if kind in (list, tuple, set, frozenset, dict):
            return self._container(value, where)
        if isinstance(value, tuple) and hasattr(kind, "_fields"):
            return self._named_tuple(value, where)
        if _holds_attributes(value):
            return self._object(value, where)
        raise GraphError(where, f"a {kind.__name__} is not a value a model file holds")

    def _remember(self, value: Any) -> int:
        """Give ``value`` the next object id."""
        index = len(self._object_index)
        self._object_index[id(value)] = index
        self._held.append(value)
        return index

    def _array(self, array: np.ndarray, where: str) -> Any:
        if array.dtype.kind == "O":
            items = [self.encode(item, f"{where}[{i}]") for i, item in enumerate(array.flat)]
            return {"object array": {"shape": list(array.shape), "items": items}}
        if array.dtype.kind not in ARRAY_KINDS or array.dtype.fields is not None:
            raise GraphError(where, f"arrays of dtype {array.dtype} are not written")
        if id(array) not in self._array_index:
            self._array_index[id(array)] = len(self.arrays)
            self.arrays.append(np.asarray(array))
            self._held.append(array)
        return {"array": self._array_index[id(array)]}

    def _scalar(self, value: np.generic, where: str) -> Any:
        if value.dtype.kind not in SCALAR_KINDS:
            raise GraphError(where, f"NumPy scalars of dtype {value.dtype} are not written")
        return {"scalar": {"dtype": value.dtype.str, "value": self.encode(value.item(), where)}}

    def _sparse(self, matrix: Any, where: str) -> Any:
        kind = type(matrix).__name__
        if kind not in _SPARSE:
            raise GraphError(where, f"a {kind} is not written: convert it to CSR")
        parts = (
            {"row": matrix.row, "col": matrix.col}
            if matrix.format == "coo"
            else {"indices": matrix.indices, "indptr": matrix.indptr}
        )
        return {
            "sparse": {
                "format": kind,
                "shape": list(matrix.shape),
                "data": self._array(np.asarray(matrix.data), f"{where}.data"),
                **{name: self._array(part, f"{where}.{name}") for name, part in parts.items()},
            }
        }

    def _random(self, value: np.random.RandomState | np.random.Generator, where: str) -> Any:
        if isinstance(value, np.random.RandomState):
            tag, state = "random state", value.get_state(legacy=False)
        else:
            tag, state = "generator", value.bit_generator.state
        index = self._remember(value)
        return {tag: {"id": index, "state": self.encode(state, f"{where}.state")}}

    def _method(self, method: types.MethodType, where: str) -> Any:
        name = method.__func__.__name__
        if inspect.getattr_static(type(method.__self__), name, None) is not method.__func__:
            raise GraphError(where, f"the bound method {name} is not one of its class's methods")
        return {"method": {"of": self.encode(method.__self__, f"{where}.__self__"), "name": name}}

    def _records(self, records: list[dict[str, Any]]) -> Any:
        """Write a list of records of numbers (a fit's history) as one float64 table."""
        if id(records) not in self._records_node:
            names = list(records[0])
            kinds = [type(records[0][name]).__name__ for name in names]
            table = np.array([[record[name] for name in names] for record in records], float)
            node = {
                "records": {
                    "fields": [[name, kind] for name, kind in zip(names, kinds, strict=True)],
                    "values": self._array(table.reshape(len(records), len(names)), ""),
                }
            }
            self._records_node[id(records)] = node
            self._held.append(records)
        return self._records_node[id(records)]

    def _container(self, value: Any, where: str) -> Any:
        if id(value) in self._open:
            raise GraphError(where, f"a {type(value).__name__} that contains itself")
        self._open.add(id(value))
        try:
            if isinstance(value, dict):
                for key in value:
                    if type(key) is not str:
                        raise GraphError(where, f"a dict key of type {type(key).__name__}")
                items = {key: self.encode(item, f"{where}.{key}") for key, item in value.items()}
                return {"dict": items}
            nodes = [self.encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
        finally:
            self._open.discard(id(value))
        if isinstance(value, list):
            return nodes
        return {type(value).__name__: nodes}

    def _named_tuple(self, value: Any, where: str) -> Any:
        fields = {
            name: self.encode(item, f"{where}.{name}")
            for name, item in zip(value._fields, value, strict=True)
        }
        return {"named tuple": {"class": name_of_class(type(value)), "fields": fields}}

    def _object(self, obj: Any, where: str) -> Any:
        cls = type(obj)
        if "__slots__" in vars(cls):
            raise GraphError(where, f"a {cls.__name__} keeps its state in __slots__")
        index = self._remember(obj)
        state = {
            name: value
            for name, value in vars(obj).items()
            if self.checkpoint or name not in _leaves_out(obj)
        }
        parameters = [name for name in _init_parameters(cls) if name in state]
        return {
            "object": {
                "class": name_of_class(cls),
                "id": index,
                "params": {
                    name: self.encode(state[name], f"{where}.{name}") for name in parameters
                },
                "attributes": {
                    name: self.encode(value, f"{where}.{name}")
                    for name, value in state.items()
                    if name not in parameters
                },
            }
        }


def _only_key(node: Any, where: str) -> tuple[str, Any]:
    """Return the tag and body of a tagged node (a JSON object of one key)."""
    if not isinstance(node, dict) or len(node) != 1:
        raise GraphError(where, "expected a value node, got a JSON object of several keys")
    ((tag, body),) = node.items()
    return tag, body


def _expect(condition: bool, where: str, reason: str) -> None:
    if not condition:
        raise GraphError(where, reason)


def _fields(body: Any, where: str, required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """Check that a node's body is a JSON object of exactly the given keys."""
    _expect(isinstance(body, dict), where, "expected a JSON object")
    missing = [key for key in required if key not in body]
    unknown = [key for key in body if key not in required and key not in optional]
    _expect(not missing, where, f"missing {', '.join(missing)}")
    _expect(not unknown, where, f"unknown field(s) {', '.join(unknown)}")


def _shape(node: Any, where: str) -> tuple[int, ...]:
    _expect(
        isinstance(node, list) and all(type(n) is int and 0 <= n < 2**63 for n in node),
        where,
        "a shape must be a list of non-negative integers",
    )
    return tuple(node)


class GraphDecoder:
    """Rebuild values from nodes written by :class:`GraphEncoder`.

    Parameters
    ----------
    arrays : sequence of ndarray
        The arrays the nodes refer to by index (already checked against the header).
    extra_classes : dict
        Classes the caller passed, by the name a file gives them, beside the registry.
    """

    def __init__(self, arrays: Sequence[np.ndarray], extra_classes: dict[str, type]) -> None:
        self.arrays = arrays
        self.extra_classes = extra_classes
        self._objects: list[Any] = []
        self._decoders: dict[str, Callable[[Any, str], Any]] = {
            "int": self._int,
            "float": self._float,
            "ref": self._ref,
            "array": self._array,
            "object array": self._object_array,
            "scalar": self._scalar,
            "sparse": self._sparse,
            "random state": self._random_state,
            "generator": self._generator,
            "method": self._method,
            "function": self._function,
            "path": self._path,
            "class": self._class,
            "bytes": self._bytes,
            "tuple": self._sequence(tuple),
            "set": self._sequence(set),
            "frozenset": self._sequence(frozenset),
            "dict": self._dict,
            "records": self._records,
            "named tuple": self._named_tuple,
            "object": self._object,
        }

    def decode(self, node: Any, where: str) -> Any:
        """Return the value of ``node``; ``where`` names it in errors."""
        if node is None or type(node) in (bool, str, float):
            return node
        if type(node) is int:
            _expect(INT64[0] <= node <= INT64[1], where, "an integer beyond int64 written bare")
            return node
        if type(node) is list:
            return [self.decode(item, f"{where}[{i}]") for i, item in enumerate(node)]
        tag, body = _only_key(node, where)
        decoder = self._decoders.get(tag)
        _expect(decoder is not None, where, f"unknown kind of value {tag!r}")
        return decoder(body, where)

    def _int(self, body: Any, where: str) -> int:
        _expect(type(body) is str and bool(_DIGITS.fullmatch(body)), where, "malformed integer")
        return int(body)

    def _float(self, body: Any, where: str) -> float:
        _expect(
            type(body) is str and body in _NON_FINITE, where, f"malformed non-finite float {body!r}"
        )
        return _NON_FINITE[body]

    def _ref(self, body: Any, where: str) -> Any:
        _expect(
            type(body) is int and 0 <= body < len(self._objects),
            where,
            f"a reference to object {body!r}, which comes later or does not exist",
        )
        return self._objects[body]

    def _array(self, body: Any, where: str) -> np.ndarray:
        _expect(
            type(body) is int and 0 <= body < len(self.arrays),
            where,
            f"a reference to array {body!r}, which the file does not hold",
        )
        return self.arrays[body]

    def _object_array(self, body: Any, where: str) -> np.ndarray:
        _fields(body, where, ["shape", "items"])
        shape = _shape(body["shape"], where)
        items = body["items"]
        _expect(
            isinstance(items, list) and len(items) == math.prod(shape),
            where,
            f"an object array of shape {shape} needs {math.prod(shape)} items",
        )
        array = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            array[i] = self.decode(item, f"{where}[{i}]")
        return array.reshape(shape)

    def _scalar(self, body: Any, where: str) -> np.generic:
        _fields(body, where, ["dtype", "value"])
        dtype = _dtype(body["dtype"], SCALAR_KINDS, where)
        value = self.decode(body["value"], where)
        _expect(type(value) in (bool, int, float), where, "a scalar's value must be a number")
        try:
            return dtype.type(value)
        except (OverflowError, ValueError) as error:
            raise GraphError(where, f"{value!r} is not a {dtype}: {error}") from None

    def _sparse(self, body: Any, where: str) -> Any:
        _fields(body, where, ["format", "shape", "data"], ["indices", "indptr", "row", "col"])
        cls = _SPARSE.get(body["format"]) if type(body["format"]) is str else None
        _expect(cls is not None, where, f"unknown sparse format {body['format']!r}")
        shape = _shape(body["shape"], where)
        _expect(len(shape) == 2, where, "a sparse matrix has two dimensions")
        names = ("row", "col") if cls.format == "coo" else ("indices", "indptr")
        _expect(
            set(body) == {"format", "shape", "data", *names}, where, f"{cls.__name__} needs {names}"
        )
        data, first, second = (self.decode(body[n], f"{where}.{n}") for n in ("data", *names))
        for part in (data, first, second):
            _expect(
                isinstance(part, np.ndarray) and part.ndim == 1, where, "parts must be 1-D arrays"
            )
        _expect(first.dtype.kind in "iu" and second.dtype.kind in "iu", where, "integer indices")
        try:
            if cls.format == "coo":
                matrix = cls((data, (first, second)), shape=shape)
                _expect(
                    len(first) == len(second) == len(data)
                    and all(
                        len(p) == 0 or (p.min() >= 0 and p.max() < n)
                        for p, n in zip((first, second), shape, strict=True)
                    ),
                    where,
                    "coordinates out of the shape",
                )
            else:
                matrix = cls((data, first, second), shape=shape)
                matrix.check_format(full_check=True)
        except (ValueError, TypeError, IndexError) as error:
            raise GraphError(where, f"inconsistent {cls.__name__}: {error}") from None
        return matrix

    def _random_state(self, body: Any, where: str) -> np.random.RandomState:
        _fields(body, where, ["id", "state"])
        self._check_id(body["id"], where)
        state = self.decode(body["state"], f"{where}.state")
        random = np.random.RandomState(self._bit_generator(state, where))
        try:
            random.set_state(state)
        except (ValueError, TypeError, KeyError) as error:
            raise GraphError(where, f"malformed random state: {error}") from None
        self._objects.append(random)
        return random

    def _generator(self, body: Any, where: str) -> np.random.Generator:
        _fields(body, where, ["id", "state"])
        self._check_id(body["id"], where)
        state = self.decode(body["state"], f"{where}.state")
        bit_generator = self._bit_generator(state, where)
        try:
            bit_generator.state = state
        except (ValueError, TypeError, KeyError) as error:
            raise GraphError(where, f"malformed generator state: {error}") from None
        generator = np.random.Generator(bit_generator)
        self._objects.append(generator)
        return generator

    def _bit_generator(self, state: Any, where: str) -> np.random.BitGenerator:
        name = state.get("bit_generator") if isinstance(state, dict) else None
        _expect(
            type(name) is str and name in _BIT_GENERATORS, where, f"unknown bit generator {name!r}"
        )
        return _BIT_GENERATORS[name]()

    def _method(self, body: Any, where: str) -> Any:
        _fields(body, where, ["of", "name"])
        owner = self.decode(body["of"], f"{where}.__self__")
        name = body["name"]
        _expect(type(name) is str, where, "a method's name must be a string")
        _expect(
            any(owner is obj for obj in self._objects),
            where,
            "a method of something other than a registered object",
        )
        function = inspect.getattr_static(type(owner), name, None)
        _expect(
            isinstance(function, types.FunctionType),
            where,
            f"{type(owner).__name__} has no method {name!r}",
        )
        return types.MethodType(function, owner)

    def _function(self, body: Any, where: str) -> Any:
        function = find_function(body) if type(body) is str else None
        _expect(function is not None, where, f"{body!r} is not a registered function")
        return function

    def _path(self, body: Any, where: str) -> pathlib.Path:
        _expect(type(body) is str, where, "a path must be a string")
        return pathlib.Path(body)

    def _bytes(self, body: Any, where: str) -> bytes:
        _expect(type(body) is str, where, "bytes must be a base64 string")
        try:
            return base64.b64decode(body, validate=True)
        except ValueError as error:
            raise GraphError(where, f"malformed base64: {error}") from None

    def _sequence(self, kind: type) -> Callable[[Any, str], Any]:
        def decode(body: Any, where: str) -> Any:
            _expect(isinstance(body, list), where, f"a {kind.__name__} must be a JSON array")
            items = [self.decode(item, f"{where}[{i}]") for i, item in enumerate(body)]
            try:
                return kind(items)
            except TypeError as error:  # unhashable items of a set
                raise GraphError(where, f"malformed {kind.__name__}: {error}") from None

        return decode

    def _records(self, body: Any, where: str) -> list[dict[str, Any]]:
        _fields(body, where, ["fields", "values"])
        fields = body["fields"]
        _expect(
            isinstance(fields, list)
            and all(
                isinstance(f, list)
                and len(f) == 2
                and type(f[0]) is str
                and type(f[1]) is str
                and f[1] in _RECORD_TYPES
                for f in fields
            )
            and len({f[0] for f in fields}) == len(fields) > 0,
            where,
            "records need a list of distinct [name, type] fields, type one of int, float, bool",
        )
        table = self.decode(body["values"], f"{where}.values")
        _expect(
            isinstance(table, np.ndarray)
            and table.dtype == np.float64
            and table.ndim == 2
            and table.shape[1] == len(fields),
            where,
            f"records need a float64 table of {len(fields)} columns",
        )
        columns = []
        for (name, kind), column in zip(fields, table.T, strict=True):
            values = column.tolist()
            if kind != "float":
                _expect(
                    all(math.isfinite(v) and v == int(v) for v in values)
                    and (kind == "int" or all(v in (0.0, 1.0) for v in values)),
                    where,
                    f"field {name!r} holds values that are not {kind}",
                )
            columns.append([_RECORD_TYPES[kind](v) for v in values])
        names = [name for name, _ in fields]
        return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]

    def _dict(self, body: Any, where: str) -> dict[str, Any]:
        _expect(isinstance(body, dict), where, "a dict must be a JSON object")
        return {key: self.decode(item, f"{where}.{key}") for key, item in body.items()}

    def _class(self, name: Any, where: str) -> type:
        _expect(type(name) is str, where, "a class name must be a string")
        cls = find_class(name, self.extra_classes)
        _expect(
            cls is not None,
            where,
            f"the class {name!r} is not one of structsvm's; if it is your own, pass it to "
            "load as task_classes=[...] or register it with structsvm.io.register",
        )
        return cls

    def _named_tuple(self, body: Any, where: str) -> Any:
        _fields(body, where, ["class", "fields"])
        cls = self._class(body["class"], where)
        _expect(
            issubclass(cls, tuple) and hasattr(cls, "_fields"),
            where,
            f"{cls.__name__} is not a named tuple",
        )
        fields = body["fields"]
        _expect(
            isinstance(fields, dict) and list(fields) == list(cls._fields),
            where,
            f"{cls.__name__} has the fields {', '.join(cls._fields)}",
        )
        return tuple.__new__(cls, [self.decode(v, f"{where}.{k}") for k, v in fields.items()])

    def _check_id(self, index: Any, where: str) -> None:
        _expect(
            index == len(self._objects) and type(index) is int,
            where,
            f"object id {index!r} out of sequence (expected {len(self._objects)})",
        )

    def _object(self, body: Any, where: str) -> Any:
        _fields(body, where, ["class", "id", "params", "attributes"])
        cls = self._class(body["class"], where)
        self._check_id(body["id"], where)
        _expect(
            not issubclass(cls, (tuple, BaseException)) and "__slots__" not in vars(cls),
            where,
            f"{cls.__name__} objects are not rebuilt from attributes",
        )
        try:
            obj = cls.__new__(cls)
            vars(obj)
        except TypeError as error:
            raise GraphError(where, f"{cls.__name__} objects are not rebuilt: {error}") from None
        self._objects.append(obj)
        state = {}
        for part in ("params", "attributes"):
            _expect(isinstance(body[part], dict), where, f"{part} must be a JSON object")
            for name, node in body[part].items():
                _expect(
                    name.isidentifier() and not name.startswith("__") and name not in state,
                    where,
                    f"malformed attribute name {name!r}",
                )
                state[name] = self.decode(node, f"{where}.{name}")
        vars(obj).update(state)
        return obj


def _dtype(text: Any, kinds: frozenset[str], where: str) -> np.dtype:
    """Return the dtype a node names, which must be of one of ``kinds``."""
    _expect(type(text) is str and len(text) <= 16, where, f"malformed dtype {text!r}")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError, OverflowError):
        raise GraphError(where, f"malformed dtype {text!r}") from None
    _expect(
        dtype.kind in kinds and dtype.fields is None and dtype.subdtype is None,
        where,
        f"dtype {text!r} is not allowed",
    )
    return dtype


def check_array_dtype(text: Any, where: str) -> np.dtype:
    """Return the dtype an array entry of a header names; refuse objects and records."""
    return _dtype(text, ARRAY_KINDS, where)
