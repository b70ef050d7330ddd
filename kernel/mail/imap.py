"""Reading mail over IMAP with the standard library's ``imaplib``, in a worker thread.

imaplib is blocking, so every function here runs through ``asyncio.to_thread``
(aioimaplib would be async but is GPL-3.0; measured import 13 ms for imaplib,
2026-12-01). Each call opens, uses and closes one connection: calls are rare
and a kept connection would need its own health checks. Everything the server
says is hostile: any protocol error, odd reply shape or oversized message
becomes a MailError with one plain line, never a traceback or a password.
"""

from __future__ import annotations

import email
import email.policy
import imaplib
import re
import socket
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Iterator

from .accounts import Credentials
from .errors import MailError
from .html_text import html_to_text

TIMEOUT_S = 20.0
MAX_MESSAGE_BYTES = 5 * 1024 * 1024
MAX_BODY_CHARS = 20_000
FOLDER_RE = re.compile(r'^[^"\r\n\\\x00]{1,200}$')


@dataclass(frozen=True)
class Summary:
    id: str
    sender: str
    subject: str
    date: str


@dataclass(frozen=True)
class Mail:
    id: str
    headers: dict[str, str]
    body: str
    attachments: tuple[str, ...]
    cut: bool = False


def _quote(folder: str) -> str:
    if not FOLDER_RE.match(folder):
        raise MailError("config", f"bad folder name {folder[:60]!r}")
    return '"' + folder + '"'


class _Session:
    """One logged-in IMAP connection (a context manager), errors mapped to MailError."""

    def __init__(self, creds: Credentials) -> None:
        self.creds = creds
        self.conn: imaplib.IMAP4 | None = None

    def __enter__(self) -> imaplib.IMAP4:
        a = self.creds.account
        where = f"the IMAP server {a.imap_host}:{a.imap_port}"
        try:
            if a.imap_tls == "ssl":
                conn: imaplib.IMAP4 = imaplib.IMAP4_SSL(a.imap_host, a.imap_port, timeout=TIMEOUT_S,
                                                        ssl_context=ssl.create_default_context())
            else:
                conn = imaplib.IMAP4(a.imap_host, a.imap_port, timeout=TIMEOUT_S)
                if a.imap_tls == "starttls":
                    conn.starttls(ssl.create_default_context())
        except (OSError, imaplib.IMAP4.error, ssl.SSLError) as exc:
            raise MailError("connect", f"could not reach {where}: {_why(exc)}") from None
        self.conn = conn
        try:
            conn.login(a.user, self.creds.password)
        except imaplib.IMAP4.abort as exc:
            self._close()
            raise MailError("protocol", f"{where} dropped the connection at login: {_why(exc)}") from None
        except (imaplib.IMAP4.error, UnicodeError):
            self._close()
            raise MailError("auth", f"{where} refused the user name or password for {a.user} "
                                    "(Gmail, Fastmail and iCloud need an app password)") from None
        except OSError as exc:
            self._close()
            raise MailError("connect", f"{where} failed at login: {_why(exc)}") from None
        return conn

    def __exit__(self, *exc: Any) -> None:
        if self.conn is not None:
            try:
                self.conn.logout()
            except (OSError, imaplib.IMAP4.error, ValueError):
                pass
            self._close()

    def _close(self) -> None:
        try:
            if self.conn is not None:
                self.conn.shutdown()
        except (OSError, AttributeError, imaplib.IMAP4.error):
            pass
        self.conn = None


def _why(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout):
        return "timed out"
    text = str(exc).strip() or type(exc).__name__
    return text[:200]


