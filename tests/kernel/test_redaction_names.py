"""A held secret in a file's name: the ledger must keep the exact path (undo needs it) and must not
keep the secret, so the change is refused before it lands, and nothing of it reaches the record."""

from __future__ import annotations

from kernel.providers.scripted import reply

from .conftest import GRANT_5M, run
from .test_redaction_kernel import ENV_SECRET, GITHUB, episode, raw


def test_a_secret_in_a_file_name_never_reaches_the_ledger(make_env, monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", ENV_SECRET)
    env = make_env()
    env.provider.script(
        reply(tools=(("fs_write", {"path": f"leak-{ENV_SECRET}.txt", "content": "x"}),
                     ("fs_write", {"path": f"gh/{GITHUB}", "content": "y"}),
                     ("fs_write", {"path": "plain.txt", "content": "z"}),
                     (GITHUB, {}))),  # a tool name is the model's choice too
        reply("done"))
    env.approver.will(GRANT_5M)
    info = run(episode(env, "namer", "write"))
    assert info.state == "idle"
    assert ENV_SECRET not in raw(env) and GITHUB not in raw(env)
    assert not (env.workspace / f"leak-{ENV_SECRET}.txt").exists()
    assert not (env.workspace / "gh" / GITHUB).exists()
    assert (env.workspace / "plain.txt").read_text() == "z"  # other changes are recorded as usual
    errors = [e.message for e in env.ledger.page(kind="error", limit=10)]
    assert len(errors) == 3 and "unknown tool" in errors[0] and all("secret" in m for m in errors[1:])
    assert [e.path for e in env.ledger.page(kind="fs.write", limit=10)] == [str(env.workspace / "plain.txt")]


SLASHED = "Wq7/Rt+Zp9=Kx2/Lm8+Nv"  # a base64-like key: URL-encoding changes it


def test_a_held_secret_url_encoded_is_redacted_too(make_env, monkeypatch):
    import re
    from urllib.parse import quote

    monkeypatch.setenv("CLOUD_SECRET", SLASHED)
    env = make_env()
    upper, plus = quote(SLASHED, safe=""), quote(SLASHED)  # every reserved character, or all but /
    lower = re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), upper)
    assert len({SLASHED, upper, plus, lower}) == 4
    env.provider.script(
        reply(tools=(("fs_read", {"path": f"https://x.invalid/?k={upper}"}),
                     ("fs_read", {"path": f"q={plus}&r={lower}"}))),
        reply("done"))
    env.approver.will(GRANT_5M)
    assert run(episode(env, "encoder", "go")).state == "idle"
    text = raw(env)
    for form in (SLASHED, upper, plus, lower):
        assert form not in text
    assert text.count("[REDACTED:held-secret]") >= 3
