"""The neutral image part: plain JSON there and back (hostile JSON reads as nothing), on the record with its
turn, rebuilt into the conversation, and across the provider host's wire with its bytes."""

from __future__ import annotations

import json

from kernel.agents.rebuild import conversation_of
from kernel.core.messages import ImagePart, Message, TextPart, ToolResultPart, image_json, image_of, images_of
from kernel.providers.base import ProviderRequest
from kernel.providers.host_protocol import decode_request, request_line
from ledger import AgentSpawn, Ledger, ModelRequest, ToolCall, ToolResult, UserTurn

SHA = "ab" * 32
SHOT = ImagePart(SHA, "image/png", 1356, 848, 4321, "file", path="shot.png", label="fs_read shot.png")


def test_json_round_trip_and_placeholder():
    assert image_of(image_json(SHOT)) == SHOT
    assert image_of(image_json(ImagePart(SHA, "image/jpeg", 1, 2, 3, "paste", untrusted=True))).untrusted
    assert SHOT.placeholder("this model cannot see images") == (
        "[image 1356\u00d7848 png from fs_read shot.png: this model cannot see images]")


def test_hostile_json_reads_as_nothing():
    good = image_json(SHOT)
    for bad in ({**good, "sha256": "../../etc/passwd"}, {**good, "media_type": "text/html"},
                {**good, "width": -1}, {**good, "height": True}, {**good, "origin": "anywhere"}, "x", None, 3):
        assert image_of(bad) is None
    assert images_of([good, {"nope": 1}, good]) == (SHOT, SHOT)
    assert images_of("not a list") == ()


def test_turns_keep_their_images_on_the_record_and_rebuild(tmp_path):
    ledger = Ledger(tmp_path / "ledger.db")
    spawn = ledger.append(AgentSpawn(actor="a1", name="n", provider="p", model="m", workspace=str(tmp_path),
                                     budget=100))
    ledger.append(UserTurn(actor="a1", text="look", images=(image_json(SHOT),)))
    ledger.append(ModelRequest(actor="a1", reason="user-turn", provider="p", model="m", status="ok",
                               tool_calls=({"id": "c1", "name": "fs_read", "input": {"path": "b.png"}},)))
    call = ledger.append(ToolCall(actor="a1", tool="fs_read", scope="fs.read", input={"path": "b.png"}, call="c1"))
    ledger.append(ToolResult(actor="a1", cause=call.seq, call="c1", content="an image", images=(image_json(SHOT),)))
    conversation = conversation_of(ledger, spawn)
    assert conversation[0] == Message("user", (TextPart("look"), SHOT))
    assert conversation[-1].parts == (ToolResultPart("c1", "fs_read", "an image", images=(SHOT,)),)
    assert conversation[-1].images == (SHOT,)


def test_entries_without_images_keep_their_shape(tmp_path):
    ledger = Ledger(tmp_path / "ledger.db")
    plain = ledger.append(UserTurn(actor="a1", text="hi"))
    assert "images" not in plain.to_json()
    with_image = ledger.append(UserTurn(actor="a1", text="hi", images=(image_json(SHOT),)))
    assert ledger.get(with_image.seq).images == (image_json(SHOT),)
    assert ledger.verify_chain().__class__.__name__ == "Intact"


def test_the_host_wire_carries_parts_and_bytes():
    request = ProviderRequest("s", (Message("user", (TextPart("see"), SHOT)),
                                    Message("user", (ToolResultPart("c", "fs_read", "x", images=(SHOT,)),))),
                              model="m", images={SHA: b"\x89PNG bytes"})
    decoded = decode_request(json.loads(request_line(7, request))["request"])
    assert decoded == request
