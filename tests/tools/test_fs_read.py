"""fs_read, fs_list, fs_search: contents, caps with their notes, binary files, helpful refusals."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel.tools.fs import FS_LIST, FS_READ, FS_SEARCH

NUMBERED = "".join(f"line {n:02d}\n" for n in range(1, 51))  # 50 lines of 8 bytes


# ---- fs_read -------------------------------------------------------------------

def test_read_returns_the_text_itself(env) -> None:
    env.put("notes/todo.md", "buy milk\ncall Ann\n")
    out = env.run(FS_READ, path="notes/todo.md")
    assert out.content == "buy milk\ncall Ann\n"
    assert out.data == {"path": "notes/todo.md", "bytes": 18, "binary": False, "first_line": 1, "last_line": 2,
                        "total_lines": 2, "truncated": False}
    assert env.all_changes() == []  # reading records no file change


def test_read_offset_and_limit(env) -> None:
    env.put("n.txt", NUMBERED)
    out = env.run(FS_READ, path="n.txt", offset=3, limit=3)
    assert out.content == "line 03\nline 04\nline 05\n[showed lines 3-5 of 50 of n.txt; read on with offset=6]"
    assert out.data["first_line"] == 3 and out.data["last_line"] == 5 and out.data["truncated"]
    tail = env.run(FS_READ, path="n.txt", offset=49)
    assert tail.content == "line 49\nline 50\n"


def test_read_last_line_without_newline(env) -> None:
    env.put("a.txt", "one\ntwo")
    assert env.run(FS_READ, path="a.txt").content == "one\ntwo"
    assert env.run(FS_READ, path="a.txt", offset=2).content == "two"


def test_read_offset_past_the_end(env) -> None:
    env.put("n.txt", NUMBERED)
    assert env.fail(FS_READ, path="n.txt", offset=51) == "offset 51 is past the end of n.txt, which has 50 lines"
    env.put("e.txt", "")
    assert "which has 0 lines" in env.fail(FS_READ, path="e.txt", offset=2)


def test_read_empty_file(env) -> None:
    env.put("e.txt", "")
    out = env.run(FS_READ, path="e.txt")
    assert out.content == "[e.txt is empty]" and out.data["bytes"] == 0


def test_large_read_is_truncated_with_a_note(env) -> None:
    env.limits = replace(env.limits, read_max_bytes=100)
    env.put("n.txt", NUMBERED)
    out = env.run(FS_READ, path="n.txt")
    text, note = out.content.rsplit("\n", 1)
    assert text + "\n" == NUMBERED[:96]  # 12 whole lines fit in 100 bytes
    assert note == "[truncated at the 100-byte read limit: showed lines 1-12 of 50 of n.txt (400 bytes); read on with offset=13]"
    assert out.data["truncated"] and out.data["total_lines"] == 50
    assert env.run(FS_READ, path="n.txt", offset=13).content.startswith("line 13\n")


def test_a_line_longer_than_the_limit_is_cut(env) -> None:
    env.limits = replace(env.limits, read_max_bytes=10)
    env.put("min.js", "é" * 20 + "\nnext\n")  # 40 bytes of two-byte characters on line 1
    out = env.run(FS_READ, path="min.js")
    assert out.content.startswith("é" * 5 + "\n[cut: line 1 is longer than the 10-byte read limit")
    assert "offset=2" in out.content
    assert env.run(FS_READ, path="min.js", offset=2).content == "next\n"


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(lines=st.lists(st.text(st.characters(blacklist_characters="\n\r\x00", blacklist_categories=("Cs",)),
                              max_size=12), max_size=40),
       final_newline=st.booleans(), budget=st.integers(49, 160))
def test_following_the_notes_reads_the_whole_file(env, lines, final_newline, budget) -> None:
    """However the read limit cuts a file, reading on from each note's offset yields every byte once."""
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    env.limits = replace(env.limits, read_max_bytes=budget)  # a line is at most 49 bytes: none is cut
    env.put("p.txt", text)
    got, offset = "", 1
    while True:
        out = env.run(FS_READ, path="p.txt", offset=offset)
        if not out.data["truncated"]:
            got += out.content if text else ""
            break
        got += out.content[: out.content.rindex("\n[") + 1]
        offset = out.data["last_line"] + 1
    assert got == text


def test_binary_files_are_described_not_dumped(env) -> None:
    blob = b"\x7fELF\x02\x01\x00\x00" + bytes(range(256))  # pictures are shown (tests/images/test_sources.py)
    env.put("prog.bin", blob)
    out = env.run(FS_READ, path="prog.bin")
    digest = hashlib.sha256(blob).hexdigest()
    assert out.content == f"prog.bin is a binary file, {len(blob)} bytes, sha256 {digest}; its bytes are not shown"
    assert out.data == {"path": "prog.bin", "bytes": len(blob), "binary": True, "sha256": digest}
    env.put("latin1.txt", "café".encode("latin-1"))
    assert env.run(FS_READ, path="latin1.txt").data["binary"]


def test_read_missing_file_suggests_names(env) -> None:
    env.put("notes/todo.md", "x")
    assert env.fail(FS_READ, path="notes/tod.md") == "notes/tod.md does not exist in the workspace (did you mean todo.md?)"
    assert "its folder does not exist either" in env.fail(FS_READ, path="nope/x.md")


def test_read_a_folder_points_to_fs_list(env) -> None:
    env.put("notes/todo.md", "x")
    assert "notes is a folder, not a file" in env.fail(FS_READ, path="notes")
    assert "fs_list" in env.fail(FS_READ, path="notes")


