"""The reference "everything" MCP server from the desktop, attached to a real kernel process (issue 29):
its form comes up as the question dialog and the user fills it in and accepts it; its model request is
the agent's (on the ledger under ``mcp.ev.sampling``, at the agent's name); its roots are the agent's
workspace. The server runs once for the module (tests/extensions/everything.py); the kernel process
reaches it over streamable HTTP. The terminal's side and the tool listing: tests/extensions/test_mcp_everything.py.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from desktop.question_dialog import QuestionDialog
from kernel.extensions.mcp_config import McpServerConfig, McpStore
from kernel.leases.approver import Grant
from kernel.providers.scripted import reply
from ledger import USER, McpElicit
from tests.extensions.everything import ev

WAIT_MS = 60_000


def _work(main, agent_id: str, message: str, *turns, on_question=None) -> None:
    """Send ``message`` with the model's ``turns`` scripted; grant every lease request and hand every question to
    ``on_question`` (the user), until the agent is idle again with its last turn played."""
    dialogs = main.desk.extras["questions"]
    main.provider(agent_id).script(*turns)
    seen, played = len(main.requests()), len(main.server.srv.requests)
    main.kernel.agents.send(agent_id, message)
    while True:
        main.qtbot.waitUntil(lambda: len(main.requests()) > seen or bool(dialogs.waiting) or (
            len(main.server.srv.requests) >= played + len(turns) and main.kernel.agents.get(agent_id).state == "idle"),
            timeout=WAIT_MS)
        if len(main.requests()) > seen:
            for request in main.requests()[seen:]:
                main.kernel.leases.resolve(request.id, Grant(300.0))
            seen = len(main.requests())
        elif dialogs.waiting:
            assert on_question is not None, "the server asked a question nobody expected"
            on_question(dialogs)
            main.qtbot.waitUntil(lambda: not dialogs.waiting, timeout=WAIT_MS)
        else:
            return


def test_the_desktop_answers_the_everything_servers_form_and_its_sampling_and_roots_work(main, everything, qtbot,
                                                                                         tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")  # a test never writes a real keyring
    McpStore(tmp_path / "home").add(McpServerConfig("ev", url=everything, timeout_s=30))
    loaded = asyncio.ensure_future(main.kernel.extensions.mcp_reload())
    qtbot.waitUntil(loaded.done, timeout=WAIT_MS)
    assert loaded.result().started == ("ev",) and loaded.result().problems == ()
    agent_id = main.spawn("scribe")

    def user(dialogs) -> None:  # as a person: the shortcut brings the form up, a name typed, Accept clicked
        main.window.answer_lease()
        [dialog] = dialogs.open.values()
        assert isinstance(dialog, QuestionDialog) and dialog.windowTitle() == "The MCP server ev asks you"
        name = dialog.inputs["name"]
        assert isinstance(name, QLineEdit)
        qtbot.keyClicks(name, "Grace Hopper")
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)

    _work(main, agent_id, "fill in the form", reply(tools=((ev("trigger-elicitation-request"), {}),)), reply("ok"),
          on_question=user)
    _work(main, agent_id, "sample", reply(tools=((ev("trigger-sampling-request"), {"prompt": "Say hi",
                                                                                  "maxTokens": 40}),)),
          reply("hi from the model", usage=(13, 4)), reply("ok"))
    _work(main, agent_id, "roots", reply(tools=((ev("get-roots-list"), {}),)), reply("ok"))

    results = [str(e.content) for e in main.record.page(kind="result")]
    assert any("Name: Grace Hopper" in r for r in results)  # what the user typed reached the server
    assert any("Favorite Integer: 42" in r for r in results)  # with the form's defaults for the rest
    assert any("hi from the model" in r for r in results)
    assert any(main.workspace.as_uri() in r for r in results)  # the roots: the agent's workspace
    [asked] = main.record.page(kind="mcp.elicit")
    assert isinstance(asked, McpElicit) and (asked.actor, asked.action, asked.subject) == (USER, "accept", agent_id)
    [sampled] = [e for e in main.record.page(kind="request") if e.reason == "mcp.ev.sampling"]
    assert (sampled.actor, sampled.input_tokens, sampled.output_tokens) == (agent_id, 13, 4)
