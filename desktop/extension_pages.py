"""Settings pages for extensions: MCP servers (mcp.json; secrets where keys live) and Skills (pins).

Thin Qt over kernel files: the MCP page lists the servers with what the running kernel says of
each (connected, its tools, the tools left out and why) and adds, replaces or removes one; secret
values are typed into a password field, stored like provider keys (the system keyring, or the
owner-only keys.json), and shown back by name only. After each save the running kernel (in this
process or the kernel service) is asked to read mcp.json again, so the change applies at once. The
Skills page lists every skill the running kernel finds in the home and the workspace (``skills`` on
the facade: the reading agents' prompts use), with its state in words (enabled, changed since
enabled, off), what its manifest allows, and the folders skipped with the reason; enabling asks the
kernel to pin the hash the page showed. Keyboard-only: every control
takes focus in reading order, and the buttons have mnemonics.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

import shiboken6

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QHeaderView, QLabel,
    QLineEdit, QPlainTextEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from kernel import ConfigError, McpSecrets, McpStore, mcp_sign_in, parse_server
from kernel.api import McpChanged, SkillCatalog, SkillInfo

from .theme import ERROR, MUTED, mono_font, shade
from .wording import plain_tip

StatusFn = Callable[[], list[Any]]
ReloadFn = Callable[[], Awaitable[Any]]
SubscribeFn = Callable[[Callable[[Any], None]], Callable[[], None]]  # the facade's subscribe


def _open_url(url: str) -> bool:
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    return QDesktopServices.openUrl(QUrl(url))


def _table(parent: QWidget, headers: list[str], stretch: int | None = None) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setTabKeyNavigation(False)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # paths elide in the middle; the tooltip has them whole
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if stretch is None:
        header.setStretchLastSection(True)
    else:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table


def _cell(text: str, tip: str = "", mono: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(plain_tip(tip or text) or "")  # a skill's description, a server's reason: as written
    if mono:
        item.setFont(mono_font())
    return item


def _pairs(text: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{what}: write each line as NAME=value ({line[:40]!r} is not)", what)
        out[key.strip()] = value.strip()
    return out


class McpServersPage(QWidget):
    """The MCP servers in mcp.json: a table, and a form to add, replace or remove one."""

    applied = Signal(object)  # the kernel's McpReload (or the exception) after a save was applied

    def __init__(self, store: McpStore, status: StatusFn | None = None, parent: QWidget | None = None,
                 reload: ReloadFn | None = None, subscribe: SubscribeFn | None = None,
                 open_url: Callable[[str], bool] = _open_url) -> None:
        super().__init__(parent)
        self.store, self.status, self.reload = store, status, reload
        self.open_url = open_url
        self.signing_in: asyncio.Future[Any] | None = None  # a sign-in waiting for the browser: ends with the page
        self.destroyed.connect(lambda *_: self.signing_in.cancel() if self.signing_in is not None else None)
        if subscribe is not None:  # a hand edit of mcp.json, applied by the kernel, shows here too
            unsubscribe = subscribe(self._kernel_event)
            self.destroyed.connect(lambda *_: unsubscribe())
        self._reloads: set[asyncio.Future[Any]] = set()
        self.table = _table(self, ["Server", "Runs", "Secrets", "State"], stretch=1)
        self.table.itemSelectionChanged.connect(self._fill_from_selection)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText("git")
        self.kind = QComboBox(self)
        self.kind.addItems(["Command (stdio)", "URL (streamable HTTP)"])
        self.target = QLineEdit(self)
        self.target.setFont(mono_font())
        self.target.setPlaceholderText("mcp-server-git --repository ~/src/project")
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.plain = QPlainTextEdit(self)
        self.plain.setTabChangesFocus(True)
        self.plain.setPlaceholderText("LOG_LEVEL=info  (one NAME=value per line; environment or headers)")
        self.plain.setFixedHeight(self.fontMetrics().lineSpacing() * 2 + 12)
        self.secret = QLineEdit(self)
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.secret.setPlaceholderText("NAME=value, kept where your API keys are (never shown again)")
        self.timeout = QLineEdit("60", self)
        self.timeout.setMaximumWidth(80)
        form = QFormLayout()
        form.addRow("&Name", self.name)
        form.addRow("&Kind", self.kind)
        form.addRow("&Command", self.target)
        form.addRow("Environment", self.plain)
        form.addRow("&Secret", self.secret)
        form.addRow("&Timeout (s)", self.timeout)
        self.add_button = QPushButton("&Add or replace", self)
        self.add_button.clicked.connect(self.add)
        self.remove_button = QPushButton("&Remove", self)
        self.remove_button.clicked.connect(self.remove)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        self.sign_in_button = QPushButton("Sign &in", self)  # a remote server's OAuth, as `agentdesk mcp login`
        self.sign_in_button.setToolTip("Opens your browser to sign in to the selected remote server")
        self.sign_in_button.clicked.connect(self.sign_in)
        self.sign_in_button.setEnabled(False)
        buttons.addWidget(self.sign_in_button)
        buttons.addStretch(1)
        self.note = QLabel("Each tool becomes mcp__<server>__<tool> under the lease scope mcp.<server>.<tool>; a "
                           "lease on mcp.<server> covers the whole server. Their output is untrusted. " +
                           ("Changes apply at once in the running kernel." if reload is not None else
                            "Changes apply when Agentdesk next starts."), self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {shade(ERROR, self.palette())};")
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addWidget(self.problem)
        self.refresh()

    def _kind_changed(self, index: int) -> None:
        url = index == 1
        self.target.setPlaceholderText("https://example.com/mcp" if url else
                                       "mcp-server-git --repository ~/src/project")
        self.plain.setPlaceholderText("X-Team=docs  (one header per line)" if url else
                                      "LOG_LEVEL=info  (one NAME=value per line)")

    def refresh(self, keep_problem: bool = False) -> None:
        loaded = self.store.load()
        live = {s.name: s for s in (self.status() if self.status is not None else [])}
        self.table.setRowCount(0)
        for server in loaded.servers:
            row = self.table.rowCount()
            self.table.insertRow(row)
            secrets = ", ".join(self.store.secrets(server.name).names()) or "none"
            self.table.setItem(row, 0, _cell(server.name, mono=True))
            self.table.setItem(row, 1, _cell(server.target(), mono=True))
            self.table.setItem(row, 2, _cell(secrets))
            self.table.setItem(row, 3, _cell(*_state_words(server.enabled, live.get(server.name))))
        listed = {server.name for server in loaded.servers}
        for name, kept in sorted(live.items()):  # running on while its entry in mcp.json cannot be used
            if name in listed or kept.config_problem is None:
                continue
            row = self.table.rowCount()
            self.table.insertRow(row)
            self.table.setItem(row, 0, _cell(name, mono=True))
            self.table.setItem(row, 1, _cell("(its entry in mcp.json cannot be used)", kept.config_problem))
            self.table.setItem(row, 2, _cell(""))
            self.table.setItem(row, 3, _cell(*_state_words(True, kept)))
        problems = [p.message for p in loaded.problems]
        if keep_problem and self.problem.text():
            problems = [self.problem.text(), *problems]
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))

    def _fill_from_selection(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        item = self.table.item(rows[0].row(), 0)
        server = next((s for s in self.store.load().servers if item is not None and s.name == item.text()), None)
        if server is None:
            return
        self.name.setText(server.name)
        self.kind.setCurrentIndex(0 if server.command is not None else 1)
        self.target.setText(server.target())
        pairs = server.env if server.command is not None else server.headers
        self.plain.setPlainText("\n".join(f"{k}={v}" for k, v in pairs.items()))
        self.timeout.setText(f"{server.timeout_s:g}")
        self.secret.clear()
        self.sign_in_button.setEnabled(server.url is not None)

    def sign_in(self) -> None:
        """Sign in to the selected remote server (the flow of ``agentdesk mcp login``): the browser opens on the
        server's sign-in page, the tokens go where keys live, and the running kernel reads mcp.json again."""
        name = self.name.text().strip()
        if self.signing_in is not None and not self.signing_in.done():
            return

        async def browser(url: str) -> None:
            opened = self.open_url(url)
            self.note.setText(f"Sign in to {name} in your browser; Agentdesk waits for it to come back." if opened
                              else f"Open this address to sign in to {name}: {url}")

        self.note.setText(f"Signing in to {name}\u2026")
        self.signing_in = asyncio.ensure_future(mcp_sign_in(self.store, name, browser))
        self.signing_in.add_done_callback(lambda f: self._signed_in(name, f))

    def _signed_in(self, name: str, future: "asyncio.Future[Any]") -> None:
        if future.cancelled() or not shiboken6.isValid(self):
            return
        error = future.exception()
        if error is not None:
            self.problem.setText(f"Not signed in to {name}: {getattr(error, 'message', error)}")
            self.problem.show()
            return
        self.note.setText(f"Signed in to {name}: {future.result()} tools.")
        self._apply()

    def add(self) -> bool:
        import shlex

        try:
            url = self.kind.currentIndex() == 1
            pairs = _pairs(self.plain.toPlainText(), "headers" if url else "environment")
            secret = _pairs(self.secret.text(), "secret")
            data: dict[str, Any] = {"timeout_s": float(self.timeout.text() or "60")}
            if url:
                data.update(url=self.target.text().strip(), headers=pairs)
            else:
                words = shlex.split(self.target.text())
                data.update(command=words[0] if words else "", args=words[1:], env=pairs)
            config = parse_server(self.name.text().strip(), data)
            old = self.store.secrets(config.name)
            secrets = McpSecrets({**old.env, **(secret if not url else {})}, {**old.headers, **(secret if url else {})})
            self.store.add(config, secrets)
        except (ConfigError, ValueError, OSError) as exc:
            self.problem.setText(f"Not saved: {exc}")
            self.problem.show()
            return False
        self.secret.clear()
        self.refresh()
        self._apply()
        return True

    def remove(self) -> bool:
        name = self.name.text().strip()
        try:
            removed = self.store.remove(name)
        except (ConfigError, OSError) as exc:
            self.problem.setText(f"Not removed: {exc}")
            self.problem.show()
            return False
        self.refresh()
        if removed:
            self._apply()
        return removed

    def _apply(self) -> None:
        """Ask the running kernel to read mcp.json again; the table shows its word when it answers."""
        if self.reload is None:
            return
        self.note.setText("Applying the change in the running kernel\u2026")
        future = asyncio.ensure_future(self.reload())
        self._reloads.add(future)
        future.add_done_callback(self._applied)

    def _kernel_event(self, event: object) -> None:
        if not isinstance(event, McpChanged) or not event.edited or not shiboken6.isValid(self):
            return
        # the page's own save can reach the kernel's watcher before the page's reload request: either way the
        # reload's problems are shown
        self.note.setText(f"mcp.json was edited: the running kernel read it again: {event.reload.in_words()}.")
        self._show_problems(list(event.reload.problems))
        self.refresh(keep_problem=True)
        self.applied.emit(event.reload)

    def _show_problems(self, problems: list[str]) -> None:
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))

    def _applied(self, future: "asyncio.Future[Any]") -> None:
        self._reloads.discard(future)
        if future.cancelled():
            return
        error = future.exception()
        outcome: Any = error if error is not None else future.result()
        try:
            if error is not None:
                self.problem.setText(f"The running kernel did not take the change: {error}")
                self.problem.show()
                self.note.setText("It applies when the kernel next starts.")
            else:
                self.note.setText(f"Applied in the running kernel: {outcome.in_words()}.")
                self._show_problems(list(outcome.problems))
                self.refresh(keep_problem=True)
        except RuntimeError:  # the page was closed before the kernel answered
            return
        self.applied.emit(outcome)


