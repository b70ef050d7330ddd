"""Real loopback Dovecot, aiosmtpd and Radicale for the mail tests (started once per session, that is once
per pytest-xdist worker: every test keys what it checks by its own Message-ID or counts before and after),
an account pointing at them, and a real kernel with the mail tools (tests/kernel's ``make_env``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from kernel.mail import Account, AccountStore
from kernel.mail.tools import MailService, mail_tools
from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore
from kernel.tools.registry import builtin_registry
from tests.fakes import mail_servers as ms
from tests.fakes.ci import missing
from tests.kernel.conftest import make_env  # noqa: F401 - the fixture, shared

os.environ["AGENTDESK_KEYRING"] = "off"  # never touch a developer's real keyring


@dataclass
class Servers:
    dovecot: ms.Dovecot
    smtp: ms.Smtp
    radicale: ms.Radicale


@pytest.fixture(scope="session")
def servers():
    reason = ms.dovecot_unavailable()
    if reason:
        missing(reason)
    dovecot = ms.start_dovecot()
    smtp = ms.start_smtp(dovecot)
    radicale = ms.start_radicale()
    yield Servers(dovecot, smtp, radicale)
    ms.stop_smtp(smtp)
    ms.stop_radicale(radicale)
    ms.stop_dovecot(dovecot)


def account_for(servers: Servers, name: str = "work") -> Account:
    return Account(name=name, address=ms.USER, user=ms.USER, imap_host="127.0.0.1", imap_port=servers.dovecot.port,
                   imap_tls="none", smtp_host="127.0.0.1", smtp_port=servers.smtp.port, smtp_tls="none",
                   caldav_url=servers.radicale.url)


@pytest.fixture
def accounts(servers, agentdesk_home) -> AccountStore:
    store = SettingsStore(agentdesk_home)
    accounts = AccountStore(agentdesk_home, SecretStore(store, use_keyring=False))
    accounts.save(account_for(servers), ms.PASSWORD)
    servers.smtp.cut.clear()
    servers.smtp.refuse.clear()
    servers.smtp.auth_fails = False
    return accounts


@dataclass
class MailEnv:
    env: object
    service: MailService


@pytest.fixture
def mail_env(make_env, accounts):  # noqa: F811
    def make(**kw) -> MailEnv:
        service = MailService(accounts)
        env = make_env(tools=builtin_registry(mail_tools(service)), **kw)
        service.bind(env.ledger, env.clock)
        return MailEnv(env, service)
    return make
