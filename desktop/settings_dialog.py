"""The Settings dialog: preferences into settings.json, API keys into keys.json (0600), nothing else.

A thin form over ``settings_form``: it copies fields into ``FormValues``,
shows every problem ``check_form`` finds beside the Save button, and on a
valid Save writes through ``SettingsStore`` and emits ``saved`` with the new
``Settings``. Keys are typed into password fields, never read back into
them, and stored only with ``save_key``; under each, a line says where the
key in use comes from (the environment, keys.json, or nowhere yet) without
showing it. Window-modal to its parent, never application-modal; the folder
picker is opened, not executed.
"""

from __future__ import annotations

import os
from typing import Any, Awaitable, Callable, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
    QFrame, QPlainTextEdit, QPushButton, QScrollArea, QSpinBox, QTabWidget, QVBoxLayout, QWidget,
)

from kernel import SettingsStore
from kernel.api import BASE_URL_VARIABLES, PROVIDERS, ConfigError, KeySource, OverlayStatus, Settings

from .widgets.dialog_parts import error_label, refuse, save_cancel
from .theme import MUTED, mono_font, shade
from .web_settings import WebTab
from .settings_form import (
    PRICE_LINE_HELP, FormValues, ProviderValues, apply_form, check_form, key_changes, key_source_text, values_from,
)


class ProviderTab(QWidget):
    """Key, base URL and default model for one provider."""

    def __init__(self, provider: str, values: ProviderValues, has_key: bool, parent: QWidget | None = None,
                 source: KeySource | ConfigError | None = None) -> None:
        super().__init__(parent)
        self.provider = provider
        self.key = QLineEdit(self)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("a key is saved; type to replace it" if has_key else "type a key to save it")
        self.source = QLabel(key_source_text(provider, source or KeySource(None, provider), has_key), self)
        self.source.setWordWrap(True)
        self.source.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.forget = QCheckBox("Forget the saved key", self)
        self.forget.setVisible(has_key)
        self.base_url = QLineEdit(values.base_url, self)
        self.base_url.setPlaceholderText(f"default endpoint (or set {BASE_URL_VARIABLES[provider]})")
        self.model = QLineEdit(values.model, self)
        self.fallbacks = QLineEdit(values.fallbacks, self)  # its default route (kernel/routes)
        self.fallbacks.setObjectName(f"fallbacks-{provider}")
        self.fallbacks.setPlaceholderText(f"e.g. {provider}:a-smaller-model (provider:model, in order)")
        self.fallbacks.setToolTip("Models that answer, in order, when the default model is overloaded, "
                                  "rate-limited, down or offline. Another vendor's only when allowed below.")
        self.prices = QPlainTextEdit(values.prices or "", self)
        self.prices.setObjectName(f"prices-{provider}")
        self.prices.setFont(mono_font())
        self.prices.setTabChangesFocus(True)
        self.prices.setPlaceholderText("e.g.  my-model  3  15  0.3  3.75")
        self.prices.setToolTip("Prices turn tokens into money in the process table, Ask windows and the status "
                               "line; " + PRICE_LINE_HELP + ". A model without a price shows tokens only.")
        self.prices.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        form = QFormLayout(self)
        form.addRow("API key", self.key)
        form.addRow("", self.source)
        form.addRow("", self.forget)
        form.addRow("Base URL", self.base_url)
        form.addRow("Default model", self.model)
        form.addRow("Fallbacks", self.fallbacks)
        form.addRow("Prices per 1M tokens\n(model in out cached\ncache-write)", self.prices)

    def values(self) -> ProviderValues:
        return ProviderValues(key=self.key.text(), forget_key=self.forget.isChecked(),
                              base_url=self.base_url.text(), model=self.model.text(),
                              prices=self.prices.toPlainText(), fallbacks=self.fallbacks.text())