def _state_words(enabled: bool, live: Any) -> tuple[str, str]:
    if not enabled:
        return "off", "switched off in mcp.json"
    if live is None:
        return "not started", "starts with Agentdesk"
    tools = len(live.tools)
    state = "not started" if live.state == "stopped" else live.state
    words = f"{state} · {tools} tool{'s' if tools != 1 else ''}"
    if live.error:
        words += f" · {live.error}"
    tip_lines = [words] + ([f"error: {live.error}"] if live.error else [])
    if getattr(live, "config_problem", None):  # a bad edit of its entry: it runs as it was
        words += " · as before the edit"
        tip_lines.append(f"mcp.json: {live.config_problem}")
    if live.disabled:
        words += f" · {len(live.disabled)} left out"
        tip_lines += [f"left out {name}: {why}" for name, why in live.disabled]
    return words, "\n".join(tip_lines)


class SkillsDesk(Protocol):
    """The part of the kernel's extensions desk the Skills page uses (``kernel.api.ExtensionDesk``)."""

    def skills(self, workspace: str | None = None) -> Awaitable[SkillCatalog]: ...
    def set_skill_enabled(self, folder: str, sha256: str, enabled: bool, mine: bool = False,
                          workspace: str | None = None) -> Awaitable[SkillCatalog]: ...