def _guard(fn: Any) -> Any:
    """Turn any stray protocol error inside ``fn`` into one MailError line."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MailError:
            raise
        except (imaplib.IMAP4.error, OSError, ValueError, IndexError, TypeError, UnicodeError, AttributeError) as exc:
            raise MailError("protocol", f"the IMAP server gave an unusable answer: {_why(exc)}") from None

    return wrapped


def _ok(typ: str, data: Any, what: str) -> Any:
    if typ != "OK":
        detail = (data[0] if data and isinstance(data[0], bytes) else b"").decode("utf-8", "replace")[:200]
        raise MailError("protocol", f"the IMAP server refused {what}: {detail or typ}")
    return data


def _uids(data: Any) -> list[bytes]:
    raw = data[0] if data and isinstance(data[0], bytes) else b""
    return [u for u in raw.split() if u.isdigit()]


def _select(conn: imaplib.IMAP4, folder: str) -> None:
    typ, data = conn.select(_quote(folder), readonly=True)
    if typ != "OK":
        raise MailError("not_found", f"there is no folder {folder!r} on the server")


def _fetch_parts(data: Any) -> Iterator[tuple[bytes, bytes]]:
    for item in data or ():
        if isinstance(item, tuple) and len(item) >= 2 and isinstance(item[0], bytes) and isinstance(item[1], bytes):
            yield item[0], item[1]


@_guard
def search(creds: Credentials, query: str, folder: str = "INBOX", limit: int = 20) -> list[Summary]:
    """The newest ``limit`` messages in ``folder`` whose text contains ``query`` (all, when empty)."""
    with _Session(creds) as conn:
        _select(conn, folder)
        if query.strip():
            conn.literal = query.encode("utf-8")[:1000]  # type: ignore[assignment]  # typeshed says str; imaplib sends bytes
            data = _ok(*conn.uid("SEARCH", "CHARSET", "UTF-8", "TEXT"), "the search")
        else:
            data = _ok(*conn.uid("SEARCH", "ALL"), "the search")
        uids = _uids(data)[-limit:][::-1]
        if not uids:
            return []
        data = _ok(*conn.uid("FETCH", b",".join(uids).decode(),
                             "(UID BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE)])"), "the fetch")
        found: dict[str, Summary] = {}
        for meta, raw in _fetch_parts(data):
            m = re.search(rb"UID (\d+)", meta)
            if not m:
                continue
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            uid = m.group(1).decode()
            found[uid] = Summary(f"{folder}/{uid}", _header(msg, "From"), _header(msg, "Subject"), _header(msg, "Date"))
        return [found[u.decode()] for u in uids if u.decode() in found]


@_guard
def read(creds: Credentials, message_id: str) -> Mail:
    """One message by the id ``search`` gave (``folder/uid``): headers, text body, attachment names."""
    folder, _, uid = message_id.rpartition("/")
    if not folder or not uid.isdigit():
        raise MailError("not_found", f"{message_id[:80]!r} is not a message id from mail_search (folder/number)")
    with _Session(creds) as conn:
        _select(conn, folder)
        data = _ok(*conn.uid("FETCH", uid, "(RFC822.SIZE)"), "the fetch")
        sizes = [int(m.group(1)) for item in data if isinstance(item, bytes)
                 for m in [re.search(rb"RFC822\.SIZE (\d+)", item)] if m]
        if not sizes:
            raise MailError("not_found", f"no message {message_id!r} (it may have been moved or deleted)")
        if sizes[0] > MAX_MESSAGE_BYTES:
            raise MailError("protocol", f"message {message_id} is {sizes[0]:,} bytes, over the "
                                        f"{MAX_MESSAGE_BYTES:,}-byte limit")
        data = _ok(*conn.uid("FETCH", uid, "(BODY.PEEK[])"), "the fetch")
        raws = [raw for _, raw in _fetch_parts(data)]
        if not raws:
            raise MailError("not_found", f"no message {message_id!r}")
        return parse(message_id, raws[0][:MAX_MESSAGE_BYTES])


def parse(message_id: str, raw: bytes) -> Mail:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    headers = {name: _header(msg, name) for name in ("From", "To", "Cc", "Date", "Subject", "Message-ID")
               if msg.get(name) is not None}
    plain, html, attachments = None, None, []
    for part in msg.walk():
        if part.is_multipart():
            continue
        filename = part.get_filename()
        if filename or part.get_content_disposition() == "attachment":
            attachments.append(str(filename or "(unnamed)")[:200])
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = _text_of(part)
        elif ctype == "text/html" and html is None:
            html = _text_of(part)
    body = plain if plain is not None else html_to_text(html) if html is not None else ""
    cut = len(body) > MAX_BODY_CHARS
    return Mail(message_id, headers, body[:MAX_BODY_CHARS], tuple(attachments), cut)


def _text_of(part: Any) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, "replace")
    except LookupError:  # an unknown charset name from the sender
        return payload.decode("utf-8", "replace")


def _header(msg: EmailMessage | Any, name: str) -> str:
    try:
        value = msg.get(name)
    except (ValueError, IndexError, TypeError, AttributeError):  # a malformed header the parser chokes on
        value = msg.get_all(name, failobj=[""])[0] if hasattr(msg, "get_all") else ""
    return re.sub(r"[\r\n]+", " ", str(value or ""))[:500]


@_guard
def has_message_id(creds: Credentials, folders: tuple[str, ...], message_id: str) -> bool:
    """Whether any of ``folders`` holds a message with this Message-ID (a folder missing counts as no)."""
    if not re.match(r"^<[A-Za-z0-9.@_-]{1,200}>$", message_id):
        raise MailError("config", "bad Message-ID")
    with _Session(creds) as conn:
        for folder in folders:
            typ, _ = conn.select(_quote(folder), readonly=True)
            if typ != "OK":
                continue
            data = _ok(*conn.uid("SEARCH", "HEADER", "Message-ID", f'"{message_id}"'), "the search")
            if _uids(data):
                return True
    return False


@_guard
def append(creds: Credentials, folder: str, raw: bytes) -> None:
    with _Session(creds) as conn:
        _ok(*conn.append(_quote(folder), r"(\Seen)", None, raw), f"saving a copy in {folder}")


@_guard
def files_sent_itself(creds: Credentials) -> bool:
    """Gmail (capability X-GM-EXT-1) files SMTP sends in Sent by itself."""
    with _Session(creds) as conn:
        return "X-GM-EXT-1" in conn.capabilities


@_guard
def check(creds: Credentials) -> None:
    """Log in and out: MailError says what failed."""
    with _Session(creds) as conn:
        _ok(*conn.noop(), "a no-op")
