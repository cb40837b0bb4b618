"""Arguments of the wrong type, named by their keyword (docs/python.md, "Errors").

pybind11 refuses an argument its C++ type cannot take (`partial="yes"`, `replicas="2"`) with
"incompatible function arguments" and a dump of every overload. The extension's functions
are wrapped so that such a refusal names the keyword and what it takes instead
(`TypeError: partial must be True or False, got str`); the values' bounds stay the
library's, checked once behind the front door.
"""
import functools
import numbers
import re

import numpy as np

_SIGNATURE = re.compile(r"^\s*1\. \((?P<params>.*)\) ->", re.M)


def _parameters(message):
    """[(name, type)] of the first overload in pybind11's message, "*" left out."""
    found = _SIGNATURE.search(message)
    if not found:
        return []
    params, depth, current = [], 0, ""
    for ch in found.group("params") + ",":
        if ch == "," and depth == 0:
            part = current.strip()
            current = ""
            if ":" in part:
                name, rest = part.split(":", 1)
                params.append((name.strip(), rest.split("=", 1)[0].strip()))
            continue
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        current += ch
    return params


def _takes(kind, value):
    """What `kind` (a pybind11 type name) takes, and whether `value` is one: (words, ok)."""
    if kind.startswith("Optional[") and kind.endswith("]"):
        words, ok = _takes(kind[len("Optional["):-1], value)
        return words + " or None", value is None or ok
    if kind == "bool":
        return "True or False", isinstance(value, (bool, np.bool_))
    if kind == "int":
        integral = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
        return "a non-negative integer", integral and value >= 0
    if kind == "float":
        return "a number", isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if kind == "str":
        return "a str", isinstance(value, str)
    if kind.startswith("List[str]"):
        return "a list of str", isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    return "", True  # views, keys, arrays, paths: their own checks name them


def _named(error, args, kwargs):
    params = _parameters(str(error))
    given = dict(zip([name for name, _ in params], args))
    given.update(kwargs)
    for name, kind in params:
        if name not in given:
            continue
        words, ok = _takes(kind, given[name])
        if not ok and words:
            value = given[name]
            # A negative count shows its value; any other miss, its type.
            negative = kind.endswith("int") or kind.endswith("int]")
            got = repr(value) if negative and isinstance(value, numbers.Integral) else type(value).__name__
            return TypeError(f"{name} must be {words}, got {got}")
    return None


def _wrapped(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            if "incompatible function arguments" not in str(error):
                raise
            named = _named(error, args, kwargs)
            if named is None:
                raise
            raise named from None
    return call


def name_argument_errors(module):
    """Wraps every function of the extension module (not its classes)."""
    for name in dir(module):
        value = getattr(module, name)
        if type(value).__name__ == "builtin_function_or_method":
            setattr(module, name, _wrapped(value))
