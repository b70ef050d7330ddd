"""``ask --grant`` through a running kernel reads the tools' four fields from the raw reply (no codec, no
``kernel.api``: issue 23's grant cost); a reply of the wrong shape is refused, and the checks judge raw tools
exactly as they judge ``ToolInfo`` values."""

from __future__ import annotations

import pytest

from kernel.api import ToolInfo
from kernel.cli.grants import RawTool, known_scopes, raw_tools, refuse_confirmed
from kernel.core.errors import ConfigError

TOOLS = [ToolInfo("fs_write", "fs.write", "R1"), ToolInfo("mail_send", "mail.send", "R3"),
         ToolInfo("shell_exec", "shell.exec", "R1")]
RAW = [{"$t": "ToolInfo", "name": t.name, "scope": t.scope, "risk": t.risk, "trusted": True,
        "always_confirm": t.always_confirm} for t in TOOLS]


def test_raw_tools_are_judged_as_tool_infos_are() -> None:
    raw = raw_tools(RAW)
    assert raw == [RawTool("fs_write", "fs.write", "R1", False), RawTool("mail_send", "mail.send", "R3", False),
                   RawTool("shell_exec", "shell.exec", "R1", False)]
    assert known_scopes(raw) == known_scopes(TOOLS)
    refuse_confirmed([("fs.write", 300.0)], raw, {})  # a lease covers fs_write: allowed
    with pytest.raises(ConfigError, match="would allow nothing"):
        refuse_confirmed([("mail.send", 300.0)], raw, {})


@pytest.mark.parametrize("hostile", [
    None, {"name": "x"}, ["fs_write"], [{"name": "x"}], [{"name": 1, "scope": "fs"}],
    [{"name": "x", "scope": "fs", "risk": ["R0"]}], [{"name": "x", "scope": "fs", "always_confirm": "yes"}],
])
def test_a_reply_of_another_shape_is_refused(hostile: object) -> None:
    assert raw_tools(hostile) is None