# ---- fs_list -------------------------------------------------------------------

def test_list_sorted_with_sizes_and_folder_suffix(env) -> None:
    env.put("b.txt", "12345")
    env.put("A.md", "")
    env.put("src/main.py", "print()\n")
    (env.root / "link").symlink_to(env.root / "src")
    (env.root / "out").symlink_to(env.tmp)
    out = env.run(FS_LIST)
    assert out.content.split("\n") == [
        "A.md  0 bytes", "b.txt  5 bytes", "link/  (link to src)", "out@  (link to outside the workspace)", "src/"]
    assert out.data == {"path": ".", "entries": 5, "shown": 5, "truncated": False}
    assert env.run(FS_LIST, path="src").content == "main.py  8 bytes"


def test_list_cap_has_a_note(env) -> None:
    env.limits = replace(env.limits, list_max_entries=3)
    for n in range(5):
        env.put(f"f{n}.txt", "x")
    out = env.run(FS_LIST, path=".")
    assert out.content.split("\n") == ["f0.txt  1 bytes", "f1.txt  1 bytes", "f2.txt  1 bytes",
                                       "[showing the first 3 of 5 entries; list a subfolder or use fs_search to narrow down]"]
    assert out.data["truncated"] and out.data["shown"] == 3


def test_list_refuses_files_and_missing_folders(env) -> None:
    env.put("a.txt", "x")
    assert env.fail(FS_LIST, path="a.txt") == "a.txt is a file, not a folder; use fs_read to read it"
    assert env.fail(FS_LIST, path="b").startswith("b does not exist")
    (env.root / "empty").mkdir()
    assert env.run(FS_LIST, path="empty").content == "[empty is empty]"


# ---- fs_search -----------------------------------------------------------------

def test_search_reports_path_line_text(env) -> None:
    env.put("src/a.py", "import os\n\ndef main():\n    os.getcwd()\n")
    env.put("src/b.py", "x = 1\r\nimport os\r\n")
    env.put("README.md", "nothing here")
    out = env.run(FS_SEARCH, pattern=r"\bos\b", path="src")
    assert out.content == "src/a.py:1: import os\nsrc/a.py:4:     os.getcwd()\nsrc/b.py:2: import os"
    assert out.data == {"pattern": r"\bos\b", "path": "src", "matches": 3, "files_searched": 2, "truncated": False,
                        "skipped_large": 0, "skipped_binary": 0}
    assert env.run(FS_SEARCH, pattern="(?i)NOTHING").content == "README.md:1: nothing here"
    assert env.run(FS_SEARCH, pattern="main", path="src/a.py").content == "src/a.py:3: def main():"


def test_search_skips_vcs_venv_dependency_binary_and_large_files(env) -> None:
    env.limits = replace(env.limits, search_max_file_bytes=100)
    env.put("keep.txt", "needle\n")
    env.put(".git/config", "needle\n")
    env.put("node_modules/x/index.js", "needle\n")
    env.put("env/pyvenv.cfg", "needle\n")  # a virtualenv under any name
    env.put("env/lib/site.py", "needle\n")
    env.put("bin.dat", b"needle\x00\x01")
    env.put("big.log", "needle\n" * 30)
    out = env.run(FS_SEARCH, pattern="needle")
    assert out.content == ("keep.txt:1: needle\n"
                           "[skipped 1 file(s) over 100 bytes: big.log; use fs_read with offset]")
    assert out.data["skipped_binary"] == 1 and out.data["skipped_large"] == 1 and out.data["files_searched"] == 1
    # Searching inside a skipped folder on purpose works.
    assert env.run(FS_SEARCH, pattern="needle", path=".git").content == ".git/config:1: needle"


def test_search_does_not_follow_links_out(env) -> None:
    (env.tmp / "secret.txt").write_text("needle\n")
    (env.root / "leak.txt").symlink_to(env.tmp / "secret.txt")
    (env.root / "leakdir").symlink_to(env.tmp)
    assert env.run(FS_SEARCH, pattern="needle").data["matches"] == 0


def test_search_caps_matches_with_a_note(env) -> None:
    env.limits = replace(env.limits, search_max_matches=10)
    for n in range(3):
        env.put(f"f{n}.txt", "hit\n" * 5)
    out = env.run(FS_SEARCH, pattern="hit")
    lines = out.content.split("\n")
    assert len(lines) == 11 and lines[:6] == [f"f0.txt:{n}: hit" for n in range(1, 6)] + ["f1.txt:1: hit"]
    assert lines[-1] == "[stopped at 10 matches; narrow the pattern or the path to see the rest]"
    assert out.data["truncated"] and out.data["matches"] == 10


def test_search_long_lines_show_a_window_around_the_match(env) -> None:
    env.put("min.js", "a" * 1000 + "needle" + "b" * 1000)
    line = env.run(FS_SEARCH, pattern="needle").content
    assert line.startswith("min.js:1: …a") and "needle" in line and line.endswith("b…") and len(line) < 300


def test_search_no_matches_and_bad_regex(env) -> None:
    env.put("a.txt", "hello\n")
    assert env.run(FS_SEARCH, pattern="bye").content == "no matches for 'bye' in . (1 text files searched)"
    assert env.fail(FS_SEARCH, pattern="foo(") == (
        "bad regular expression 'foo(': missing ), unterminated subpattern at position 3")
    assert env.fail(FS_SEARCH, pattern="x", path="nowhere").startswith("nowhere does not exist")
