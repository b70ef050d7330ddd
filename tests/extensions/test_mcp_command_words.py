"""``mcp add --command``: words as a shell makes them, and every hostile or broken command a sentence."""

from __future__ import annotations

import pytest

from kernel.api import ConfigError
from kernel.extensions.mcp_command import split_command

ENV = {"HOME": "/home/ada", "SRV": "/opt/srv", "SPACED": "a b"}


def test_words_quotes_escapes_tilde_and_variables() -> None:
    assert split_command("~/bin/srv --repo ~/src/app", ENV) == ["/home/ada/bin/srv", "--repo", "/home/ada/src/app"]
    assert split_command("$SRV \"${SRV}/x\" '$SRV' a\\ b \"q\\\"t\" ''", ENV) == [
        "/opt/srv", "/opt/srv/x", "$SRV", "a b", 'q"t', ""]
    assert split_command("run $SPACED", ENV) == ["run", "a b"]  # one word: never split again (said in the guide)


@pytest.mark.parametrize("command, why", [
    ("srv 'open", "never closed"),
    ('srv "open', "never closed"),
    ("srv $(id)", "cannot run commands"),
    ("srv `id`", "cannot run commands"),
    ('srv "`id`"', "cannot run commands"),
    ('srv "$(id)"', "cannot run commands"),
    ("srv $NOT_SET_ANYWHERE_Q", "NOT_SET_ANYWHERE_Q"),
])
def test_a_hostile_or_broken_command_is_a_sentence_naming_why(command: str, why: str) -> None:
    with pytest.raises(ConfigError) as caught:
        split_command(command, ENV)
    assert why in str(caught.value) and caught.value.field == "--command"
