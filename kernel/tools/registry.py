"""The set of tools an agent can call, checked when each tool is added.

Names travel on the wire, where providers allow letters, digits and
underscores only, so a name outside ``^[a-zA-Z0-9_]{1,64}$`` is refused here,
once, rather than by a provider mid-conversation; scopes are the dotted lease
vocabulary (``fs.read``). Specs come out sorted by name so the tool list a
model sees is the same on every run, whatever order tools were added in
(which also keeps provider prompt caches warm). A registry is plain data: the
kernel is handed one (``builtin_registry()`` plus extras), never a global.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..core.errors import RegistryError
from ..core.messages import ToolSpec
from ..leases.lease import SCOPE_RE as SCOPE_RE  # the scope grammar lives with the leases
from .descriptor import ToolDescriptor
from .fs import FS_TOOLS
from .schema import check_schemas

NAME_RE = re.compile(r"^[a-zA-Z0-9_]{1,64}$")
TOOL_CLASSES = ("read", "write", "execute")


def check_descriptor(descriptor: ToolDescriptor) -> None:
    """Everything about one descriptor that can be checked before it runs (RegistryError)."""
    name = descriptor.name
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise RegistryError(str(name), "name",
                            "a tool name is 1 to 64 letters, digits or underscores (no dots: use the scope for those)")
    if not SCOPE_RE.match(descriptor.scope or ""):
        raise RegistryError(name, "definition", f"scope {descriptor.scope!r} is not a dotted name like fs.read")
    if descriptor.tool_class not in TOOL_CLASSES:
        raise RegistryError(name, "definition", f"class {descriptor.tool_class!r} is not one of {', '.join(TOOL_CLASSES)}")
    if not descriptor.description.strip():
        raise RegistryError(name, "definition", "a tool needs a description the model can read")
    if not descriptor.timeout_s > 0:
        raise RegistryError(name, "definition", f"timeout_s must be positive, not {descriptor.timeout_s}")
    if not callable(descriptor.run):
        raise RegistryError(name, "definition", "run must be an async callable")
    check_schemas(descriptor)


class ToolRegistry:
    """Tools by name; ``add`` refuses bad names, duplicates and broken schemas."""

    def __init__(self, descriptors: Iterable[ToolDescriptor] = ()) -> None:
        self._tools: dict[str, ToolDescriptor] = {}
        self._specs: tuple[ToolSpec, ...] | None = None  # built once per set of tools (every request asks)
        self._marked: dict[str, tuple[ToolSpec, ...]] = {}  # nonce → specs with a third party's words marked
        for descriptor in descriptors:
            self.add(descriptor)

    def add(self, descriptor: ToolDescriptor) -> None:
        """Register one tool (RegistryError: bad name, duplicate, bad definition or schema)."""
        check_descriptor(descriptor)
        if descriptor.name in self._tools:
            raise RegistryError(descriptor.name, "duplicate", "a tool with this name is already registered")
        self._tools[descriptor.name] = descriptor
        self._specs = None
        self._marked = {}

    def remove(self, name: str) -> ToolDescriptor | None:
        """Take a tool out (an extension's tool that went away); the next request's specs omit it."""
        descriptor = self._tools.pop(name, None)
        self._specs = None
        self._marked = {}
        return descriptor

    def get(self, name: str) -> ToolDescriptor | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    def names(self) -> tuple[str, ...]:
        """Every tool's name, sorted."""
        return tuple(sorted(self._tools))

    def descriptors(self) -> tuple[ToolDescriptor, ...]:
        """Every descriptor, sorted by name."""
        return tuple(self._tools[n] for n in self.names())

    def specs(self, nonce: str | None = None) -> tuple[ToolSpec, ...]:
        """What the model is told about each tool, sorted by name; given the agent's marker ``nonce``, a
        description a third party wrote (an MCP server's) comes between that agent's markers."""
        if self._specs is None:
            self._specs = tuple(d.spec() for d in self.descriptors())
        if nonce is None or all(d.described_by is None for d in self._tools.values()):
            return self._specs
        marked = self._marked.get(nonce)
        if marked is None:  # (each schema walked once per agent, not once per request: trust.schema_marks)
            if len(self._marked) >= 64:
                self._marked.clear()
            marked = self._marked[nonce] = tuple(d.spec_for(nonce) for d in self.descriptors())
        return marked

    def subset(self, names: Iterable[str]) -> "ToolRegistry":
        """A registry holding only ``names`` (RegistryError ``unknown`` for a name not here)."""
        wanted = list(dict.fromkeys(names))
        missing = [n for n in wanted if n not in self._tools]
        if missing:
            raise RegistryError(missing[0], "unknown",
                                f"no such tool; known tools: {', '.join(self.names()) or 'none'}")
        return ToolRegistry(self._tools[n] for n in wanted)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolDescriptor]:
        return iter(self.descriptors())

    def __repr__(self) -> str:
        return f"ToolRegistry({', '.join(self.names())})"


def builtin_registry(extra: Iterable[ToolDescriptor] = ()) -> ToolRegistry:
    """The built-in tools (the file tools), plus ``extra`` (shell_exec lives with its sandbox)."""
    registry = ToolRegistry(FS_TOOLS)
    for descriptor in extra:
        registry.add(descriptor)
    return registry