class SkillsSource(Protocol):
    """The kernel facade as the Skills page sees it (``kernel.api.KernelFacade``): its extensions desk."""

    @property
    def extensions(self) -> SkillsDesk: ...


class SkillsPage(QWidget):
    """The skills the running kernel finds for the home and the workspace; enabling pins the hash shown."""

    loaded = Signal(object)  # the kernel's SkillCatalog (or the exception) each time the table is filled

    def __init__(self, kernel: SkillsSource | None, home: Path, workspace: Path | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel, self.home, self.workspace = kernel, home, workspace
        self.catalog = SkillCatalog()
        self.refusal = ""  # why the kernel refused the last change (shown above the skipped folders)
        self._asks: set[asyncio.Future[Any]] = set()
        self.table = _table(self, ["Skill", "From", "State", "May use"])
        self.mine = QCheckBox("I &wrote this skill (its text is trusted: loading it does not taint)", self)
        self.enable_button = QPushButton("&Enable", self)
        self.enable_button.clicked.connect(lambda: self.set_enabled(True))
        self.disable_button = QPushButton("&Disable", self)
        self.disable_button.clicked.connect(lambda: self.set_enabled(False))
        buttons = QHBoxLayout()
        buttons.addWidget(self.enable_button)
        buttons.addWidget(self.disable_button)
        buttons.addStretch(1)
        where = [str(home / "skills")] + ([str(workspace / ".agentdesk" / "skills")] if workspace else [])
        self.note = QLabel("A skill is a folder with SKILL.md and manifest.json, in " + " or ".join(where) + ". "
                           "Agents see only names and descriptions until they load one; under a skill they may "
                           "use only what both their leases and its manifest allow (no manifest: no tools). "
                           "A skill that changes is switched off until you enable it again.", self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.skipped = QLabel(self)
        self.skipped.setTextFormat(Qt.TextFormat.PlainText)  # folder names an agent may have made
        self.skipped.setWordWrap(True)
        self.skipped.setStyleSheet(f"color: {shade(ERROR, self.palette())};")
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.mine)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addWidget(self.skipped)
        self.refresh()

    def _where(self) -> str | None:
        return None if self.workspace is None else str(self.workspace)

    def refresh(self) -> None:
        """Ask the kernel for its catalogue; the table is filled when it answers (``loaded``)."""
        if self.kernel is None:
            self._show_problem("No kernel is running, so no skills are listed: the kernel finds them when it runs.")
            return
        self._ask(self.kernel.extensions.skills(self._where()))

    def selected(self) -> SkillInfo | None:
        rows = self.table.selectionModel().selectedRows()
        return self.catalog.skills[rows[0].row()] if rows else None

    def set_enabled(self, enabled: bool) -> None:
        """Enable the selected skill at the hash shown (the kernel refuses it if it changed since), or disable it."""
        skill = self.selected()
        if skill is None or self.kernel is None:
            return
        self.refusal = ""
        self._ask(self.kernel.extensions.set_skill_enabled(skill.folder, skill.sha256, enabled, self.mine.isChecked(),
                                                self._where()), keep_row=self.table.currentRow())

    def _ask(self, call: Awaitable[SkillCatalog], keep_row: int | None = None) -> None:
        future = asyncio.ensure_future(call)
        self._asks.add(future)
        future.add_done_callback(lambda f: self._answered(f, keep_row))

    def _answered(self, future: "asyncio.Future[SkillCatalog]", keep_row: int | None) -> None:
        self._asks.discard(future)
        if future.cancelled() or not shiboken6.isValid(self):
            return  # the page was closed before the kernel answered
        error = future.exception()
        if error is not None:
            if keep_row is not None:  # a refused change: said, and the skills shown as they are now
                self.refusal = f"Not changed: {error}"
                self.refresh()
            self._show_problem(self.refusal or f"The kernel did not answer: {error}")
            self.loaded.emit(error)
            return
        self._fill(future.result())
        if keep_row is not None and 0 <= keep_row < self.table.rowCount():
            self.table.selectRow(keep_row)
        self.loaded.emit(self.catalog)

    def _fill(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog
        self.table.setRowCount(0)
        for skill in catalog.skills:
            row = self.table.rowCount()
            self.table.insertRow(row)
            self.table.setItem(row, 0, _cell(skill.name, skill.description, mono=True))
            self.table.setItem(row, 1, _cell(skill.source, skill.folder))
            self.table.setItem(row, 2, _cell(_skill_state(skill)))
            allowed = "no tools (no manifest.json)" if skill.scopes is None else (", ".join(skill.scopes) or "no tools")
            self.table.setItem(row, 3, _cell(allowed, mono=skill.scopes is not None))
        lines = [f"Skipped {Path(folder).name}: {why}" for folder, why in catalog.skipped]
        self._show_problem("\n".join([self.refusal, *lines] if self.refusal else lines))

    def _show_problem(self, text: str) -> None:
        self.skipped.setText(text)
        self.skipped.setVisible(bool(text))


def _skill_state(skill: SkillInfo) -> str:
    if skill.state == "enabled":
        return "enabled (yours)" if skill.mine else "enabled (untrusted text)"
    if skill.state == "changed":
        return "changed since enabled: off until enabled again"
    return "off"


class PageDialog(QDialog):
    """One extension page in its own window, window-modal to the Settings dialog."""

    def __init__(self, title: str, page: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.NonModal)
        self.page = page
        page.setParent(self)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(page, 1)
        layout.addWidget(close)
        self.resize(760, 560)


def extension_buttons(parent: QWidget, home: Path, workspace: Callable[[], str], status: StatusFn | None,
                      reload: ReloadFn | None = None, skills: SkillsSource | None = None,
                      ) -> tuple[QHBoxLayout, dict[str, Callable[[], PageDialog]]]:
    """A row of buttons opening the MCP servers and Skills pages (for the Settings dialog); ``skills`` is the
    kernel the Skills page asks (and whose events tell the MCP page of a hand edit of mcp.json)."""
    def open_mcp() -> PageDialog:
        subscribe = getattr(skills, "subscribe", None)  # the kernel's events, when the page has the kernel
        dialog = PageDialog("MCP servers", McpServersPage(McpStore(home), status, reload=reload, subscribe=subscribe),
                            parent)
        dialog.open()
        return dialog

    def open_skills() -> PageDialog:
        folder = workspace().strip()
        where = Path(folder).expanduser().absolute() if folder else None
        dialog = PageDialog("Skills", SkillsPage(skills, home, where), parent)
        dialog.open()
        return dialog

    row = QHBoxLayout()
    row.addWidget(QLabel("<b>Extensions</b>", parent))
    for text, fn in (("&MCP servers\u2026", open_mcp), ("S&kills\u2026", open_skills)):
        button = QPushButton(text, parent)
        button.clicked.connect(fn)
        row.addWidget(button)
    row.addStretch(1)
    return row, {"mcp": open_mcp, "skills": open_skills}
