"""Hostile or broken servers: whatever they answer, the tools give one clear line, never a traceback
and never the password. Real sockets on loopback, speaking nonsense after a plausible greeting."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from kernel.mail import imap
from kernel.mail.accounts import Account, Credentials
from kernel.mail.compose import compose
from kernel.mail.connection import check_account
from kernel.mail.errors import MailError
from kernel.tools.outward import NotDone

PASSWORD = "hunter2-secret"


class Babbler:
    """Greets like a server, then answers every line with ``reply`` (or hangs up when it is None)."""

    def __init__(self, greeting: bytes, reply: bytes | None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.greeting, self.reply = greeting, reply
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.sendall(self.greeting)
                    while conn.recv(4096):
                        if self.reply is None:
                            break
                        conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def babbler():
    made: list[Babbler] = []

    def make(greeting: bytes, reply: bytes | None) -> Babbler:
        made.append(Babbler(greeting, reply))
        return made[-1]

    yield make
    for b in made:
        b.close()


def _creds(imap_port: int, smtp_port: int) -> Credentials:
    account = Account(name="x", address="a@x.test", user="a@x.test", imap_host="127.0.0.1", imap_port=imap_port,
                      imap_tls="none", smtp_host="127.0.0.1", smtp_port=smtp_port, smtp_tls="none")
    return Credentials(account, PASSWORD)


@pytest.mark.parametrize("reply", [b"\x00\xff garbage with no tag\r\n", b"* BYE go away\r\n", None,
                                   b"a001 OK LOGIN fine\r\n" * 3 + b"* 1 FETCH (" + b"x" * 10_000 + b"\r\n"])
def test_a_babbling_imap_server_is_one_clear_line(babbler, reply):
    imap_server = babbler(b"* OK IMAP4rev1 ready\r\n", reply)
    for call in (lambda c: imap.check(c), lambda c: imap.search(c, "x"), lambda c: imap.read(c, "INBOX/1")):
        with pytest.raises(MailError) as caught:
            call(_creds(imap_server.port, 1))
        assert "\n" not in caught.value.message and PASSWORD not in caught.value.message


def test_a_babbling_smtp_server_is_one_clear_line_and_nothing_is_marked_sent(babbler):
    from kernel.mail import smtp

    smtp_server = babbler(b"220 hello\r\n", b"999 what\r\n")
    imap_server = babbler(b"garbage\r\n", None)
    creds = _creds(imap_server.port, smtp_server.port)
    msg = compose(creds.account, {"to": ["b@x.test"], "subject": "s", "body": "b"}, "<k@agentdesk.invalid>", 0)
    with pytest.raises(NotDone) as caught:
        asyncio.run(smtp.send(creds, msg))
    assert "\n" not in caught.value.message and PASSWORD not in caught.value.message
    problems = asyncio.run(check_account(creds))
    assert [p.split(":")[0] for p in problems] == ["IMAP", "SMTP"]
    assert all("\n" not in p and PASSWORD not in p for p in problems)
