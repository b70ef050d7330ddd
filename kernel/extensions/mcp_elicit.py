"""A server's question for the user (MCP elicitation) as plain data, and the answer as a value.

A server may ask, mid-call, for something only a person can say (a form of a few flat fields, or
a URL to visit). The model never answers it: the kernel hands an ``ElicitQuestion`` to whoever
stands for the user (the desktop's dialog, a terminal prompt) through the ``Elicitor`` port, and
with nobody there (an unattended run) the answer is ``declined``, which the hub records. The
form's fields carry the server's defaults and choices (an ``enum``, titled options' ``const`` values in
``oneOf``/``anyOf``, and for a multiple choice the same under ``items``), which a dialog shows filled in and ``with_defaults``
applies when the person accepts without changing them. Everything here is the server's text:
untrusted, cleaned and capped before anyone shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

from ..core.json_safe import clean_text
from ..trust.untrusted import capped

MESSAGE_MAX = 2000
FIELDS_MAX = 32
Value = str | int | float | bool | list[str] | None


@dataclass(frozen=True)
class ElicitField:
    name: str
    kind: str                       # "string" · "number" · "integer" · "boolean" · "array"
    title: str = ""
    default: Value = None
    required: bool = False
    choices: tuple[str, ...] = ()
    choice_titles: tuple[str, ...] = ()  # beside ``choices``, one each: the option's title ("" when untitled)

    def choice_label(self, value: str) -> str:
        """How a choice is shown to a person: its title with the value the server gets, or the value."""
        title = dict(zip(self.choices, self.choice_titles)).get(value, "")
        return f"{title} ({value})" if title and title != value else value


@dataclass(frozen=True)
class ElicitQuestion:
    """What one server asks: a form (``fields``) or, in URL mode, a page to open (``url``)."""

    server: str
    message: str
    fields: tuple[ElicitField, ...] = ()
    url: str | None = None
    agent_id: str = ""              # whose call the server asked during ("" when that cannot be told)
    id: int = 0                     # the kernel's number for it while it waits (``answer_question``)
    agent_name: str = ""

    def with_defaults(self, given: Mapping[str, Value] | None = None) -> dict[str, Value]:
        """The answer as the person left the form: the server's defaults, overridden by what they typed."""
        out: dict[str, Value] = {f.name: f.default for f in self.fields if f.default is not None}
        out.update(given or {})
        return out


@dataclass(frozen=True)
class ElicitAnswer:
    action: str                     # "accept" · "decline" · "cancel"
    content: Mapping[str, Value] = field(default_factory=dict)


DECLINED = ElicitAnswer("decline")


class Elicitor(Protocol):
    """Who answers a server's question for the user (``DECLINED`` when nobody can)."""

    async def __call__(self, question: ElicitQuestion) -> ElicitAnswer: ...


def _default(spec: Mapping[str, Any]) -> Value:
    value = spec.get("default")
    if isinstance(value, (str, int, float, bool)) or value is None:
        return capped(clean_text(value), 1000) if isinstance(value, str) else value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [capped(clean_text(v), 200) for v in value[:FIELDS_MAX]]
    return None


def _choices(spec: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """A field's allowed values with their titles: ``enum`` (titled by ``enumNames`` where given), or the
    ``const`` and ``title`` of each titled option (``oneOf``/``anyOf``)."""
    enum = spec.get("enum")
    if isinstance(enum, list):
        names = spec.get("enumNames")
        titles = names if isinstance(names, list) and len(names) == len(enum) else [""] * len(enum)
        return list(zip(enum, titles))
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if isinstance(options, list):
            consts = [(o["const"], o.get("title") or "") for o in options
                      if isinstance(o, Mapping) and isinstance(o.get("const"), str)]
            if consts:
                return consts
    return []


def question_of(server: str, message: str, schema: Any = None, url: str | None = None) -> ElicitQuestion:
    """A server's request as a question a person can be shown (hostile input in, cleaned data out)."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    required = set(schema.get("required") or ()) if isinstance(schema, Mapping) else set()
    fields: list[ElicitField] = []
    for name, spec in list((props or {}).items())[:FIELDS_MAX]:
        if not isinstance(name, str) or not isinstance(spec, Mapping):
            continue
        kind = spec.get("type") if isinstance(spec.get("type"), str) else "string"
        choices = _choices(spec)
        if kind == "array" and not choices and isinstance(spec.get("items"), Mapping):
            choices = _choices(spec["items"])  # a multiple choice: the items' enum
        fields.append(ElicitField(capped(clean_text(name), 100), str(kind)[:20],
                                  capped(clean_text(str(spec.get("title") or "")), 200), _default(spec),
                                  name in required, tuple(capped(clean_text(str(c)), 200) for c, _ in choices[:64]),
                                  tuple(capped(clean_text(str(t)), 200) for _, t in choices[:64])))
    return ElicitQuestion(server, capped(clean_text(message or ""), MESSAGE_MAX), tuple(fields),
                          capped(clean_text(url), 2048) if url else None)
