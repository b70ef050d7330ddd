"""Text a model can send that UTF-8 cannot hold still records and reads back."""

from ledger import Ledger, ToolCall


def test_lone_surrogates_in_tool_input_are_recorded(tmp_path):
    with Ledger(tmp_path / "l.db") as ledger:
        entry = ledger.append(ToolCall(actor="a1", tool="fs_write", scope="fs.write",
                                       input={"path": "x", "content": "bad \ud800 ok ünï"}))
        assert ledger.get(entry.seq).input["content"] == "bad \ud800 ok ünï"
