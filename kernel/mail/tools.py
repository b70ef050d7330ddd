"""The mail and calendar tools: reads that are untrusted, writes that happen exactly once.

``mail_search``/``mail_read`` (scope ``mail.read``) and ``calendar_list``
(``calendar.read``) are R2 and untrusted: what they return was written by
whoever sent the mail or the invitation. ``mail_send`` (``mail.send``) and
``calendar_create`` (``calendar.write``) are R3: their preview shows the
exact message or event for the confirmation, and they act through
``OutwardBook.once`` (intent → act → outcome; see kernel.tools.outward). The
blocking clients (imaplib, caldav) run in worker threads.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ledger import Intent, Ledger, Outcome

from ..core.clock import Clock
from ..core.errors import ConfigError, ToolFailure
from ..tools.outward import DONE, FAILED, NotDone, OutwardBook, Verifier, call_input
from ..tools.descriptor import CallPreview, Risk, ToolContext, ToolDescriptor, ToolOutput
from ..tools.fs.common import integer, obj, string
from . import calendar, imap, smtp
from .accounts import Account, AccountStore, Credentials
from .compose import attendee_addresses, compose, message_id_for, shown
from .effect_ids import home_salt
from .errors import MailError

if TYPE_CHECKING:
    from ..workspace.root import Workspace

TEXT_ARRAY = {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 50}
ANY_OBJECT: dict[str, Any] = {"type": "object"}


@dataclass
class MailService:
    """What the mail tools share: the accounts, the outward book and the clock (``bind`` sets the
    last two once the kernel's ledger exists)."""

    accounts: AccountStore
    _book: OutwardBook | None = None
    _clock: Clock | None = None

    def bind(self, ledger: Ledger, clock: Clock) -> "MailService":
        self._book, self._clock = OutwardBook(ledger), clock
        return self

    @property
    def book(self) -> OutwardBook:
        assert self._book is not None, "MailService.bind(ledger, clock) first"
        return self._book

    @property
    def clock(self) -> Clock:
        assert self._clock is not None, "MailService.bind(ledger, clock) first"
        return self._clock

    def message_id(self, key: str) -> str:
        """The Message-ID a send with idempotency key ``key`` carries: salted with the home's secret."""
        return message_id_for(key, home_salt(self.accounts.secrets))

    def event_uid(self, key: str) -> str:
        """The UID an event created under ``key`` carries: salted with the home's secret."""
        return calendar.uid_for(key, home_salt(self.accounts.secrets))

    def creds(self, args: Mapping[str, Any] | None = None) -> Credentials:
        """The credentials of the call's ``account`` (by name), else of the first account."""
        name = (args or {}).get("account") or None
        try:
            return self.accounts.credentials(None if name is None else str(name))
        except ConfigError as exc:
            raise MailError("config", exc.message) from None

    def account(self, args: Mapping[str, Any] | None = None) -> Account:
        """The call's ``account`` (by name), else the first account; MailError naming the configured ones."""
        name = (args or {}).get("account") or None
        try:
            return self.accounts.get(None if name is None else str(name))
        except ConfigError as exc:
            raise MailError("config", exc.message) from None

    def answer_before_asking(self, tool: str) -> Callable[[str, int, Mapping[str, Any]], ToolOutput | None]:
        """For the executor, before anyone is asked: an unknown account fails at once (naming the configured
        ones); an identical write earlier in this turn gives its recorded result (nothing asked, nothing sent)."""
        def answer(agent_id: str, turn: int, args: Mapping[str, Any]) -> ToolOutput | None:
            account = self.account(args)  # no secret is read before the permission step
            if tool == "mail_send":
                compose(account, args, None, self.clock.now())  # a bad address fails here, before any ask
            elif tool == "calendar_create":
                attendee_addresses(args.get("attendees"))  # and a bad attendee
            if tool not in _WRITES:
                return None
            what, done_text = _WRITES[tool]
            outcome = self.book.earlier(agent_id, turn, tool, keyed(args, account))
            return None if outcome is None else _reported(outcome, True, what, done_text(args, outcome))
        return answer

    # ---- reads ---------------------------------------------------------------------

    async def search(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        folder = args.get("folder") or "INBOX"
        found = await asyncio.to_thread(imap.search, self.creds(args), str(args["query"]), folder,
                                        int(args.get("limit") or 20))
        lines = [f"{m.id}\t{m.date}\t{m.sender}\t{m.subject}" for m in found]
        text = "\n".join(lines) if lines else f"no messages in {folder} match"
        return ToolOutput(text, {"folder": folder, "count": len(found)}, source=f"mail_search {folder}")

    async def read(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        mail = await asyncio.to_thread(imap.read, self.creds(args), str(args["id"]))
        head = "\n".join(f"{k}: {v}" for k, v in mail.headers.items())
        files = ("\nAttachments: " + ", ".join(mail.attachments)) if mail.attachments else ""
        cut = "\n[... the body was cut ...]" if mail.cut else ""
        return ToolOutput(f"{head}{files}\n\n{mail.body}{cut}",
                          {"id": mail.id, "attachments": list(mail.attachments)}, source=f"mail_read {mail.id}")

    async def list_events(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        start = calendar.parse_time(args["from"], "from")
        end = calendar.parse_time(args["to"], "to")
        events = await asyncio.to_thread(calendar.list_events, self.creds(args), start, end, args.get("calendar"))
        lines = [f"{e.start} – {e.end}\t{e.title}" + (f"\t@ {e.location}" if e.location else "")
                 + (f"\t[{e.calendar}]") for e in events]
        return ToolOutput("\n".join(lines) or "no events in that time", {"count": len(events)},
                          source="calendar_list")

    # ---- writes --------------------------------------------------------------------

    async def send(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        creds = self.creds(args)
        compose(creds.account, args, None, self.clock.now())  # a bad address fails here, before any intent

        async def act(key: str) -> Mapping[str, Any]:
            msg = compose(creds.account, args, self.message_id(key), self.clock.now())
            for attempt in (1, 2):
                try:
                    await smtp.send(creds, msg)
                    break
                except smtp.Cut:
                    if attempt == 2:
                        raise
                    if await self._mail_found(creds, msg["Message-ID"]):  # before any retry: did it go?
                        return {"message_id": msg["Message-ID"], "verified": True}
            note = await self._file_in_sent(creds, msg)
            return {"message_id": msg["Message-ID"], "to": msg["To"], "subject": msg["Subject"], "sent_copy": note}

        async def verify(intent: Intent) -> bool:
            return await self._mail_found(creds, intent.target)

        outcome, replayed = await self.book.once(ctx, "mail_send", keyed(args, creds.account), self.message_id,
                                                 act, verify)
        return _reported(outcome, replayed, "mail", _sent_text(args, outcome))

    async def _mail_found(self, creds: Credentials, message_id: str) -> bool:
        folders = (creds.account.sent_folder, "INBOX")  # INBOX: a mail to oneself lands there
        return await asyncio.to_thread(imap.has_message_id, creds, folders, message_id)

    async def _file_in_sent(self, creds: Credentials, msg: EmailMessage) -> str:
        """The copy in Sent, saved once: not when the server files sends itself (Gmail, or any server whose Sent
        already holds this Message-ID: a copy saved before a kill -9, a server-side rule)."""
        sent = creds.account.sent_folder
        if creds.account.server_files_sent:
            return "filed by the server"
        try:
            if await asyncio.to_thread(imap.has_message_id, creds, (sent,), str(msg["Message-ID"])):
                return f"already in {sent}"
            await asyncio.to_thread(imap.append, creds, sent, msg.as_bytes())
        except MailError as exc:  # the mail went; only the copy failed
            return f"not saved in {sent}: {exc.message}"
        return f"saved in {sent}"

    async def _sent_copy_after_resume(self, creds: Credentials, intent: Intent) -> None:
        """A send a killed kernel left open, found delivered at the next start: its copy in Sent, once (the
        kernel may have died between the send and the copy, or after the copy)."""
        try:
            msg = compose(creds.account, call_input(self.book.ledger, intent), intent.target, intent.ts)
        except (MailError, ConfigError, ToolFailure, KeyError, TypeError):
            return  # the call cannot be rebuilt (no recorded arguments): no copy rather than a wrong one
        await self._file_in_sent(creds, msg)

    async def create_event(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        creds = self.creds(args)
        attendee_addresses(args.get("attendees"))  # an invitation goes to plain addresses only
        tz = args.get("timezone")
        if calendar.parse_time(args["end"], "end", tz) <= calendar.parse_time(args["start"], "start", tz):
            raise MailError("config", "end must be after start")

        async def act(key: str) -> Mapping[str, Any]:
            try:
                return await asyncio.to_thread(calendar.create, creds, self.event_uid(key), args)
            except MailError as exc:
                if exc.kind in ("auth", "config", "not_found"):
                    raise NotDone(exc.message) from None
                raise

        outcome, replayed = await self.book.once(ctx, "calendar_create", keyed(args, creds.account),
                                                 self.event_uid, act, self.event_verifier(creds))
        return _reported(outcome, replayed, "event", _created_text(args, outcome))

    def event_verifier(self, creds: Credentials | None = None) -> Verifier:
        async def verify(intent: Intent) -> bool:
            return await asyncio.to_thread(calendar.exists, creds or self.intent_creds(intent), intent.target)
        return verify

    def intent_creds(self, intent: Intent) -> Credentials:
        """The account an intent acted from: the ``account`` of its recorded call (older calls: the first)."""
        return self.creds(call_input(self.book.ledger, intent))

    def verifiers(self) -> dict[str, Verifier]:
        """For ``OutwardBook.resume`` at kernel start."""
        async def mail(intent: Intent) -> bool:
            creds = self.intent_creds(intent)
            found = await self._mail_found(creds, intent.target)
            if found:
                await self._sent_copy_after_resume(creds, intent)
            return found
        return {"mail_send": mail, "calendar_create": self.event_verifier()}

    # ---- previews for the confirmation, and the Inbox ----------------------------------

    def describe(self, tool: str, args: Mapping[str, Any], target: str) -> str | None:
        """A mail that may have gone out, exactly as it was sent (its From from the account, its Message-ID),
        for the Inbox; None when it cannot be rebuilt (the account is gone, another tool)."""
        if tool != "mail_send":
            return None
        try:
            account = self.account(args)
            head, _, body = shown(compose(account, args, target, 0)).partition("\n\n")
        except (ConfigError, ToolFailure, KeyError, TypeError):
            return None
        return f"Account: {account.name}\n{head}\nMessage-ID: {target}\n\n{body}"

    def send_preview(self, workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
        account = self.account(args)
        msg = compose(account, args, None, self.clock.now())
        return CallPreview(f"send this mail from the account {account.name!r} to {msg['To']} (it cannot be "
                           "taken back; the date and a Message-ID are added when it goes)", None, shown(msg))

    def event_preview(self, workspace: Workspace, args: Mapping[str, Any]) -> CallPreview:
        account = self.account(args)
        lines = [f"Account: {account.name}", f"Title: {_one_line(args['title'])}", f"Start: {_one_line(args['start'])}",
                 f"End: {_one_line(args['end'])}"]
        for name in ("timezone", "location", "calendar"):
            if args.get(name):
                lines.append(f"{name.capitalize()}: {_one_line(args[name])}")
        if args.get("attendees"):
            lines.append("Attendees (they will be invited): " + ", ".join(_one_line(a) for a in args["attendees"]))
        if args.get("description"):
            lines += ["", str(args["description"])]
        return CallPreview(f"create the event {args['title']!r} in the account {account.name!r}", None,
                           "\n".join(lines))


def _one_line(value: object) -> str:
    """A field of the confirmation on its one line: a line break the model put in it is shown as ⏎, so it
    cannot add a line that reads as another field (a second Attendees line)."""
    return " \u23ce ".join(str(value).splitlines())


def keyed(args: Mapping[str, Any], account: Account) -> dict[str, Any]:
    """The arguments the idempotency key is made of: the call's, with the account it acts from by name
    (so the same mail from two accounts is two intents, and leaving out the default account is the same call)."""
    return {**args, "account": account.name}


def _sent_text(args: Mapping[str, Any], outcome: Outcome) -> str:
    return f"sent to {args['to']} (Message-ID {outcome.data.get('message_id', '')})"


def _created_text(args: Mapping[str, Any], outcome: Outcome) -> str:
    return f"created {args['title']!r} (UID {outcome.data.get('uid', '')})"


# The outward tools: what they make (for the words of a replayed result) and how a done one reads.
_WRITES: dict[str, tuple[str, Callable[[Mapping[str, Any], Outcome], str]]] = {
    "mail_send": ("mail", _sent_text), "calendar_create": ("event", _created_text)}


def _reported(outcome: Outcome, replayed: bool, what: str, done_text: str) -> ToolOutput:
    if outcome.status == DONE:
        again = f" (an identical call already did this; the {what} was not sent again)" if replayed else ""
        return ToolOutput(done_text + again, {"status": DONE, "intent": outcome.cause, **dict(outcome.data)})
    server = f"the server's answer to the {what}"  # the detail quotes the server (an SMTP refusal): untrusted
    if outcome.status == FAILED:
        raise ToolFailure(f"the {what} was not sent: {outcome.detail}", source=server)
    raise ToolFailure(f"it is not known whether the {what} went out: {outcome.detail}. It will not be retried "
                      "automatically; the user can check it in the Inbox.", source=server)


ACCOUNT = "account"


def _with_account(schema: dict[str, Any]) -> dict[str, Any]:
    """Every mail and calendar tool takes an optional ``account`` (by name; default the first account)."""
    props = {**schema["properties"], ACCOUNT: string("the account to use, by name (default: the first account)")}
    return {**schema, "properties": props}


def mail_tools(service: MailService) -> tuple[ToolDescriptor, ...]:
    return tuple(replace(d, input_schema=_with_account(dict(d.input_schema)),
                         answer_before_asking=service.answer_before_asking(d.name))
                 for d in _descriptors(service))


def _descriptors(s: MailService) -> tuple[ToolDescriptor, ...]:
    return (
        ToolDescriptor(
            name="mail_search", risk=Risk.NETWORK_READ, trusted=False, tool_class="read", scope="mail.read",
            description=("Search the mail account: the newest messages in a folder (default INBOX) whose text contains "
                         "the query (empty: all). One line each: id, date, sender, subject; read one with mail_read."),
            input_schema=obj({"query": string("words to look for (empty for all)", 0),
                              "folder": string("folder name (default INBOX)"),
                              "limit": integer("most messages to list (default 20)", 1) | {"maximum": 50}},
                             required=("query",)),
            output_schema=ANY_OBJECT, run=s.search, timeout_s=60.0),
        ToolDescriptor(
            name="mail_read", risk=Risk.NETWORK_READ, trusted=False, tool_class="read", scope="mail.read",
            description="Read one message by the id mail_search gave: headers, the text body, attachment names.",
            input_schema=obj({"id": string("the message id from mail_search (folder/number)")}, required=("id",)),
            output_schema=ANY_OBJECT, run=s.read, timeout_s=60.0),
        ToolDescriptor(
            name="mail_send", risk=Risk.OUTWARD, trusted=True, tool_class="execute", scope="mail.send",
            description=("Send a mail from the user's account. The user confirms the exact message first; it cannot be "
                         "taken back. A copy is saved in Sent."),
            input_schema=obj({"to": TEXT_ARRAY | {"minItems": 1}, "cc": TEXT_ARRAY,
                              "subject": string("the subject line", 0), "body": string("plain text body", 0),
                              "in_reply_to": string("Message-ID of the mail this answers")},
                             required=("to", "subject", "body")),
            output_schema=ANY_OBJECT, run=s.send, preview=s.send_preview, timeout_s=120.0),
        ToolDescriptor(
            name="calendar_list", risk=Risk.NETWORK_READ, trusted=False, tool_class="read", scope="calendar.read",
            description="List calendar events between two ISO 8601 times (UTC unless they carry an offset).",
            input_schema=obj({"from": string("start, e.g. 2026-12-01T00:00"), "to": string("end"),
                              "calendar": string("calendar name (default: all)")}, required=("from", "to")),
            output_schema=ANY_OBJECT, run=s.list_events, timeout_s=60.0),
        ToolDescriptor(
            name="calendar_create", risk=Risk.OUTWARD, trusted=True, tool_class="execute", scope="calendar.write",
            description=("Create a calendar event (the user confirms it first; attendees get invitations). Times are "
                         "ISO 8601, read in `timezone` (an IANA name, default UTC) when they carry no offset."),
            input_schema=obj({"title": string("the event's title"), "start": string("start time"),
                              "end": string("end time"), "timezone": string("e.g. Europe/Paris"),
                              "attendees": TEXT_ARRAY, "location": string("where", 0),
                              "description": string("notes", 0), "calendar": string("calendar name")},
                             required=("title", "start", "end")),
            output_schema=ANY_OBJECT, run=s.create_event, preview=s.event_preview, timeout_s=120.0),
    )


def mail_service(accounts: AccountStore, ledger: Ledger, clock: Clock) -> MailService:
    return MailService(accounts).bind(ledger, clock)
