"""``--command 'mcp-server-git --repository ~/src/app'`` split into words as a shell user expects.

The command reaches ``agentdesk mcp add`` as one quoted argument, so the user's shell expanded nothing
in it, and the server is later started without a shell: a ``~`` or ``$HOME`` kept literally is a path
that does not exist. So the words are made here, once, at add time, the way a POSIX shell makes them:
quotes and backslashes; ``~`` and ``~user`` at the start of an unquoted word; ``$NAME`` and ``${NAME}``
outside single quotes (a value is one word, never split again: a path with spaces stays whole). What is stored is the expanded words (``mcp add`` prints them). A variable
that is not set is refused by name rather than silently made empty, and what a shell would run
(``$(...)``, backticks) is refused rather than run.
"""

from __future__ import annotations

import os
import re
from typing import Mapping

from ..core.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_USER = re.compile(r"[A-Za-z0-9._-]*")
_DOUBLE_ESCAPES = '$`"\\\n'


def _bad(why: str) -> ConfigError:
    return ConfigError(f"--command {why}", "--command", field="--command")


class _Words:
    def __init__(self, text: str, env: Mapping[str, str]) -> None:
        self.text, self.env, self.i = text, env, 0
        self.words: list[str] = []
        self.cur: list[str] = []
        self.started = False  # a word is under way (even an empty quoted one: '')
        self.quoted = False

    def end_word(self) -> None:
        word = "".join(self.cur)
        if self.started and (word or self.quoted):  # an unquoted expansion to nothing is no word
            self.words.append(word)
        self.cur, self.started, self.quoted = [], False, False

    def variable(self) -> str:
        """The value of the ``$`` at ``i`` (``i`` moves past it)."""
        text, i = self.text, self.i + 1
        if text.startswith("(", i):
            raise _bad("cannot run commands ($(...)): give the words themselves")
        if text.startswith("{", i):
            close = text.find("}", i)
            name, self.i = text[i + 1:close] if close >= 0 else "", close + 1
            if close < 0 or not _NAME.fullmatch(name):
                raise _bad(f"has a ${{...}} that is not a variable name: {text[i - 1:i + 30]!r}")
        else:
            m = _NAME.match(text, i)
            if m is None:
                self.i = i
                return "$"
            name, self.i = m.group(), m.end()
        if name not in self.env:
            raise _bad(f"uses ${name}, which is not set in this shell")
        return self.env[name]

    def tilde(self) -> str:
        """``~`` or ``~user`` at the start of a word, expanded (``i`` moves past it); kept when unknown."""
        m = _USER.match(self.text, self.i + 1)
        assert m is not None
        end = m.end()
        if end < len(self.text) and not (self.text[end] == "/" or self.text[end].isspace()):
            return "~"  # ~"quoted" or ~$X: not a tilde prefix
        prefix, self.i = self.text[self.i:end], end
        if prefix == "~":
            return self.env.get("HOME") or os.path.expanduser("~")
        return os.path.expanduser(prefix)  # ~user; an unknown user stays as written, as in a shell

    def split(self) -> list[str]:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c.isspace():
                self.end_word()
                self.i += 1
                continue
            if c == "~" and not self.started:
                self.started = True
                value = self.tilde()
                if value == "~":
                    self.i += 1
                self.cur.append(value)
                continue
            self.started = True
            if c == "'":
                close = text.find("'", self.i + 1)
                if close < 0:
                    raise _bad("has a ' that is never closed")
                self.cur.append(text[self.i + 1:close])
                self.quoted, self.i = True, close + 1
            elif c == '"':
                self.double()
            elif c == "\\":
                if self.i + 1 < len(text):
                    self.cur.append(text[self.i + 1])
                self.i += 2
            else:
                self.plain(c)
        self.end_word()
        return self.words

    def plain(self, c: str) -> None:
        """A character outside single quotes that is not a quote or an escape: ``$`` expands, a backquote is
        refused (no commands are run), anything else is itself."""
        if c == "$":
            self.cur.append(self.variable())
        elif c == "`":
            raise _bad("cannot run commands (`...`): give the words themselves")
        else:
            self.cur.append(c)
            self.i += 1

    def double(self) -> None:
        text = self.text
        self.quoted, self.i = True, self.i + 1
        while True:
            if self.i >= len(text):
                raise _bad('has a " that is never closed')
            c = text[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < len(text) and text[self.i + 1] in _DOUBLE_ESCAPES:
                self.cur.append(text[self.i + 1])
                self.i += 2
            else:
                self.plain(c)


def split_command(text: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The words of ``text`` as a POSIX shell makes them, ``~`` and variables (from ``env``, default this
    process's environment) expanded; ConfigError (field ``--command``) with the reason otherwise."""
    return _Words(text, os.environ if env is None else env).split()
