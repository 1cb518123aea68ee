"""A compiled function handed to other compiled code by its machine address.

Numba compiles a function that takes a dispatcher as an argument together with that
dispatcher's code: the callee's machine code is linked into the caller's and optimised again
for every caller, and the caller's on-disk cache entry depends on the callee's identity. A
:class:`NativeFunction` is instead one compiled specialisation of a dispatcher, passed as its
address: a caller calls it through a pointer with Numba's own calling convention (exceptions
propagate), so each callee is compiled once and each caller only for the callee's signature,
which is all that its cache entry depends on. Boxing one costs an attribute read per call.

The code behind the address is compiled from the dispatcher's Python function without the
wrappers that let Python (and C) call it, which are a fair share of a small function's compile
time; that compilation is a dispatcher of its own, cached on disk under its own name, and a
call from Python runs the dispatcher as it is.
"""

from __future__ import annotations

import types as pytypes
from typing import Any

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.caching import NullCache
from numba.core.datamodel import models
from numba.core.extending import NativeValue, lower_builtin, register_model, typeof_impl, unbox
from numba.core.typing.templates import Signature


class NativeFunctionType(types.Callable):
    """Numba's type of a :class:`NativeFunction`: a pointer to code of one signature."""

    def __init__(self, signature: Signature) -> None:
        self.signature = signature
        super().__init__(name=f"NativeFunction({signature})")

    def get_call_type(self, context: Any, args: tuple, kws: dict) -> Signature | None:
        """Return the call's signature if ``args`` convert to the function's arguments."""
        expected = self.signature.args
        if kws or len(args) != len(expected):
            return None
        pairs = zip(args, expected, strict=True)
        if not all(context.can_convert(given, wanted) for given, wanted in pairs):
            return None
        return Signature(self.signature.return_type, expected, recvr=self)

    def get_call_signatures(self) -> tuple[list[Signature], bool]:
        """Return the one signature, without ``*args``."""
        return [self.signature], False

    def get_impl_key(self, sig: Signature) -> type:
        """Return the key of the call's lowering, shared by every signature."""
        return NativeFunctionType


register_model(NativeFunctionType)(models.OpaqueModel)


class NativeFunction:
    """One compiled specialisation of a Numba dispatcher, as compiled code receives it.

    Parameters
    ----------
    dispatcher : numba dispatcher
        A ``numba.njit`` function.
    arguments : tuple of numba types
        The argument types to compile it for (once; the on-disk cache serves later processes).

    Attributes
    ----------
    address : int
        Where the specialisation's code begins in this process.
    numba_type : NativeFunctionType
        Its type, fixed by the argument types and the return type that compiling found.
    dispatcher : numba dispatcher
        The function, which a call from Python runs.
    """

    __slots__ = ("address", "dispatcher", "numba_type")

    def __init__(self, dispatcher: Any, arguments: tuple) -> None:
        self.dispatcher = dispatcher
        unwrapped = _unwrapped(dispatcher)
        unwrapped.compile(arguments)
        compiled = unwrapped.overloads[tuple(arguments)]
        self.address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
        self.numba_type = NativeFunctionType(compiled.signature)

    def __call__(self, *arguments: Any) -> Any:
        """Return the dispatcher's result for ``arguments`` (a call from Python)."""
        return self.dispatcher(*arguments)


#: The wrapper-less dispatcher of each dispatcher that :class:`NativeFunction` has compiled.
_UNWRAPPED: dict[Any, Any] = {}


def _unwrapped(dispatcher: Any) -> Any:
    """Return a dispatcher of ``dispatcher``'s Python function, with its options, that compiles
    no wrappers for calls from Python or C; cached on disk as ``<name>__native`` if it is."""
    if dispatcher not in _UNWRAPPED:
        function = dispatcher.py_func
        twin = pytypes.FunctionType(
            function.__code__, function.__globals__, function.__name__, function.__defaults__,
            function.__closure__,
        )
        twin.__qualname__ = f"{function.__qualname__}__native"
        twin.__module__ = function.__module__
        options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}
        _UNWRAPPED[dispatcher] = numba.njit(
            **options, cache=not isinstance(dispatcher._cache, NullCache),
            no_cpython_wrapper=True, no_cfunc_wrapper=True,
        )(twin)
    return _UNWRAPPED[dispatcher]


@typeof_impl.register(NativeFunction)
def _typeof_native_function(value: NativeFunction, context: Any) -> NativeFunctionType:
    return value.numba_type


@unbox(NativeFunctionType)
def _unbox_native_function(typ: NativeFunctionType, obj: Any, c: Any) -> NativeValue:
    address = c.pyapi.object_getattr_string(obj, "address")
    value = c.pyapi.long_as_voidptr(address)
    c.pyapi.decref(address)
    return NativeValue(value, is_error=cgutils.is_null(c.builder, value))


@lower_builtin(NativeFunctionType, types.VarArg(types.Any))
def _call_native_function(context: Any, builder: Any, sig: Signature, args: tuple) -> Any:
    target = sig.args[0].signature
    function_type = context.call_conv.get_function_type(target.return_type, target.args)
    callee = builder.bitcast(args[0], ir.PointerType(function_type))
    status, result = context.call_conv.call_function(
        builder, callee, target.return_type, target.args, args[1:]
    )
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    return result
