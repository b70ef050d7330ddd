"""Counts and numbers as people read them (kernel.core.words, shared by the CLI and the desktop)."""

from __future__ import annotations

import pytest

from kernel.core.words import grouped, plural, short_number


@pytest.mark.parametrize(("count", "word", "expected"), [
    (1, "entry", "1 entry"), (2, "entry", "2 entries"), (0, "conflict", "0 conflicts"),
    (1, "conflict", "1 conflict"), (1, "agent", "1 agent"), (3, "agent", "3 agents"),
    (11500, "token", "11,500 tokens"), (2, "day", "2 days"), (2, "box", "2 boxes"),
])
def test_plural(count, word, expected):
    assert plural(count, word) == expected


@pytest.mark.parametrize(("n", "expected"), [
    (0, "0"), (999, "999"), (1000, "1k"), (1250, "1.3k"), (14_600, "14.6k"), (14_649, "14.6k"),
    (14_650, "14.7k"), (41_200, "41.2k"), (99_960, "100k"), (155_400, "155k"), (200_000, "200k"),
    (999_600, "1M"), (1_250_000, "1.3M"), (12_000_000, "12M"), (-14_600, "-14.6k"),
])
def test_short_number_rounds_never_truncates(n, expected):
    assert short_number(n) == expected


def test_grouped():
    assert grouped(11500) == "11,500" and grouped(7) == "7"


def test_cli_ledger_says_one_conflict():
    from kernel.cli.ledger_cmd import summary
    from ledger import Undo

    one = Undo(actor="user", seq=9, after_seq=3, reversed=(4,), conflicts=("/w/a.txt",))
    two = Undo(actor="user", seq=9, after_seq=3, reversed=(4, 5), conflicts=("/w/a.txt", "/w/b.txt"))
    assert summary(one, {}).endswith(": 1 reversed, 1 conflict")
    assert summary(two, {}).endswith(": 2 reversed, 2 conflicts")
