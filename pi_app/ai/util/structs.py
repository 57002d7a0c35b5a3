"""JSON-like data into ``msgspec.Struct``s, by pydantic v2's rules and with its error texts (issue 20).

The files and records this serves (``settings.json``, ``models.json``, RPC commands, the arguments
of the built-in tools) were validated by pydantic models until issue 20 made start-up stop
importing pydantic. Their Structs are plain containers (msgspec imports in a fraction of pydantic's
time and builds a class in microseconds), and this module validates into them the way pydantic did,
so what each of them accepts, coerces and reports stays as it was:

- ``convert(value, cls, strict=False)`` returns an instance of the Struct class ``cls`` or raises
  ``ConversionError``, whose ``errors`` list every problem as pydantic lists them: a ``loc`` path of
  keys and indexes, pydantic's error ``type`` and its ``msg`` text, fields in declaration order,
  then unknown keys.
- ``strict=False`` is pydantic's lax mode ("3" is an integer, "yes" a boolean, 1.0 a 1), ``True``
  its strict mode (a number is never a string, a boolean never a number).
- Types: Struct classes, ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``, ``Literal[...]``,
  unions (pydantic's smart mode: every member strictly, then, in lax mode, every member laxly, left
  to right; a failure lists each member's errors under its tag), ``list[X]``, ``dict[K, V]``, and
  ``Annotated[X, msgspec.Meta(...)]`` with ``min_length``, ``gt``, ``ge`` or ``le``. Any other type
  raises ``TypeError`` (a programming error, found by the first test that converts it).
- A Struct class says what happens to keys it does not declare (``unknown_fields``: ``"ignore"``,
  ``"allow"`` or ``"forbid"``, pydantic's ``extra``) and whether its Python names are accepted next
  to its encoded (camelCase) names (``populate_by_name``; the encoded name wins when both are there).
- A Struct class declared with ``dict=True`` remembers which fields the input set and the unknown
  keys it allowed, for ``dump(..., exclude_unset=True)`` (pydantic's ``model_dump``).

Why not ``msgspec.convert``: it stops at the first error and words it its own way, and its lax mode
coerces differently ("yes" is no boolean there, " 3 " no integer, ``True`` no integer).
``tests/ai/test_structs.py`` compares this module with pydantic over a corpus of values.

What it does not do: defaults are never validated (pydantic's ``validate_default=False``), an
instance of the class passes unchanged, and there is no JSON-schema generation (wire schemas are
recorded where they are sent).
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec

S = TypeVar("S", bound=msgspec.Struct)
Loc = tuple[str | int, ...]
UnknownFields = Literal["ignore", "allow", "forbid"]

_FAILED: Any = object()  # a validator's result when it appended errors
_NONE_TYPE = type(None)
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_SCALAR_TAGS = {str: "str", int: "int", float: "float", bool: "bool", _NONE_TYPE: "none"}
_BOOL_STRINGS = {
    "0": False, "off": False, "f": False, "false": False, "n": False, "no": False,
    "1": True, "on": True, "t": True, "true": True, "y": True, "yes": True,
}  # fmt: skip
_FIELDS_SET = "_fields_set"  # instance-dict keys of a ``dict=True`` Struct
_EXTRA = "_extra"


class ErrorDetail(msgspec.Struct, frozen=True):
    """One problem, as pydantic's ``ValidationError.errors()`` gives it."""

    loc: Loc
    type: str
    msg: str


class ConversionError(ValueError):
    """The value does not fit the type; ``errors`` lists every problem found."""

    def __init__(self, errors: list[ErrorDetail]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e.loc)) or 'root'}: {e.msg}" for e in errors))
        self.errors = errors


class _Field(msgspec.Struct, frozen=True):
    name: str
    alias: str
    type: Any
    required: bool


_FIELD_TABLES: dict[type[msgspec.Struct], tuple[_Field, ...]] = {}


def _fields(cls: type[msgspec.Struct]) -> tuple[_Field, ...]:
    table = _FIELD_TABLES.get(cls)
    if table is None:
        table = tuple(_Field(f.name, f.encode_name, f.type, f.required) for f in msgspec.structs.fields(cls))
        _FIELD_TABLES[cls] = table
    return table


