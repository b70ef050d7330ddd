"""A send cut short by a kill -9 is answered, on resume, with how it ended (issue 23).

The kernel answered every call left without a result "interrupted: the kernel
stopped", though the ledger knew the mail had gone out (outcome ``done``): a
real model would send it again. Now the interrupted call's result says its
recorded outcome: sent (never again), not sent, or unknown and waiting in the
Inbox. The ledger is what a kill -9 leaves (the call, its intent, maybe its
outcome, no result); a real kernel process on real mail servers verifies an
open intent at start and only then answers the call.
"""

from __future__ import annotations

from pathlib import Path

from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.messages import ToolResultPart
from kernel.mail import smtp
from kernel.mail.compose import compose, message_id_for
from kernel.mail.tools import MailService
from ledger import AgentSpawn, Intent, Ledger, ModelRequest, Outcome, ToolCall, UserTurn
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import ScriptedApprover, run


def cut_mid_send(ledger: Ledger, agent: str, key: str, subject: str, outcome: str | None) -> Intent:
    """An agent whose mail_send the kernel was killed in: its call and intent, ``outcome`` (or none), no result."""
    args = {"to": [ms.USER], "subject": subject, "body": f"Body of {subject}.\n"}
    ledger.append(AgentSpawn(actor=agent, name=agent, provider="scripted", model="m", budget=100_000, workspace="/"))
    ledger.append(UserTurn(actor=agent, text=f"send {subject}"))
    ledger.append(ModelRequest(actor=agent, reason="user-turn", provider="scripted", model="m", status="ok",
                               tool_calls=({"id": "c-" + key, "name": "mail_send", "input": args},)))
    call = ledger.append(ToolCall(actor=agent, tool="mail_send", scope="mail.send", input=args, call="c-" + key))
    intent = ledger.append(Intent(actor=agent, tool="mail_send", key=key, target=message_id_for(key, "test-salt"),
                                  call_id="c-" + key, cause=call.seq))
    assert isinstance(intent, Intent)
    if outcome is not None:
        ledger.append(Outcome(actor=agent, status=outcome, detail="" if outcome == "done" else "the connection broke",
                              cause=intent.seq))
    return intent


def answer(conversation: tuple) -> str:
    [part] = [p for p in conversation[-1].parts if isinstance(p, ToolResultPart)]
    assert part.is_error  # still a call that did not finish: the model is told so
    return part.content


def test_the_interrupted_calls_answer_says_sent_not_sent_or_unknown(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    cut_mid_send(ledger, "a1", "k-done", "Went out", "done")
    cut_mid_send(ledger, "a2", "k-failed", "Refused", "failed")
    cut_mid_send(ledger, "a3", "k-unknown", "Who knows", "unknown")
    cut_mid_send(ledger, "a4", "k-open", "Never settled", None)  # a kernel that never verified it
    kernel = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(tmp_path)),
                          providers=lambda _n: None, approver=ScriptedApprover(), restore=True)
    try:
        sent, refused, unknown, open_ = (answer(kernel.agents.conversation(a)) for a in ("a1", "a2", "a3", "a4"))
    finally:
        run(kernel.aclose())
        ledger.close()
    assert "the mail was sent" in sent and message_id_for("k-done", "test-salt") in sent and "do not repeat it" in sent
    assert "the mail was not sent" in refused and "connection broke" in refused and "not retried" in refused
    assert "unknown" in unknown and "Inbox" in unknown and "not retried" in unknown
    assert "was not recorded" in open_ and "ask the user" in open_
    assert all(a != "interrupted: the kernel stopped" for a in (sent, refused, unknown, open_))


def test_a_real_kernel_verifies_the_cut_send_first_and_answers_sent(agentdesk_home, accounts, servers) -> None:
    """kill -9 after the mail left and before its outcome was recorded: the kernel finds it on the server
    at start, records ``done``, and the agent's answer says it was sent; nothing is sent again."""
    from kernel.service.client import RemoteKernel
    from tests.service.conftest import KernelProcess, clean_env

    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        intent = cut_mid_send(ledger, "a1", "k-real", "Left before the kill", None)
    finally:
        ledger.close()
    creds = MailService(accounts).creds()
    args = {"to": [ms.USER], "subject": "Left before the kill", "body": "Body of Left before the kill.\n"}
    run(smtp.send(creds, compose(creds.account, args, intent.target, 1_700_000_000)))  # it did go out
    received = len(servers.smtp.received)
    proc = KernelProcess(agentdesk_home, clean_env(agentdesk_home)).start()

    async def body() -> str:
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        try:
            assert [a.state.value for a in k.agents.list()] == ["interrupted"]
            return answer(k.agents.conversation("a1"))
        finally:
            await k.aclose()

    try:
        said = run(body())
    finally:
        assert proc.stop() == 0
    assert "the mail was sent" in said and intent.target in said and "do not repeat it" in said, said
    assert len(servers.smtp.received) == received  # verified, never resent
    with Ledger(agentdesk_home / "ledger.db") as after:
        [done] = [o for o in after.page(kind="outcome") if o.cause == intent.seq]
        assert done.status == "done" and done.data == {"verified": True}