class SettingsDialog(QDialog):
    saved = Signal(object)  # the new Settings

    def __init__(self, store: SettingsStore, settings: Settings, parent: QWidget | None = None,
                 env: Mapping[str, str] | None = None, mcp_status: Callable[[], list[Any]] | None = None,
                 mcp_reload: Callable[[], Awaitable[Any]] | None = None,
                 sandbox: OverlayStatus | None = None, skills: Any = None, kernel: Any = None) -> None:
        super().__init__(parent)
        self.store, self.settings, self.env = store, settings, env
        self.sandbox = sandbox  # how the kernel captures shell commands (its ``sandbox_mode``), when known
        self.mcp_status = mcp_status  # the running kernel's word on each MCP server, for that page
        self.mcp_reload = mcp_reload  # asks the running kernel to read mcp.json again after the page saves
        self.skills = skills  # the kernel the Skills page asks for its catalogue (extension_pages.SkillsSource)
        self.kernel = kernel  # the running kernel's facade, for Settings → Channels (None: the page is off)
        self.setWindowTitle("Settings")
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.NonModal)
        self.setMinimumWidth(560)
        self.folder_dialog: QFileDialog | None = None
        self._build(values_from(settings))

    def _build(self, values: FormValues) -> None:
        self.user_name = QLineEdit(values.user_name, self)
        self.workspace = QLineEdit(values.workspace, self)
        choose = QPushButton("Choose\u2026", self)
        choose.clicked.connect(self.choose_workspace)
        ws_row = QHBoxLayout()
        ws_row.addWidget(self.workspace, 1)
        ws_row.addWidget(choose)
        self.default_lease = QSpinBox(self)
        self.default_lease.setRange(1, 480)
        self.default_lease.setSuffix(" minutes")
        self.default_lease.setValue(values.default_lease_min)
        self.request_expiry = QSpinBox(self)
        self.request_expiry.setRange(10, 24 * 3600)
        self.request_expiry.setSuffix(" seconds")
        self.request_expiry.setValue(values.request_expiry_s)
        self.default_budget = QSpinBox(self)
        self.default_budget.setRange(1000, 2_000_000_000)
        self.default_budget.setSingleStep(10_000)
        self.default_budget.setGroupSeparatorShown(True)
        self.default_budget.setSuffix(" tokens")
        self.default_budget.setValue(values.default_budget)
        self.provider = QComboBox(self)
        self.provider.addItems(list(PROVIDERS))
        self.provider.setCurrentText(values.provider)

        form = QFormLayout()
        form.addRow("Your name", self.user_name)
        form.addRow("Workspace", ws_row)
        form.addRow("Default lease", self.default_lease)
        form.addRow("Lease requests expire after", self.request_expiry)
        form.addRow("Default budget", self.default_budget)
        form.addRow("Provider for new agents", self.provider)
        self.any_vendor = QCheckBox("Fallbacks may send a conversation to another vendor", self)
        self.any_vendor.setChecked(values.fallback_any_vendor)
        form.addRow("", self.any_vendor)
        self.utility_model = QLineEdit(values.utility_model, self)
        self.utility_model.setPlaceholderText("provider:model for summaries and titles (empty: each agent's own)")
        form.addRow("Utility model", self.utility_model)
        self.compact_at = QSpinBox(self)  # the kernel reads it before every request: a change applies at once
        self.compact_at.setRange(1, 100)  # what is typed is checked on Save, with the reason (settings_form)
        self.compact_at.setSuffix("% of the model's window")
        self.compact_at.setValue(values.compact_at_percent)
        form.addRow("Make the context smaller at", self.compact_at)
        self.context_window = QLineEdit(values.context_window, self)
        self.context_window.setPlaceholderText("each model's known window (set it for a local model)")
        form.addRow("Context window, tokens", self.context_window)
        self.read_only = QPlainTextEdit(values.sandbox_read_only, self)
        self.read_only.setPlaceholderText("one folder per line, e.g. ~/datasets")
        self.read_only.setTabChangesFocus(True)
        self.read_only.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        form.addRow("Folders commands may read", self.read_only)
        self.read_only_note = QLabel("Shell commands see these read-only besides the workspace. Never shown, "
                                     "whatever this says: the Agentdesk home, ~/.ssh, ~/.gnupg, cloud "
                                     "credentials, keyrings and browser profiles."
                                     + (f"\nCommands' changes are captured by: {self.sandbox.mode}."
                                        if self.sandbox is not None else ""), self)
        self.read_only_note.setWordWrap(True)
        form.addRow("", self.read_only_note)

        try:
            saved_keys = self.store.keys()
        except ConfigError:  # each tab says why keys.json cannot be used
            saved_keys = {}
        saved_keys = {**dict.fromkeys(self.store.keyring_names(), ""), **saved_keys}  # saved in the keyring too
        self.tabs = QTabWidget(self)
        self.provider_tabs: dict[str, ProviderTab] = {}
        for name in PROVIDERS:
            tab = ProviderTab(name, values.providers[name], name in saved_keys, self.tabs, self._key_source(name))
            self.provider_tabs[name] = tab
            self.tabs.addTab(tab, name)
        self.web_tab = WebTab(self.settings, saved_keys, os.environ if self.env is None else self.env, self.tabs)
        self.tabs.addTab(self.web_tab, "Web")
        self.tabs.setCurrentWidget(self.provider_tabs[values.provider])
        self.provider.currentTextChanged.connect(lambda p: self.tabs.setCurrentWidget(self.provider_tabs[p]))

        muted = shade(MUTED, self.palette())
        keys_note = QLabel("Keys you save go to the system keyring when there is one, else to "
                           f"{self.store.keys_path} (readable only by you); never to the ledger. Environment "
                           "variables win over them.", self)
        theme_note = QLabel("The theme follows the system's light or dark setting.", self)
        for note in (keys_note, theme_note, self.read_only_note):
            note.setWordWrap(True)
            note.setStyleSheet(f"color: {muted};")
        self.error_label = error_label(self)
        self.buttons = save_cancel(self, self.save)

        # Everything above Save scrolls: with the pages added since, the dialog wants ~800 px, more than a
        # 1024x700 screen gives, and Qt squeezed it until wrapped notes overlapped their fields.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 12)
        self.body = QScrollArea(self)
        self.body.setWidgetResizable(True)
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        self.body.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget(self.body)
        self.body.setWidget(body)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(16, 12, 16, 0)
        layout.setSpacing(8)
        layout.addLayout(form)
        layout.addWidget(QLabel("<b>Providers and the web</b>", self))
        layout.addWidget(self.tabs)
        layout.addWidget(keys_note)
        layout.addWidget(theme_note)
        # trust: per-scope policies and hooks live on their own page (desktop/policies_dialog.py)
        self.policies_button = QPushButton("Policies and hooks\u2026", self)
        self.policies_button.clicked.connect(self.open_policies)
        self.policies_dialog: QDialog | None = None
        self.automations_button = QPushButton("Automations\u2026", self)  # Settings → Automations (issue 13)
        self.automations_button.clicked.connect(self.open_automations)
        self.automations_dialog: QDialog | None = None
        pages = QHBoxLayout()  # on one row: the dialog must still fit a 700-pixel screen
        pages.addWidget(self.policies_button)
        pages.addWidget(self.automations_button)
        pages.addStretch(1)
        layout.addLayout(pages)
        from .extension_pages import extension_buttons  # Settings → MCP servers, Skills (issue 15)

        extensions, self.open_page = extension_buttons(self, self.store.root, self.workspace.text, self.mcp_status,
                                                       self.mcp_reload, self.skills)
        layout.addLayout(extensions)
        self.accounts_button = QPushButton("Mail and calendar accounts\u2026", self)  # Settings → Accounts
        self.accounts_button.clicked.connect(self.open_accounts)
        self.accounts_dialog: QDialog | None = None
        self.channels_button = QPushButton("Chat c&hannels\u2026", self)  # Settings → Channels (issue 27)
        self.channels_button.clicked.connect(self.open_channels)
        self.channels_button.setEnabled(self.kernel is not None)
        self.channels_dialog: QDialog | None = None
        people = QHBoxLayout()  # on one row: the dialog must still fit a 700-pixel screen
        people.addWidget(self.accounts_button)
        people.addWidget(self.channels_button)
        people.addStretch(1)
        layout.addLayout(people)
        outer.addWidget(self.body, 1)
        for below in (self.error_label, self.buttons):
            outer.addWidget(below)
            below.setContentsMargins(16, 0, 16, 0)
        self._fit_body(body)

    def _fit_body(self, body: QWidget) -> None:
        """Show the whole form when the screen has room; else as much as fits, the rest by scrolling."""
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        room = screen.height() - 140 if screen is not None else body.sizeHint().height()
        self.body.setMinimumHeight(max(200, min(body.sizeHint().height(), room)))
        self._body_least = self.body.minimumHeight()
        self.body.setMinimumWidth(body.sizeHint().width())

    def _refuse(self, message: str) -> bool:
        """Say why Save did nothing, the whole sentence: the scrolling body gives up the height the error
        needs (on a 700-pixel screen it kept it all and a long price error was drawn over, clipped)."""
        refuse(self.error_label, message)
        need = self.error_label.heightForWidth(max(1, self.width()))
        self.body.setMinimumHeight(max(200, self._body_least - need))
        self.error_label.setMinimumHeight(need)
        return False

    def _key_source(self, provider: str) -> KeySource | ConfigError:
        try:
            return self.store.key_source(provider, self.env)
        except ConfigError as exc:
            return exc

    def form_values(self) -> FormValues:
        return FormValues(
            user_name=self.user_name.text(), workspace=self.workspace.text(),
            default_lease_min=self.default_lease.value(), request_expiry_s=self.request_expiry.value(),
            default_budget=self.default_budget.value(), provider=self.provider.currentText(),
            providers={name: tab.values() for name, tab in self.provider_tabs.items()},
            sandbox_read_only=self.read_only.toPlainText(),
            fallback_any_vendor=self.any_vendor.isChecked(), utility_model=self.utility_model.text(),
            compact_at_percent=self.compact_at.value(), context_window=self.context_window.text(),
        )

    def save(self) -> bool:
        """Validate, write settings.json and keys.json, emit ``saved``; False (with reasons shown) if invalid."""
        values = self.form_values()
        problems = check_form(values, self.store.root)
        web_problems = self.web_tab.problems()  # Settings → Web: the fetch caps as typed
        if problems or web_problems:
            if web_problems:
                self.tabs.setCurrentWidget(self.web_tab)
                self.body.ensureWidgetVisible(self.web_tab.max_size)
            return self._refuse("\n".join([message for _, message in problems] + web_problems))
        try:
            new = self.web_tab.applied(apply_form(values, self.settings, self.store.root))
            self.store.save(new)
            for provider, key in key_changes(values).items():  # the system keyring when usable, else keys.json
                self.store.save_secret_key(provider, key)
            web_key = self.web_tab.key_change()
            if web_key is not None:
                self.store.save_secret_key(*web_key)
        except (ConfigError, OSError) as exc:
            return self._refuse(f"Could not save: {exc}")
        self.settings = new
        self.saved.emit(new)
        self.accept()
        return True

    def open_policies(self) -> QDialog:
        """Open (not exec) the Policies and hooks page; what it saves is announced as saved settings."""
        from .policies_dialog import PoliciesDialog

        dialog = PoliciesDialog(self.store, self.settings, self)

        def saved(new: Settings) -> None:
            self.settings = new
            self.saved.emit(new)

        dialog.saved.connect(saved)
        self.policies_dialog = dialog
        dialog.open()
        return dialog
    def open_automations(self) -> QDialog:
        """Settings → Automations (desktop/automation_settings.py); what it saves is announced as saved."""
        from .automation_settings import AutomationSettingsDialog

        dialog = AutomationSettingsDialog(self.store, self.settings, self)

        def saved(new: Settings) -> None:
            self.settings = new
            self.saved.emit(new)

        dialog.saved.connect(saved)
        self.automations_dialog = dialog
        dialog.open()
        return dialog

    def open_accounts(self) -> QDialog:
        """Settings → Accounts (desktop/accounts_dialog.py), window-modal on this dialog."""
        from kernel.api import AccountStore, SecretStore

        from .accounts_dialog import AccountsDialog

        self.accounts_dialog = AccountsDialog(AccountStore(self.store.root, SecretStore(self.store)), self)
        self.accounts_dialog.open()
        return self.accounts_dialog

    def open_channels(self) -> QDialog | None:
        """Settings → Channels: who can reach an agent through each chat channel, and the paired senders."""
        if self.kernel is None:
            return None
        from .channels_page import ChannelsDialog

        self.channels_dialog = ChannelsDialog(self.kernel, self)
        self.channels_dialog.open()
        return self.channels_dialog

    def choose_workspace(self) -> QFileDialog:
        dialog = QFileDialog(self, "Choose the workspace folder", self.workspace.text())
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.fileSelected.connect(self.workspace.setText)
        self.folder_dialog = dialog
        dialog.open()
        return dialog
