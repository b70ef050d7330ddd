"""``agentdesk account add|list|rm``: mail and calendar accounts from the terminal.

``add`` reads the password (an app password for Gmail, Google Calendar,
Fastmail, iCloud) from the terminal without echo, or one line of stdin when
piped, never from an argument (it would sit in the shell history). It checks
every server before saving and prints one line per failure (exit 1, nothing
saved) unless ``--no-check``. ``list`` never prints a password, only where it
is kept. Exit status: 0 done, 1 the check failed or no such account, 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import Any, TextIO

from ..mail.accounts import TLS_MODES, Account, AccountStore, Credentials
from ..config.secrets import SecretStore
from ..config.settings import SettingsStore, home
from . import EXIT_USAGE


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("account", help="mail and calendar accounts: add, list, rm",
                              description="Mail (IMAP, SMTP) and calendar (CalDAV) accounts.")
    sub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    add = sub.add_parser("add", help="add or replace an account (checks the connection first)")
    add.add_argument("name")
    add.add_argument("--address", required=True, help="the From address, e.g. ada@example.com")
    add.add_argument("--user", help="login user name (default: the address)")
    add.add_argument("--imap-host", required=True)
    add.add_argument("--imap-port", type=int, default=993)
    add.add_argument("--imap-tls", choices=TLS_MODES, default="ssl")
    add.add_argument("--smtp-host", required=True)
    add.add_argument("--smtp-port", type=int, default=465)
    add.add_argument("--smtp-tls", choices=TLS_MODES, default="ssl")
    add.add_argument("--caldav-url", default="", help="CalDAV URL (optional)")
    add.add_argument("--sent-folder", default="Sent")
    add.add_argument("--server-files-sent", action="store_true", help="the server files sent mail itself (Gmail)")
    add.add_argument("--no-check", action="store_true", help="save without trying the servers")
    sub.add_parser("list", help="list accounts (never their passwords)")
    rm = sub.add_parser("rm", help="remove an account and its password")
    rm.add_argument("name")


def _accounts() -> AccountStore:
    store = SettingsStore(home())
    return AccountStore(store.root, SecretStore(store))


def run(args: argparse.Namespace, stdin: Any = None, stdout: Any = None, stderr: Any = None) -> int:
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    accounts = _accounts()
    if args.action == "list":
        for a in accounts.list():
            cal = f"  calendar {a.caldav_url}" if a.caldav_url else ""
            print(f"{a.name}\t{a.address}\timap {a.imap_host}:{a.imap_port} ({a.imap_tls})\t"
                  f"smtp {a.smtp_host}:{a.smtp_port} ({a.smtp_tls}){cal}\tpassword in {accounts.secrets.where}",
                  file=stdout)
        return 0
    if args.action == "rm":
        if not accounts.remove(args.name):
            print(f"agentdesk account: no account named {args.name!r}", file=stderr)
            return 1
        print(f"removed {args.name}", file=stdout)
        return 0
    if args.action != "add":
        print("agentdesk account: say add, list or rm", file=stderr)
        return EXIT_USAGE
    account = Account(name=args.name, address=args.address, user=args.user or args.address,
                      imap_host=args.imap_host, imap_port=args.imap_port, imap_tls=args.imap_tls,
                      smtp_host=args.smtp_host, smtp_port=args.smtp_port, smtp_tls=args.smtp_tls,
                      caldav_url=args.caldav_url, sent_folder=args.sent_folder,
                      server_files_sent=args.server_files_sent)
    account.check()
    password = _password(stdin, args.name)
    if not password:
        print("agentdesk account: no password given", file=stderr)
        return EXIT_USAGE
    if not args.no_check:
        from ..mail.connection import check_account

        problems = asyncio.run(check_account(Credentials(account, password)))
        if problems:
            for line in problems:
                print(f"agentdesk account: {line}", file=stderr)
            print("agentdesk account: nothing saved (fix the above, or add --no-check)", file=stderr)
            return 1
    accounts.save(account, password)
    print(f"saved {account.name}; password in {accounts.secrets.where}", file=stdout)
    return 0


def _password(stdin: TextIO, name: str) -> str:
    if stdin.isatty():
        return getpass.getpass(f"password (or app password) for {name}: ")
    return stdin.readline().rstrip("\r\n")
