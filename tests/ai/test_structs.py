"""``pi_app.ai.util.structs`` against pydantic itself: same results, same errors (issue 20).

The module replaces pydantic models on the start path; each case below runs one value through both
(pydantic's ``TypeAdapter`` over the plain type, ``convert`` over a one-field Struct) in lax and in
strict mode, and the results or the error lists (``loc``, ``type``, ``msg``) must be equal.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, ClassVar, Literal

import msgspec
import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from pi_app.ai.util.structs import ConversionError, convert, dump, extra_values, fields_set, replace

SCALARS: list[object] = [
    None, True, False, 0, 1, 2, -1, 10**20, 10**400, 1.0, 0.0, 1.5, 2.0, -0.0,
    float("inf"), float("-inf"), float("nan"),
    "", " ", "0", "1", "2", "-1", "+5", " 3 ", "\t1\n", "\xa01", "01", "-0", "1_000", "_1", "1__0", "0_1",
    "1.0", "1.00", "1.5", "1.50", "-1.0", "1.", ".0", "+.0", "1 .0", "1.0_0", "1_0.0", "0.0", "1e3", "1.0e0",
    "0x10", "\u0663", "nan", "NaN", "inf", "-inf", "infinity", "1e400", ".5", "5.", "1e", "1.5_0",
    "true", "false", "True", "TRUE", "yes", "no", "on", "off", "t", "f", "y", "n", "Yes", "oFF", " true ",
    "header", "auto", "a", "b", "text", "image",
    [], ["a"], [1], ("a",), {"a"}, {}, {"a": 1}, {"a": "1"}, {"a": None}, {"a": [1]}, {1: 2},
]  # fmt: skip

TYPES: list[Any] = [
    str, int, float, bool, Any,
    int | None, float | None, bool | None, str | None,
    bool | str, bool | Literal["header"], str | int, str | int | None, Literal["a", "b"] | bool,
    Literal[0, 1], Literal["a", "b", "c"], Literal["text", "image"] | None, Literal["x"],
    list[str], list[Any], list[str] | None, list[Literal["text", "image"]] | None,
    dict[str, int], dict[str, str] | None, dict[str, Any], dict[str, dict[str, Any]] | None,
    dict[Literal["off", "on"], dict[str, Any]],
    Annotated[str, msgspec.Meta(min_length=1)] | None,
    Annotated[int, msgspec.Meta(gt=0)] | None,
    Annotated[int, msgspec.Meta(ge=1, le=100)] | None,
]  # fmt: skip


def _pydantic_type(tp: Any) -> Any:
    """The same type with pydantic's constraint markers instead of msgspec's."""
    text = repr(tp)
    if "min_length=1" in text:
        return Annotated[str, Field(min_length=1)] | None
    if "gt=0" in text:
        return Annotated[int, Field(gt=0)] | None
    if "ge=1" in text:
        return Annotated[int, Field(ge=1, le=100)] | None
    return tp


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _pydantic(tp: Any, value: object, strict: bool) -> tuple[str, Any]:
    try:
        return ("ok", TypeAdapter(_pydantic_type(tp)).validate_python(value, strict=strict))
    except ValidationError as exc:
        return ("errors", [(e["loc"], e["type"], e["msg"]) for e in exc.errors()])


def _ours(tp: Any, value: object, strict: bool) -> tuple[str, Any]:
    holder = msgspec.defstruct("Holder", [("v", tp)])
    try:
        return ("ok", msgspec.structs.asdict(convert({"v": value}, holder, strict=strict))["v"])
    except ConversionError as exc:
        return ("errors", [(e.loc[1:], e.type, e.msg) for e in exc.errors])


@pytest.mark.parametrize("strict", [False, True], ids=["lax", "strict"])
@pytest.mark.parametrize("tp", TYPES, ids=repr)
def test_every_value_converts_as_pydantic_converts_it(tp: Any, strict: bool) -> None:
    differences = []
    for value in SCALARS:
        theirs, ours = _pydantic(tp, value, strict), _ours(tp, value, strict)
        equal = theirs == ours if theirs[0] == "errors" else ours[0] == "ok" and _same(theirs[1], ours[1])
        if not equal:
            differences.append((value, theirs, ours))
    assert differences == []


class _Entry(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")
    old_text: str
    count: int | None = None


class _Outer(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")
    path: str
    edits: list[_Entry]
    by_key: dict[str, _Entry] | None = None
    ignore_case: bool = False


class _AllowOuter(_Outer):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class _IgnoreOuter(_Outer):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class _EntryS(msgspec.Struct, rename="camel", kw_only=True, dict=True):
    unknown_fields: ClassVar[str] = "forbid"
    populate_by_name: ClassVar[bool] = True
    old_text: str
    count: int | None = None


class _OuterS(msgspec.Struct, rename="camel", kw_only=True, dict=True):
    unknown_fields: ClassVar[str] = "forbid"
    populate_by_name: ClassVar[bool] = True
    path: str
    edits: list[_EntryS]
    by_key: dict[str, _EntryS] | None = None
    ignore_case: bool = False


class _AllowOuterS(_OuterS):
    unknown_fields: ClassVar[str] = "allow"


class _IgnoreOuterS(_OuterS):
    unknown_fields: ClassVar[str] = "ignore"


RECORDS: list[object] = [
    {"path": "a", "edits": []},
    {"path": "a", "edits": [{"oldText": "x"}], "ignoreCase": "yes"},
    {"path": "a", "edits": [{"old_text": "x", "count": "3"}], "ignore_case": 1},
    {"path": "a", "edits": [{"oldText": "x", "old_text": "y"}]},
    {"path": "a", "edits": [{"oldText": 1, "count": None}], "zz": 1, "byKey": {"k": {"oldText": "v"}}},
    {"edits": [{"count": 1.5}, "x", {"oldText": "o", "extra": True}], "aa": None, "path": None},
    {"path": "a", "edits": {"oldText": "x"}, "byKey": {"k": 1, 2: {"oldText": "v"}}},
    {"path": "a", "edits": ({"oldText": "t"},), "byKey": None, "ignoreCase": None},
    {"path": "a", "edits": [], "future": {"x": [1]}, "other": None},
    [],
    "text",
    None,
]


@pytest.mark.parametrize("strict", [False, True], ids=["lax", "strict"])
@pytest.mark.parametrize(
    ("theirs", "ours"), [(_Outer, _OuterS), (_AllowOuter, _AllowOuterS), (_IgnoreOuter, _IgnoreOuterS)]
)
def test_records_convert_and_dump_as_pydantic_models_do(
    theirs: type[BaseModel], ours: type[msgspec.Struct], strict: bool
) -> None:
    for record in RECORDS:
        try:
            model = theirs.model_validate(record, strict=strict)
        except ValidationError as exc:
            with pytest.raises(ConversionError) as info:
                convert(record, ours, strict=strict)
            expected = [(e["loc"], e["type"], e["msg"]) for e in exc.errors()]
            got = [(e.loc, e.type, re.sub(r"of (\w+)S$", r"of \1", e.msg)) for e in info.value.errors]
            assert got == expected, record
            continue
        struct = convert(record, ours, strict=strict)
        for by_alias, exclude_unset, exclude_none in (
            (False,) * 3,
            (True, False, False),
            (True, True, False),
            (False, False, True),
        ):
            options = {"by_alias": by_alias, "exclude_unset": exclude_unset, "exclude_none": exclude_none}
            theirs_dump = model.model_dump(
                by_alias=by_alias, exclude_unset=exclude_unset, exclude_none=exclude_none
            )
            ours_dump = dump(
                struct, by_alias=by_alias, exclude_unset=exclude_unset, exclude_none=exclude_none
            )
            assert ours_dump == theirs_dump, (record, options)
        assert fields_set(struct) == model.model_fields_set - set(model.model_extra or {})
        assert extra_values(struct) == (model.model_extra or {})


def test_replace_keeps_what_the_input_set() -> None:
    struct = convert({"path": "a", "edits": [], "x": 1}, _AllowOuterS)
    changed = replace(struct, ignore_case=True)
    assert fields_set(changed) == {"path", "edits", "ignore_case"} and extra_values(changed) == {"x": 1}
    built = _OuterS(path="p", edits=[], ignore_case=True)  # made in code: what differs from the defaults
    assert fields_set(built) == {"path", "edits", "ignore_case"}


def test_an_unsupported_type_is_a_programming_error() -> None:
    holder = msgspec.defstruct("Holder", [("v", set[int])])
    with pytest.raises(TypeError, match="cannot validate"):
        convert({"v": {1}}, holder)
