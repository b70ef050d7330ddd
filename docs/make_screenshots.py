"""Render the desktop's screens offscreen to PNGs, driven by the real kernel.

    python docs/make_screenshots.py [OUTDIR]      (default docs/screenshots/)

A throwaway home and workspace, scripted providers (no network, no keys)
and a manual clock: several agents with leases, one waiting on a lease
request, one killed, a ledger with a selected diff, an Ask window mid-way
through a conversation, and the lease dialog with a 300-line diff. The
offscreen screen is 1024×700 (the smallest the desktop is made for; set
through the offscreen plugin's ``configfile``), and every window takes the
size it picks for itself on such a screen. The scene is then played again
on a dark palette for ``main-window-dark.png`` and ``ask-window-dark.png``
(every colour is chosen from the palette when a widget is built, so the
palette is set first). Offscreen Qt needs a real font: DejaVu (Debian:
fonts-dejavu-core) is used when installed.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCREEN = (1024, 700)


def small_screen_platform(width: int = SCREEN[0], height: int = SCREEN[1]) -> str:
    """The offscreen platform with one screen of ``width``×``height`` (a config file in the temp folder)."""
    import json

    config = Path(tempfile.gettempdir()) / f"agentdesk-offscreen-{width}x{height}.json"
    config.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    return f"offscreen:configfile={config}"


if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":  # plain offscreen (as the tests set it) too
    os.environ["QT_QPA_PLATFORM"] = small_screen_platform()
sys.path.insert(0, str(ROOT / "docs"))  # its parts (also when a test loads this file by its path)
from screenshots_loop import settled  # noqa: E402

BIG_TEST = "from app import main\n\n\n" + "".join(
    f"def test_main_{i}(capsys):\n    main()\n    assert 'hello' in capsys.readouterr().out\n\n\n"
    for i in range(60))  # 300 lines


async def _until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the scenario got stuck")
        await asyncio.sleep(0.01)


class Camera:
    """Which shots are wanted and where they go: ``await camera.shoot(name, widget)`` lets the widget settle,
    saves ``<name><suffix>.png`` and lists it (or does nothing when ``name`` is not wanted)."""

    def __init__(self, out: Path, suffix: str = "", names: tuple[str, ...] | None = None) -> None:
        self.out, self.suffix, self.names = out, suffix, names
        self.paths: list[Path] = []

    def wants(self, *names: str) -> bool:
        return self.names is None or any(name in self.names for name in names)

    async def shoot(self, name: str, widget, settle: float = 0.1) -> None:
        if not self.wants(name):
            return
        await settled(settle)
        widget.repaint()
        path = self.out / f"{name}{self.suffix}.png"
        _save(widget, path)
        self.paths.append(path)


async def scenario(out: Path, tmp: Path, suffix: str = "", names: tuple[str, ...] | None = None) -> list[Path]:
    from desktop.app import build_desktop
    from kernel.leases.approver import Grant
    from kernel.core.clock import ManualClock
    from kernel.providers.scripted import ScriptedProvider, reply
    from kernel.config.settings import Settings

    ws = tmp / "workspace"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "todo.md").write_text("# Todo\n\n- [ ] call the bank\n- [ ] renew passport\n")
    (ws / "notes" / "groceries.md").write_text("- milk\n- bread\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    os.environ["AGENTDESK_HOME"] = str(tmp / "home")
    for variable in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY"):  # scripted providers: nothing is sent anywhere
        os.environ.setdefault(variable, "screenshot-placeholder")
    _mail_account(tmp / "home")
    clock = ManualClock(time.time() - 600)
    providers: dict[str, ScriptedProvider] = {}
    desk = build_desktop(tmp / "home", providers=lambda name: providers[name], clock=clock,
                         settings=Settings(user_name="Ada", workspace=str(ws)), grant_delay_ms=0)
    k = desk.kernel
    win = desk.window
    win.show()

    def agent(name: str, budget: int = 200_000, provider: str | None = None, model: str = "claude-sonnet-4-5") -> str:
        """An agent with its own scripted provider; one named after a real provider is priced (Settings)."""
        provider = provider or f"scripted-{name}"
        providers[provider] = providers[f"scripted-{name}"] = ScriptedProvider()
        return k.agents.spawn(name, provider=provider, model=model, budget=budget).id

    answered: set[int] = set()

    def open_request(agent_id: str):
        return next((r for r in k.leases.pending() if r.agent_id == agent_id and r.id not in answered), None)

    async def answer(agent_id: str, seconds: float) -> None:
        await _until(lambda: open_request(agent_id) is not None)
        req = open_request(agent_id)
        answered.add(req.id)
        k.leases.resolve(req.id, Grant(seconds))

    scribe = agent("scribe", provider="anthropic")
    ask = win.window_for(scribe)
    ask.move(40, 40)
    providers["scripted-scribe"].script(
        reply("I'll merge the two todo items into one list and tick off the bank call.",
              tools=(("fs_read", {"path": "notes/todo.md"}),), usage=(18_400, 600), chunks=6),
        reply("Ticking it off now.", tools=(("fs_write", {"path": "notes/todo.md", "content":
              "# Todo\n\n- [x] call the bank\n- [ ] renew passport\n- [ ] book dentist\n"}),), usage=(19_900, 900)),
        reply("Done — **notes/todo.md** now has the bank call ticked and a dentist reminder.", usage=(1_200, 200),
              chunks=5))
    k.agents.send(scribe, "tidy the notes folder: tick off the bank call and add the dentist")
    await answer(scribe, 15 * 60)   # fs.read
    await answer(scribe, 15 * 60)   # fs.write
    await _until(lambda: k.agents.get(scribe).state == "idle")
    clock.advance(95)

    docs = agent("docs", provider="gemini", model="gemini-2.5-flash")
    providers["scripted-docs"].script(reply("The README covers installation and usage.", usage=(1_800, 300)))
    k.agents.send(docs, "summarise the README")
    await _until(lambda: k.agents.get(docs).state == "idle")

    cleanup = agent("cleanup", budget=50_000)
    providers["scripted-cleanup"].script(
        reply(tools=(("fs_write", {"path": "notes/groceries.md", "content": "- milk\n- bread\n- eggs\n"}),),
              usage=(9_000, 400)),
        reply("Added eggs.", usage=(500, 50)))
    k.agents.send(cleanup, "add eggs to groceries")
    await answer(cleanup, 5 * 60)
    await _until(lambda: k.agents.get(cleanup).state == "idle")
    k.agents.kill(cleanup)

    tester = agent("tester")
    providers["scripted-tester"].script(
        reply("I'll add tests for main().", tools=(("fs_write", {"path": "src/test_app.py", "content": BIG_TEST}),),
              usage=(11_000, 700)))
    tester_window = win.window_for(tester)
    tester_window.move(80, 80)
    k.agents.send(tester, "write a test for src/app.py")
    await _until(lambda: desk.lease_dialogs.request_for(tester) is not None)
    clock.advance(18)
    desk.bridge.tick.emit()

    view = win.ledger_view
    change = next(e for e in view.model.pager.entries if e.kind == "fs.write" and e.actor == scribe)
    view.select_seq(change.seq)
    win.raise_()
    cam = Camera(out, suffix, names)
    await cam.shoot("main-window", win, settle=0.2)
    await cam.shoot("ask-window", ask)
    await cam.shoot("ask-window-waiting", tester_window)
    await cam.shoot("lease-dialog", desk.lease_dialogs.bring_up(tester))

    tool_entry = next(e for e in view.model.pager.entries if e.kind == "tool" and e.actor == scribe
                      and getattr(e, "tool", "") == "fs_write")
    view.select_seq(tool_entry.seq)
    confirm = view.confirm_undo(tool_entry)
    await cam.shoot("undo-confirm", confirm)
    confirm.reject()
    if cam.wants("ledger-pictures", "undo-pictures"):
        await _ledger_pictures(desk, view, scribe, ws, cam)
    await _mail_shots(desk, agent, providers, cam)

    await extension_pages(cam, tmp, ws)
    from screenshots_more import channel_shots, compacted_ask_window, mcp_question

    await compacted_ask_window(desk, agent, providers, _until, cam)
    await mcp_question(cam)
    await channel_shots(desk, _until, cam)
    if cam.wants("history"):
        k.agents.archive(docs)  # out of the table, into History
        history = win.open_history()
        history.move(60, 60)
        await cam.shoot("history", history)
    if cam.wants("settings-web"):  # Settings → Web: the search back-end, the fetch caps, the switch
        from dataclasses import replace

        from desktop.settings_dialog import SettingsDialog

        dialog = SettingsDialog(desk.store, replace(desk.settings, web_search_backend="brave"), win, env={})
        dialog.tabs.setCurrentWidget(dialog.web_tab)
        dialog.show()
        dialog.body.ensureWidgetVisible(dialog.web_tab.allow_private)  # the Web page, scrolled into view
        await cam.shoot("settings-web", dialog)
        dialog.reject()

    if cam.wants("settings-prices"):  # Settings → a provider's prices: the cache-write column
        await _settings_prices(desk, win, cam)
    await _automations(desk, providers, ws, clock, cam)

    desk.window._done = True
    await k.aclose()
    desk.bridge.close()
    for dialog in list(desk.lease_dialogs.open.values()):
        dialog.withdraw()
    desk.ledger.close()

    if cam.wants("ask-window-reopened"):  # the next start: scribe's window opens again, rebuilt
        again = build_desktop(tmp / "home", providers=lambda name: providers[name], clock=clock,
                              settings=Settings(user_name="Ada", workspace=str(ws)), grant_delay_ms=0)
        again.window.show()
        reopened = again.window.windows[scribe]
        reopened.move(40, 40)
        await cam.shoot("ask-window-reopened", reopened, settle=0.2)
        again.window._done = True
        await again.kernel.aclose()
        again.bridge.close()
        again.ledger.close()
    return cam.paths


async def extension_pages(cam: Camera, tmp: Path, ws: Path) -> None:
    """Settings → MCP servers and Settings → Skills in service mode: a kernel service (``agentdesk kernel``,
    started as the desktop starts one) runs the home's MCP servers, and the page shows its word on each:
    the repository's small stdio test server connected, an HTTP server that refuses, one switched off."""
    from desktop.extension_pages import McpServersPage, PageDialog, SkillsPage
    from kernel import McpSecrets, McpServerConfig, McpStore, find_skills, set_pin
    from kernel.service import RemoteKernel, ensure_kernel
    from kernel.service.client import kernel_running

    if not cam.wants("settings-mcp", "settings-skills"):
        return
    os.environ["AGENTDESK_KEYRING"] = "off"  # the example's secret goes to the throwaway home's keys.json
    home = tmp / "service-home"
    store = McpStore(home)
    bin_dir = tmp / "bin"  # the test server as a command on PATH, so the shot shows no machine's paths
    bin_dir.mkdir()
    demo = bin_dir / "mcp-server-demo"
    demo.write_text(f"#!{sys.executable}\n" + (ROOT / "tests" / "extensions" / "mcp_test_server.py").read_text())
    demo.chmod(0o755)
    path_before = os.environ.get("PATH", "")
    store.add(McpServerConfig("demo", command="mcp-server-demo"))
    store.add(McpServerConfig("issues", url="http://127.0.0.1:9/mcp", headers={"X-Team": "docs"}, timeout_s=5),
              McpSecrets(headers={"Authorization": "Bearer example-token"}))
    store.add(McpServerConfig("files", command="npx", args=("@modelcontextprotocol/server-filesystem", "~/notes"),
                              enabled=False))
    for name, where, manifest, text in (
            ("release-notes", home / "skills", {"scopes": ["fs.read", "fs.write"],
                                                "paths": {"fs.write": ["CHANGELOG.md"]}}, "Drafts release notes."),
            ("pdf-forms", home / "skills", None, "Fills in PDF forms from a template."),
            ("style-guide", ws / ".agentdesk" / "skills", {"scopes": ["fs.read"]}, "House style for docs.")):
        folder = where / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {text}\n---\nSteps.\n")
        if manifest is not None:
            (folder / "manifest.json").write_text(__import__("json").dumps(manifest))
    broken = home / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: [oops\n---\n")
    for state in find_skills(home, ws).skills:
        if state.skill.name != "style-guide":
            set_pin(home, state.skill, True, mine=state.skill.name == "release-notes")
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{path_before}"  # the kernel started here inherits it
    try:
        await asyncio.to_thread(ensure_kernel, home)
    finally:
        os.environ["PATH"] = path_before
    kernel = await RemoteKernel.for_home(home, client="screenshots").start()
    try:
        await kernel.extensions.mcp_reload()  # returns once the kernel's own start of mcp.json is done
        for name, title, page in (("settings-mcp", "MCP servers",
                                   McpServersPage(store, kernel.extensions.mcp_status, reload=kernel.extensions.mcp_reload)),
                                  ("settings-skills", "Skills", SkillsPage(kernel, home, ws))):
            if not cam.wants(name):
                continue
            if isinstance(page, SkillsPage) and not page.catalog.skills:  # the kernel's catalogue, once it answers
                answered: asyncio.Future[object] = asyncio.get_running_loop().create_future()
                page.loaded.connect(lambda value, f=answered: f.done() or f.set_result(value))
                await asyncio.wait_for(answered, timeout=30)
            dialog = PageDialog(title, page)
            dialog.resize(760, 520)
            dialog.show()
            await cam.shoot(name, dialog, settle=0.05)
            dialog.close()
    finally:
        kernel.shutdown()
        await kernel.aclose()
        await _until(lambda: not kernel_running(home), timeout=30)


def _chart(values: list[int], colour: tuple[int, int, int]) -> bytes:
    """A small bar chart, as an agent plotting numbers would draw it (PNG bytes)."""
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 400), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.line((40, 360, 620, 360), fill=(60, 60, 60), width=2)
    for i, value in enumerate(values):
        x = 60 + i * 90
        draw.rectangle((x, 360 - value * 3, x + 60, 360), fill=colour)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


