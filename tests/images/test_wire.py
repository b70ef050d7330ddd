"""Pictures on the wire of every adapter, through its real SDK, read back by the fake as the real API reads
them: in user turns and inside tool results where the protocol allows it, after the results where it
does not (Chat Completions), as placeholders where the request carries no bytes."""

from __future__ import annotations

import hashlib

from kernel.core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from kernel.images.layout import ImageBudget, lay_out
from kernel.providers.base import ProviderRequest
from kernel.providers.vision import image_support
from tests.fakes import Text, Turn
from tests.providers.support import run

from .pictures import solid

PNG = solid(64, 40)
JPEG = solid(30, 20, "JPEG")


def part(data: bytes, media: str, label: str) -> ImagePart:
    from tests.images.pictures import size_of
    w, h = size_of(data)
    return ImagePart(hashlib.sha256(data).hexdigest(), media, w, h, len(data), "file", label=label)


SHOT, PHOTO = part(PNG, "image/png", "pasted"), part(JPEG, "image/jpeg", "fs_read photo.jpg")
CONVERSATION = (
    Message("user", (TextPart("what is on screen?"), SHOT)),
    Message("assistant", (ToolUse("c1", "fs_read", {"path": "photo.jpg"}),)),
    Message("user", (ToolResultPart("c1", "fs_read", "photo.jpg: image 30\u00d720 jpeg", images=(PHOTO,)),)),
)
BYTES = {SHOT.sha256: PNG, PHOTO.sha256: JPEG}


def model_for(case) -> str:
    return "gemini-3-pro" if case.name == "gemini" else "claude-sonnet-4-5" if case.name == "anthropic" else "gpt-5"


def test_pictures_reach_each_protocol_where_it_takes_them(case, srv):
    srv.script(Turn(parts=(Text("a red box"),)))
    out = run(case.make(srv), ProviderRequest("s", CONVERSATION, model=model_for(case), images=BYTES))
    assert out.error is None and out.text == "a red box"
    got = [(i.role, i.media_type, i.data) for i in srv.requests[0].images]
    # Chat Completions takes pictures in user messages only: the tool's picture follows the results.
    tool_role = "user" if case.protocol == "openai_chat" else "tool"
    assert got == [("user", "image/png", PNG), (tool_role, "image/jpeg", JPEG)]

    assert srv.image_rejections == []
    srv.assert_done()


def test_chat_puts_the_results_pictures_in_a_user_message_right_after_the_tool_messages(srv):
    from tests.providers.conftest import IN_PROCESS
    srv.script(Turn(parts=(Text("ok"),)))
    run(IN_PROCESS["openai-chat"].make(srv), ProviderRequest("s", CONVERSATION, model="gpt-5", images=BYTES))
    roles = [m["role"] for m in srv.requests[0].body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assert srv.requests[0].body["messages"][-1]["content"][0]["type"] == "image_url"


def test_a_picture_without_bytes_is_its_placeholder_never_a_broken_request(case, srv):
    srv.script(Turn(parts=(Text("ok"),)))
    out = run(case.make(srv), ProviderRequest("s", CONVERSATION, model=model_for(case), images={}))
    assert out.error is None
    assert srv.requests[0].images == ()
    assert "[image 64\u00d740 png from pasted: not sent with this request]" in str(srv.requests[0].body)
    srv.assert_done()


def test_the_fake_refuses_what_the_real_api_refuses(case, srv):
    big = solid(8100, 10)
    image = part(big, "image/png", "huge")
    wrong = part(PNG, "image/jpeg", "lies about its type")
    for bad, data in ((image, big), (wrong, PNG)):
        out = run(case.make(srv), ProviderRequest("s", (Message("user", (TextPart("x"), bad)),),
                                                   model=model_for(case), images={bad.sha256: data}))
        assert out.error is not None and out.error.kind == "bad_request"
    assert len(srv.image_rejections) == 2


def test_gemini_2_gets_the_results_pictures_as_a_user_part(srv):
    from tests.providers.conftest import IN_PROCESS
    request = ProviderRequest("s", CONVERSATION, model="gemini-2.5-flash")
    laid = lay_out(request, image_support("gemini", "gemini-2.5-flash"), ImageBudget(), BYTES.get)
    srv.script(Turn(parts=(Text("ok"),)))
    out = run(IN_PROCESS["gemini"].make(srv), laid)
    assert out.error is None
    assert [(i.role, i.data) for i in srv.requests[0].images] == [("user", PNG), ("user", JPEG)]
    last = srv.requests[0].body["contents"][-1]["parts"]
    assert "functionResponse" in last[0] and "parts" not in last[0]["functionResponse"]
