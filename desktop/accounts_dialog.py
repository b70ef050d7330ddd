"""Settings → Accounts: mail (IMAP, SMTP) and calendar (CalDAV) accounts, checked before they are saved.

A list of accounts beside one form. Save first tries every server with the
typed password (on the event loop, never blocking it; "Checking…" shows
meanwhile) and saves only when all of them accept it; otherwise each
failure is one line under the form ("IMAP: … refused the user name or
password …"). The password field is never filled from the store; where the
password is kept (system keyring or keys.json) is said below it.
Window-modal to its parent, keyboard-only usable (a plain form; Enter saves).
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
    QPushButton, QSpinBox, QVBoxLayout, QWidget,
)

from kernel.api import TLS_MODES, Account, AccountStore, ConfigError, Credentials, check_account

from .theme import ERROR, MUTED, shade

PRESETS = {  # (imap host, smtp host, smtp port, smtp tls, caldav url) for the user guide's providers
    "Gmail": ("imap.gmail.com", "smtp.gmail.com", 465, "ssl", "https://apidata.googleusercontent.com/caldav/v2/"),
    "Fastmail": ("imap.fastmail.com", "smtp.fastmail.com", 465, "ssl", "https://caldav.fastmail.com/"),
}


class AccountsDialog(QDialog):
    saved = Signal(str)  # the account's name

    def __init__(self, accounts: AccountStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.accounts = accounts
        self.check_task: asyncio.Task[Any] | None = None
        self.setWindowTitle("Accounts")
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.NonModal)
        self.setMinimumWidth(720)
        self.list = QListWidget(self)
        self.list.setMaximumWidth(170)
        self.list.currentTextChanged.connect(self.show_account)
        self.add_button = QPushButton("New account", self)
        self.add_button.clicked.connect(self.new_account)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.remove_current)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        left.addWidget(self.add_button)
        left.addWidget(self.remove_button)

        self.name, self.address, self.user = QLineEdit(self), QLineEdit(self), QLineEdit(self)
        self.address.setPlaceholderText("ada@example.com")
        self.user.setPlaceholderText("usually the address")
        self.password = QLineEdit(self)
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.imap_host, self.smtp_host, self.caldav_url = QLineEdit(self), QLineEdit(self), QLineEdit(self)
        self.caldav_url.setPlaceholderText("optional: https://…")
        self.imap_port, self.smtp_port = self._port(993), self._port(465)
        self.imap_tls, self.smtp_tls = self._tls(), self._tls()
        self.sent_folder = QLineEdit("Sent", self)
        self.server_files_sent = QCheckBox("The server files sent mail itself (Gmail)", self)
        self.preset = QComboBox(self)
        self.preset.addItems(["Other", *PRESETS])
        self.preset.currentTextChanged.connect(self.apply_preset)
        form = QFormLayout()
        form.addRow("Provider", self.preset)
        form.addRow("Name", self.name)
        form.addRow("Address", self.address)
        form.addRow("User name", self.user)
        form.addRow("Password", self.password)
        self.where = QLabel(f"An app password is best. Kept in the {accounts.secrets.where}, never in the ledger.",
                            self)
        form.addRow("", self.where)
        form.addRow("IMAP server", self._row(self.imap_host, self.imap_port, self.imap_tls))
        form.addRow("SMTP server", self._row(self.smtp_host, self.smtp_port, self.smtp_tls))
        form.addRow("CalDAV URL", self.caldav_url)
        form.addRow("Sent folder", self.sent_folder)
        form.addRow("", self.server_files_sent)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close,
                                        self)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.where.setWordWrap(True)
        self.where.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        right = QVBoxLayout()
        right.addLayout(form)
        right.addWidget(self.status)
        right.addStretch(1)
        right.addWidget(self.buttons)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addLayout(left)
        layout.addLayout(right, 1)
        self.reload()

    def _port(self, value: int) -> QSpinBox:
        box = QSpinBox(self)
        box.setRange(1, 65535)
        box.setValue(value)
        return box

    def _tls(self) -> QComboBox:
        box = QComboBox(self)
        box.addItems(list(TLS_MODES))
        return box

    def _row(self, *widgets: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        for i, w in enumerate(widgets):
            row.addWidget(w, 1 if i == 0 else 0)
        return row

    def reload(self, select: str | None = None) -> None:
        self.list.clear()
        try:
            names = [a.name for a in self.accounts.list()]
        except ConfigError as exc:
            self.say(str(exc), error=True)
            names = []
        self.list.addItems(names)
        if names:
            self.list.setCurrentRow(names.index(select) if select in names else 0)
        else:
            self.new_account()

    def new_account(self) -> None:
        self.list.clearSelection()
        for field in (self.name, self.address, self.user, self.password, self.imap_host, self.smtp_host,
                      self.caldav_url):
            field.clear()
        self.name.setFocus()

    def show_account(self, name: str) -> None:
        try:
            a = self.accounts.get(name) if name else None
        except ConfigError:
            a = None
        if a is None:
            return
        self.name.setText(a.name)
        self.address.setText(a.address)
        self.user.setText(a.user)
        self.password.clear()
        self.password.setPlaceholderText("a password is saved; type to replace it")
        self.imap_host.setText(a.imap_host)
        self.imap_port.setValue(a.imap_port)
        self.imap_tls.setCurrentText(a.imap_tls)
        self.smtp_host.setText(a.smtp_host)
        self.smtp_port.setValue(a.smtp_port)
        self.smtp_tls.setCurrentText(a.smtp_tls)
        self.caldav_url.setText(a.caldav_url)
        self.sent_folder.setText(a.sent_folder)
        self.server_files_sent.setChecked(a.server_files_sent)

    def apply_preset(self, name: str) -> None:
        if name not in PRESETS:
            return
        imap_host, smtp_host, smtp_port, smtp_tls, caldav = PRESETS[name]
        self.imap_host.setText(imap_host)
        self.imap_port.setValue(993)
        self.imap_tls.setCurrentText("ssl")
        self.smtp_host.setText(smtp_host)
        self.smtp_port.setValue(smtp_port)
        self.smtp_tls.setCurrentText(smtp_tls)
        self.caldav_url.setText(caldav)
        self.server_files_sent.setChecked(name == "Gmail")
        self.sent_folder.setText("[Gmail]/Sent Mail" if name == "Gmail" else "Sent")

    def account(self) -> Account:
        account = Account(name=self.name.text().strip(), address=self.address.text().strip(),
                          user=self.user.text().strip() or self.address.text().strip(),
                          imap_host=self.imap_host.text().strip(), imap_port=self.imap_port.value(),
                          imap_tls=self.imap_tls.currentText(),  # type: ignore[arg-type]
                          smtp_host=self.smtp_host.text().strip(), smtp_port=self.smtp_port.value(),
                          smtp_tls=self.smtp_tls.currentText(),  # type: ignore[arg-type]
                          caldav_url=self.caldav_url.text().strip(), sent_folder=self.sent_folder.text().strip(),
                          server_files_sent=self.server_files_sent.isChecked())
        account.check()
        return account

    def say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {shade(ERROR, self.palette())};" if error else "")

    def save(self) -> None:
        """Check every server with the typed password, then save; a failure is one line per server."""
        try:
            account = self.account()
        except ConfigError as exc:
            self.say(str(exc), error=True)
            return
        password = self.password.text()
        if not password:
            try:
                password = self.accounts.credentials(account.name).password
            except ConfigError:
                self.say("Type the password (or app password) for this account.", error=True)
                return
        self.say("Checking the servers…")
        self.buttons.setEnabled(False)
        self.check_task = asyncio.ensure_future(self._check_then_save(account, password))

    async def _check_then_save(self, account: Account, password: str) -> None:
        try:
            problems = await check_account(Credentials(account, password))
        finally:
            self.buttons.setEnabled(True)
        if problems:
            self.say("Not saved:\n" + "\n".join(problems), error=True)
            return
        try:
            self.accounts.save(account, self.password.text() or None)
        except (ConfigError, OSError) as exc:
            self.say(f"Could not save: {exc}", error=True)
            return
        self.password.clear()
        self.say(f"Saved {account.name}: every server accepted the login.")
        self.reload(account.name)
        self.saved.emit(account.name)

    def remove_current(self) -> None:
        item = self.list.currentItem()
        if item is not None and self.accounts.remove(item.text()):
            self.say(f"Removed {item.text()} and its password.")
            self.reload()