async def _ledger_pictures(desk, view, agent: str, ws: Path, cam: Camera) -> None:
    """A chart the agent redrew: the ledger's detail shows the picture before and after (issue 26)."""
    from kernel.api import LedgerFilter

    chart = ws / "notes" / "chart.png"
    desk.ledger.write_file(actor=agent, path=chart, content=_chart([40, 70, 55, 90, 30, 65], (90, 120, 200)),
                           cause=None)
    change = desk.ledger.write_file(actor=agent, path=chart, content=_chart([45, 80, 60, 100, 50, 85],
                                                                             (220, 120, 60)), cause=None)
    view.model.set_filters(LedgerFilter())  # written straight to the record: read the page again
    view.select_seq(change.seq)
    await _until(lambda: view.thumbnails.known(change.before) and view.thumbnails.known(change.after))
    view.splitter.setSizes([160, 420])
    await cam.shoot("ledger-pictures", view.window(), settle=0.2)
    if cam.wants("undo-pictures"):  # undo after the first chart: the orange one goes, the blue one comes back
        confirm = view.confirm_undo(desk.ledger.page(before=change.seq, limit=1)[0])
        await _until(lambda: all(pair.words("back") != "loading\u2026" for pair in confirm.pictures.values()))
        await cam.shoot("undo-pictures", confirm, settle=0.2)
        confirm.reject()


