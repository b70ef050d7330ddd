"""The registry: wire-safe names, no duplicates, stable specs, subsets."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kernel.core.errors import RegistryError
from kernel.core.messages import ToolSpec
from kernel.tools.fs import FS_READ, FS_TOOLS, FS_WRITE
from kernel.tools.registry import ToolRegistry, builtin_registry

BUILTIN = ("fs_delete", "fs_edit", "fs_list", "fs_move", "fs_read", "fs_search", "fs_write")


def refused(descriptor) -> RegistryError:
    with pytest.raises(RegistryError) as info:
        ToolRegistry([descriptor])
    return info.value


@pytest.mark.parametrize("name", ["a", "fs_read", "Tool9", "_", "x" * 64])
def test_good_names(name: str) -> None:
    assert ToolRegistry([replace(FS_READ, name=name)]).names() == (name,)


@pytest.mark.parametrize("name", ["", "fs.read", "fs-read", "fs read", "x" * 65, "outil_é", "a/b"])
def test_bad_names(name: str) -> None:
    error = refused(replace(FS_READ, name=name))
    assert error.reason == "name"
    assert "letters, digits or underscores" in str(error)


@pytest.mark.parametrize("scope", ["", "fs..read", "FS.read", "fs.read.", "fs read"])
def test_bad_scopes(scope: str) -> None:
    assert refused(replace(FS_READ, scope=scope)).reason == "definition"


def test_other_definition_checks() -> None:
    assert refused(replace(FS_READ, tool_class="admin")).reason == "definition"  # type: ignore[arg-type]
    assert refused(replace(FS_READ, description="  ")).reason == "definition"
    assert refused(replace(FS_READ, timeout_s=0)).reason == "definition"


def test_duplicates_are_refused() -> None:
    registry = ToolRegistry([FS_READ])
    with pytest.raises(RegistryError) as info:
        registry.add(replace(FS_WRITE, name="fs_read"))
    assert info.value.reason == "duplicate" and info.value.tool == "fs_read"
    assert registry.get("fs_read") is FS_READ


def test_get_names_and_specs_in_a_stable_order() -> None:
    forward, backward = ToolRegistry(FS_TOOLS), ToolRegistry(reversed(FS_TOOLS))
    assert forward.names() == backward.names() == BUILTIN
    assert forward.specs() == backward.specs()
    spec = forward.specs()[BUILTIN.index("fs_read")]
    assert spec == ToolSpec("fs_read", FS_READ.description, FS_READ.input_schema)
    assert forward.get("fs_read") is FS_READ and forward.get("nope") is None
    assert "fs_write" in forward and len(forward) == 7
    assert [d.name for d in forward] == list(BUILTIN)


def test_subset() -> None:
    registry = builtin_registry()
    reads = registry.subset(["fs_read", "fs_list", "fs_read"])
    assert reads.names() == ("fs_list", "fs_read")
    assert registry.names() == BUILTIN  # the original is untouched
    with pytest.raises(RegistryError) as info:
        registry.subset(["fs_read", "shell_exec"])
    assert info.value.reason == "unknown" and info.value.tool == "shell_exec"


def test_builtin_registry_with_extras() -> None:
    extra = replace(FS_READ, name="shell_exec", scope="shell.exec", tool_class="execute")
    registry = builtin_registry(extra=[extra])
    assert registry.names() == tuple(sorted(BUILTIN + ("shell_exec",)))
    with pytest.raises(RegistryError, match="already registered"):
        builtin_registry(extra=[FS_READ])


def test_builtin_descriptors_are_what_the_design_says() -> None:
    registry = builtin_registry()
    for name in BUILTIN:
        tool = registry.get(name)
        assert tool is not None and tool.timeout_s > 0
        reading = name in ("fs_read", "fs_list", "fs_search")
        assert tool.scope == ("fs.read" if reading else "fs.write")
        assert tool.tool_class == ("read" if reading else "write")
        assert (tool.preview is None) == reading
        assert 0 < tool.description.count(". ") + 1 <= 3