def convert(value: object, cls: type[S], *, strict: bool = False) -> S:
    """``value`` validated into ``cls``; raises ``ConversionError`` listing every problem."""
    errors: list[ErrorDetail] = []
    result = _validate(value, cls, (), errors, strict)
    if result is _FAILED:
        raise ConversionError(errors)
    return result  # _validate of a Struct class gives an instance of it


def fields_set(obj: msgspec.Struct) -> frozenset[str]:
    """The fields ``convert`` found in the input (for a ``dict=True`` Struct it made); otherwise
    the fields whose value differs from the default (a Struct built in code)."""
    recorded = _instance_dict(obj).get(_FIELDS_SET)
    if recorded is not None:
        return frozenset(recorded)
    return frozenset(f.name for f in msgspec.structs.fields(obj) if _differs_from_default(obj, f))


def extra_values(obj: msgspec.Struct) -> dict[str, Any]:
    """The unknown keys a ``dict=True`` Struct with ``unknown_fields = "allow"`` was given."""
    return dict(_instance_dict(obj).get(_EXTRA) or {})


def replace(obj: S, **changes: Any) -> S:
    """``msgspec.structs.replace`` that keeps what ``convert`` remembered (the changed fields count
    as set, as in pydantic's ``model_copy(update=...)``)."""
    out = msgspec.structs.replace(obj, **changes)
    before, after = _instance_dict(obj), _instance_dict(out)
    if _FIELDS_SET in before:
        after[_FIELDS_SET] = frozenset(before[_FIELDS_SET]) | frozenset(changes)
    if _EXTRA in before:
        after[_EXTRA] = dict(before[_EXTRA])
    return out


def dump(
    obj: msgspec.Struct, *, by_alias: bool = False, exclude_unset: bool = False, exclude_none: bool = False
) -> dict[str, Any]:
    """Plain dicts and lists, as pydantic's ``model_dump``: declared fields in order, then allowed
    unknown keys; nested Structs the same way."""
    chosen = fields_set(obj) if exclude_unset else None
    out: dict[str, Any] = {}
    for f in _fields(type(obj)):
        if chosen is not None and f.name not in chosen:
            continue
        value = getattr(obj, f.name)
        if exclude_none and value is None:
            continue
        out[f.alias if by_alias else f.name] = _dump_value(value, by_alias, exclude_unset, exclude_none)
    for key, value in extra_values(obj).items():
        if not (exclude_none and value is None):
            out[key] = _dump_value(value, by_alias, exclude_unset, exclude_none)
    return out


def _dump_value(value: Any, by_alias: bool, exclude_unset: bool, exclude_none: bool) -> Any:
    if isinstance(value, msgspec.Struct):
        return dump(value, by_alias=by_alias, exclude_unset=exclude_unset, exclude_none=exclude_none)
    if isinstance(value, list | tuple):
        return [_dump_value(v, by_alias, exclude_unset, exclude_none) for v in value]
    if isinstance(value, dict):
        return {k: _dump_value(v, by_alias, exclude_unset, exclude_none) for k, v in value.items()}
    return value


def _instance_dict(obj: msgspec.Struct) -> dict[str, Any]:
    return obj.__dict__ if type(obj).__struct_config__.dict else {}


def _differs_from_default(obj: msgspec.Struct, f: msgspec.structs.FieldInfo) -> bool:
    if f.required:
        return True
    default = f.default_factory() if f.default is msgspec.NODEFAULT else f.default
    return bool(getattr(obj, f.name) != default)


# ---------------------------------------------------------------------------------------------
# Validators: each returns the converted value, or appends its errors and returns _FAILED
# ---------------------------------------------------------------------------------------------


def _fail(errors: list[ErrorDetail], loc: Loc, kind: str, msg: str) -> Any:
    errors.append(ErrorDetail(loc, kind, msg))
    return _FAILED


