"""``agentdesk key set|rm|list``: provider and web-search keys, saved where secrets go.

A key is read from standard input (never from the command line, where other
users' ``ps`` and the shell history would see it) and saved in the system
keyring when one is usable, else in the owner-only keys.json
(``SettingsStore.save_secret_key``). ``list`` says where each key in use
comes from — environment, keyring or keys.json — never the key.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config.settings import PROVIDERS, SettingsStore, home
from ..config.schema import WEB_KEY_VARIABLES
from . import EXIT_USAGE

NAMES = (*PROVIDERS, *WEB_KEY_VARIABLES)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("key", help="save, forget or list provider and web-search keys",
                       description="Save a key (read from standard input) in the system keyring, or keys.json "
                                   "when there is none; forget one; or list where each key in use comes from.")
    p.add_argument("action", choices=("set", "rm", "list"))
    p.add_argument("name", nargs="?", choices=NAMES, help="a provider or web-search back-end")


def run(args: argparse.Namespace) -> int:
    store = SettingsStore(home())
    if args.action == "list":
        for name in PROVIDERS:
            source = store.key_source(name)
            where = {"environment": f"environment ({source.name})", "keyring": "system keyring",
                     "keys.json": "keys.json"}.get(source.where or "", "not set")
            print(f"{name}\t{where}")
        return 0
    if args.name is None:
        print(f"agentdesk key: {args.action} needs a provider or back-end name", file=sys.stderr)
        return EXIT_USAGE
    if args.action == "rm":
        store.save_secret_key(args.name, None)
        print(f"forgot the {args.name} key")
        return 0
    if sys.stdin.isatty():
        print(f"Paste the {args.name} key and press Enter: ", end="", file=sys.stderr, flush=True)
    key = sys.stdin.readline().strip()
    if not key or any(c.isspace() for c in key):
        print("agentdesk key: give the key on standard input, one line without spaces", file=sys.stderr)
        return EXIT_USAGE
    print(f"saved the {args.name} key in {store.save_secret_key(args.name, key)}")
    return 0