def _mail_account(home: Path) -> None:
    """A Fastmail-like account (nothing is contacted: the shots stop at the confirmation)."""
    from kernel.api import Account, AccountStore, SecretStore
    from kernel.config.settings import SettingsStore

    os.environ["AGENTDESK_KEYRING"] = "off"
    accounts = AccountStore(home, SecretStore(SettingsStore(home), use_keyring=False))
    accounts.save(Account(name="fastmail", address="ada@fastmail.example", user="ada@fastmail.example",
                          imap_host="imap.fastmail.com", smtp_host="smtp.fastmail.com",
                          caldav_url="https://caldav.fastmail.com/"), "app-password-placeholder")


async def _mail_shots(desk, agent, providers, cam: Camera) -> None:
    """The send confirmation (the exact message) and Settings → Accounts."""
    from kernel.providers.scripted import reply

    mailer = agent("mailer")
    providers["scripted-mailer"].script(reply("I'll send Bob the minutes.", tools=(("mail_send", {
        "to": ["Bob Stone <bob@example.com>"], "cc": ["carol@example.com"], "subject": "Minutes of Tuesday's review",
        "body": "Hi Bob,\n\nThe minutes are below. Action items:\n- Ada: update the budget sheet by Friday\n"
                "- Bob: book the room for the next review\n\nBest,\nAda\n"}),), usage=(2_000, 300)))
    desk.kernel.agents.send(mailer, "send Bob the minutes from notes/minutes.md")
    await _until(lambda: desk.lease_dialogs.request_for(mailer) is not None)
    await cam.shoot("mail-send-confirm", desk.lease_dialogs.bring_up(mailer))
    settings = desk.window.open_settings()
    accounts = settings.open_accounts()
    await cam.shoot("accounts-settings", accounts)
    accounts.reject()
    settings.reject()