def _validate(value: Any, tp: Any, loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if tp is str:  # lax or strict: a number is never a string
        if isinstance(value, str):
            return value
        return _fail(errors, loc, "string_type", "Input should be a valid string")
    if tp is bool:
        return _bool(value, loc, errors, strict)
    if tp is int:
        return _int(value, loc, errors, strict)
    if tp is float:
        return _float(value, loc, errors, strict)
    if tp is Any or tp is object:
        return value
    if tp is _NONE_TYPE or tp is None:
        return None if value is None else _fail(errors, loc, "none_required", "Input should be None")
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _struct(value, tp, loc, errors, strict)
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        return _union(value, get_args(tp), loc, errors, strict)
    if origin is Literal:
        return _literal(value, get_args(tp), loc, errors, strict)
    if origin is list:
        return _list(value, get_args(tp)[0], loc, errors, strict)
    if origin is dict:
        key_type, value_type = get_args(tp)
        return _dict(value, key_type, value_type, loc, errors, strict)
    if origin is Annotated:
        base, *metadata = get_args(tp)
        result = _validate(value, base, loc, errors, strict)
        if result is _FAILED:
            return result
        for meta in metadata:
            if isinstance(meta, msgspec.Meta) and not _meets(result, meta, loc, errors):
                return _FAILED
        return result
    raise TypeError(f"pi_app.ai.util.structs cannot validate {tp!r}")


def _bool(value: Any, loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if isinstance(value, bool):
        return value
    if not strict:
        if isinstance(value, str):
            parsed = _BOOL_STRINGS.get(value.lower())
            if parsed is not None:
                return parsed
            return _fail(
                errors, loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input"
            )
        if isinstance(value, int) and not _I64_MIN <= value <= _I64_MAX:
            return _fail(errors, loc, "bool_type", "Input should be a valid boolean")
        if isinstance(value, int | float) and (isinstance(value, int) or value.is_integer()):
            if value in (0, 1):
                return value == 1
            return _fail(
                errors, loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input"
            )
    return _fail(errors, loc, "bool_type", "Input should be a valid boolean")


def _int(value: Any, loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not strict:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                return _fail(errors, loc, "finite_number", "Input should be a finite number")
            if not value.is_integer():
                return _fail(
                    errors,
                    loc,
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                )
            return int(value)
        if isinstance(value, str):
            parsed = _parse_int(value)
            if parsed is None:
                return _fail(
                    errors,
                    loc,
                    "int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer",
                )
            return parsed
    return _fail(errors, loc, "int_type", "Input should be a valid integer")


def _parse_int(text: str) -> int | None:
    """pydantic's reading of an integer string: surrounding whitespace, a sign, ``_`` between
    digits, and a fraction of zeros only (``"1.0"``); ASCII digits only."""
    digits = text.strip()
    if "." in digits:
        digits, _, fraction = digits.partition(".")
        if not fraction or fraction.strip("0"):
            return None
    if not digits.isascii() or digits != digits.strip():
        return None
    try:
        return int(digits)
    except ValueError:
        return None


def _float(value: Any, loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and (not isinstance(value, bool) or not strict):
        try:
            return float(value)
        except OverflowError:
            pass
    elif isinstance(value, str) and not strict:
        text = value.strip()
        try:
            if text.isascii():
                return float(text)
        except ValueError:
            pass
        return _fail(
            errors, loc, "float_parsing", "Input should be a valid number, unable to parse string as a number"
        )
    return _fail(errors, loc, "float_type", "Input should be a valid number")


def _meets(value: Any, meta: msgspec.Meta, loc: Loc, errors: list[ErrorDetail]) -> bool:
    if meta.min_length is not None and len(value) < meta.min_length:
        plural = "" if meta.min_length == 1 else "s"
        _fail(
            errors,
            loc,
            "string_too_short",
            f"String should have at least {meta.min_length} character{plural}",
        )
        return False
    for bound, kind, words, ok in (
        (meta.gt, "greater_than", "greater than", lambda b: value > b),
        (meta.ge, "greater_than_equal", "greater than or equal to", lambda b: value >= b),
        (meta.le, "less_than_equal", "less than or equal to", lambda b: value <= b),
    ):
        if bound is not None and not ok(bound):
            _fail(errors, loc, kind, f"Input should be {words} {bound}")
            return False
    return True


def _literal(value: Any, choices: tuple[Any, ...], loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    """Exact matches; integer choices also take a boolean or a whole float, in strict mode too
    (pydantic's literal validator), and refuse an integer beyond 64 bits with their own text."""
    candidate = value
    if any(type(c) is int for c in choices):
        if isinstance(value, bool) or (isinstance(value, float) and value.is_integer()):
            candidate = int(value)
        elif isinstance(value, int) and not _I64_MIN <= value <= _I64_MAX:
            return _fail(
                errors,
                loc,
                "int_parsing_size",
                "Unable to parse input string as an integer, exceeded maximum size",
            )
    for choice in choices:
        if type(choice) is type(candidate) and choice == candidate:
            return choice
    shown = [repr(c) for c in choices]
    expected = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return _fail(errors, loc, "literal_error", f"Input should be {expected}")


def _union(value: Any, members: tuple[Any, ...], loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if _NONE_TYPE in members:  # pydantic's nullable schema: None, or the rest without a tag
        if value is None:
            return None
        rest = tuple(m for m in members if m is not _NONE_TYPE)
        if len(rest) == 1:
            return _validate(value, rest[0], loc, errors, strict)
        members = rest
    for lax in (False, True) if not strict else (False,):
        for member in members:
            result = _validate(value, member, loc, [], strict=not lax)
            if result is not _FAILED:
                return result
    for member in members:
        _validate(value, member, (*loc, _tag(member)), errors, strict)
    return _FAILED


def _tag(tp: Any) -> str:
    """The name pydantic gives a union member in an error's ``loc``."""
    if tp in _SCALAR_TAGS:
        return _SCALAR_TAGS[tp]
    if tp is Any:
        return "any"
    if isinstance(tp, type):
        return tp.__name__
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return f"literal[{','.join(repr(a) for a in args)}]"
    if origin is Annotated:
        return _tag(args[0])
    return f"{getattr(origin, '__name__', origin)}[{','.join(_tag(a) for a in args)}]"


def _list(value: Any, item_type: Any, loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if not isinstance(value, list) and (strict or not isinstance(value, tuple | set | frozenset)):
        return _fail(errors, loc, "list_type", "Input should be a valid list")
    out = [_validate(item, item_type, (*loc, index), errors, strict) for index, item in enumerate(value)]
    return _FAILED if any(item is _FAILED for item in out) else out


def _dict(
    value: Any, key_type: Any, value_type: Any, loc: Loc, errors: list[ErrorDetail], strict: bool
) -> Any:
    if not isinstance(value, dict if strict else Mapping):
        return _fail(errors, loc, "dict_type", "Input should be a valid dictionary")
    out: dict[Any, Any] = {}
    failed = False
    for key, item in value.items():
        new_key = _validate(key, key_type, (*loc, key, "[key]"), errors, strict)
        new_item = _validate(item, value_type, (*loc, key), errors, strict)
        if new_key is _FAILED or new_item is _FAILED:
            failed = True
        else:
            out[new_key] = new_item
    return _FAILED if failed else out


def _struct(value: Any, cls: type[msgspec.Struct], loc: Loc, errors: list[ErrorDetail], strict: bool) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict if strict else Mapping):
        return _fail(
            errors, loc, "model_type", f"Input should be a valid dictionary or instance of {cls.__name__}"
        )
    by_name: bool = getattr(cls, "populate_by_name", False)
    unknown: UnknownFields = getattr(cls, "unknown_fields", "ignore")
    kwargs: dict[str, Any] = {}
    used: set[str] = set()
    failed = False
    for f in _fields(cls):
        if f.alias in value:
            key = f.alias
        elif by_name and f.name in value:
            key = f.name
        else:
            if f.required:
                _fail(errors, (*loc, f.alias), "missing", "Field required")
                failed = True
            continue
        used.add(key)
        result = _validate(value[key], f.type, (*loc, key), errors, strict)
        if result is _FAILED:
            failed = True
        else:
            kwargs[f.name] = result
    extra: dict[str, Any] = {}
    if unknown != "ignore":
        for key, item in value.items():
            if key in used:
                continue
            if unknown == "forbid":
                _fail(errors, (*loc, key), "extra_forbidden", "Extra inputs are not permitted")
                failed = True
            else:
                extra[key] = item
    if failed:
        return _FAILED
    obj = cls(**kwargs)
    if cls.__struct_config__.dict:
        obj.__dict__[_FIELDS_SET] = frozenset(kwargs)
        if extra:
            obj.__dict__[_EXTRA] = extra
    return obj