async def _settings_prices(desk, win, cam: Camera) -> None:
    """The Anthropic tab's price lines: input, output, cached input and cache write per million tokens."""
    from dataclasses import replace

    from desktop.settings_dialog import SettingsDialog

    prices = {**desk.settings.prices, "anthropic": {
        **desk.settings.prices["anthropic"],
        "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "cached_input": 0.1, "cache_write": 1.25}}}
    dialog = SettingsDialog(desk.store, replace(desk.settings, provider="anthropic", prices=prices), win, env={})
    dialog.show()
    await settled(0.1)  # laid out first, so the scroll reaches the price lines
    bar = dialog.body.verticalScrollBar()
    bar.setValue(bar.maximum())  # the provider tab's last row: the price lines
    await settled()
    await cam.shoot("settings-prices", dialog, settle=0)
    dialog.reject()


async def _automations(desk, providers, ws: Path, clock, cam: Camera) -> None:
    """The Automations window with runs and an Inbox item, the form, and one run opened read-only."""
    from kernel.api import Automation, PolicyItem
    from kernel.providers.scripted import ScriptedProvider, reply

    if not cam.wants("automations", "automation-form", "automation-run"):
        return
    k = desk.kernel
    providers["scripted-digest"] = ScriptedProvider()
    digest = k.automations.add(Automation(
        id="", name="Notes digest", objective="Summarise what changed in notes/ into notes/digest.md.",
        schedule="0 7 * * 1-5", timezone="Europe/Berlin", policy=(PolicyItem("fs.read", 900.0),),
        workspace=str(ws), provider="scripted-digest", model="claude-sonnet-4-5", expires=clock.now() + 90 * 86400))
    tidy = k.automations.add(Automation(id="", name="Weekly tidy", objective="Tidy src/.", schedule="every 1d",
                                        workspace=str(ws), provider="scripted-digest", model="claude-sonnet-4-5"))
    providers["scripted-digest"].script(
        reply(tools=(("fs_read", {"path": "notes/todo.md"}),), usage=(4_000, 200)),
        reply(tools=(("fs_write", {"path": "notes/digest.md", "content": "# Digest\n"}),), usage=(4_400, 300)),
        reply("notes/todo.md: the bank call is done and a dentist reminder was added. I could not write "
              "notes/digest.md: fs.write is outside this automation's policy.", usage=(4_800, 120)))
    task = k.automations.start_run(digest.id)
    await _until(lambda: task.done())
    providers["scripted-digest"].script(  # a second refusal in the Inbox: this one has no policy at all
        reply(tools=(("fs_list", {"path": "src"}),), usage=(3_000, 100)), reply("Nothing to tidy.", usage=(3_100, 40)))
    task = k.automations.start_run(tidy.id)
    await _until(lambda: task.done())
    _unknown_mail(desk.ledger)  # the Inbox also shows mails not known to have gone out
    _unknown_mail(desk.ledger, "Carol <carol@example.com>", "Room for the next review", "k-shot-2",
                  "the kernel stopped while sending")
    win = desk.window.open_automations()
    win.move(10, 10)
    win.list.selectRow([v.automation.id for v in win.views].index(digest.id))  # ids are random: pick it by id
    win.history.setCurrentCell(0, 0)
    await cam.shoot("automations", win)
    form = win.edit()
    run = win.open_run()
    await cam.shoot("automation-form", form)
    await cam.shoot("automation-run", run)
    form.reject()
    run.close()
    win.close()
    await _automation_create_confirm(desk, providers, cam)
    await _automation_settings(desk, cam)


async def _automation_settings(desk, cam: Camera) -> None:
    """Settings → Automations: the catch-up window and the self-pause count."""
    from desktop.settings_dialog import SettingsDialog

    if not cam.wants("settings-automations"):
        return
    settings = SettingsDialog(desk.store, desk.settings, desk.window, env={})
    settings.show()
    page = settings.open_automations()
    await cam.shoot("settings-automations", page)
    page.reject()
    settings.reject()


async def _automation_create_confirm(desk, providers, cam: Camera) -> None:
    """automation_create's one-off confirmation: the lease dialog with the whole definition in words."""
    from kernel.providers.scripted import ScriptedProvider, reply

    if not cam.wants("automation-create-confirm"):
        return
    providers["scripted-planner"] = ScriptedProvider()
    planner = desk.kernel.agents.spawn("planner", provider="scripted-planner", model="claude-sonnet-4-5").id
    providers["scripted-planner"].script(reply("I'll set that up to run every weekday morning.", tools=((
        "automation_create", {"name": "Morning notes digest", "timezone": "Europe/Berlin", "schedule": "0 7 * * 1-5",
                              "objective": "Summarise what changed in notes/ since the last run into notes/digest.md, "
                                           "one bullet per file.",
                              "policy": [{"scope": "fs.read", "minutes": 15}, {"scope": "fs.write", "minutes": 15}],
                              "budget": 60000, "time_limit_minutes": 20}),), usage=(2_000, 200)))
    desk.kernel.agents.send(planner, "every weekday at 7, summarise what changed in my notes")
    await _until(lambda: desk.lease_dialogs.request_for(planner) is not None)
    dialog = desk.lease_dialogs.bring_up(planner)
    await cam.shoot("automation-create-confirm", dialog)
    dialog.deny()


def _unknown_mail(ledger, to: str = "Bob Stone <bob@example.com>", subject: str = "Minutes of Tuesday's review",
                  key: str = "k-shot", why: str = "the connection broke after sending; could not check: the IMAP "
                                                 "server did not answer") -> None:
    """A mail whose sending broke off and could not be checked: its call, intent and ``unknown`` outcome."""
    from ledger import KERNEL, Intent, Outcome, ToolCall

    args = {"to": [to], "subject": subject, "body": f"Hi {to.split()[0]},\n\nThe minutes are below.\n\nBest,\nAda\n",
            "account": "fastmail"}
    call = ledger.append(ToolCall(actor="a-3", tool="mail_send", scope="mail.send", input=args, call=f"c-{key}"))
    intent = ledger.append(Intent(actor="a-3", tool="mail_send", key=key, call_id=f"c-{key}", cause=call.seq,
                                  target=f"<{key}@agentdesk.invalid>"))
    ledger.append(Outcome(actor=KERNEL, status="unknown", cause=intent.seq, detail=why))


def _save(widget, path: Path) -> None:
    """A PNG of the widget, as small as lossless allows (full compression)."""
    widget.grab().toImage().save(str(path), "PNG", 0)


def dark_palette():
    """A dark variant of the palette, as a system dark theme would give."""
    from PySide6.QtGui import QColor, QPalette

    pal = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#262626"),
                         (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#3a3a3a"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#3d7bd9"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#3a3a3a"),
                         (QPalette.ColorRole.ToolTipText, "#e6e6e6"), (QPalette.ColorRole.Link, "#8ab4f8"),
                         (QPalette.ColorRole.Mid, "#505050"), (QPalette.ColorRole.Dark, "#1a1a1a"),
                         (QPalette.ColorRole.Light, "#4a4a4a"), (QPalette.ColorRole.Midlight, "#404040"),
                         (QPalette.ColorRole.Shadow, "#000000"), (QPalette.ColorRole.PlaceholderText, "#8a8a8a")):
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return pal


def main(argv: list[str]) -> int:
    import qasync

    from desktop.app import make_app

    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = make_app([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        with tempfile.TemporaryDirectory() as tmp:
            shots = loop.run_until_complete(scenario(out, Path(tmp)))
        light = app.palette()
        app.setPalette(dark_palette())
        with tempfile.TemporaryDirectory() as tmp:
            shots += loop.run_until_complete(scenario(out, Path(tmp), "-dark", ("main-window", "ask-window")))
        app.setPalette(light)
        with tempfile.TemporaryDirectory() as tmp:  # trust: a tainted agent and its R3 confirmation
            from screenshots_trust import trust_scenario

            shots += loop.run_until_complete(trust_scenario(out, Path(tmp), _until, _save))
        with tempfile.TemporaryDirectory() as tmp:  # sandbox: commands fall back to snapshots, said once
            from screenshots_sandbox import sandbox_scenario

            shots += loop.run_until_complete(sandbox_scenario(out, Path(tmp), _until, _save))
    for path in shots:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
