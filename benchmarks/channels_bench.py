"""The pairing gate's figures on the loopback fakes (issue 27), with the real aiogram and aiohttp clients.

    python benchmarks/channels_bench.py

1. 200 scripted unknown-sender events across Telegram and WebChat: DM text, ``/start``, photos, group
   mentions, redeliveries, from 6 senders (3 pending codes per channel at most). Prints the pairing replies
   per sender (must be 1 each for the 6 that got a code, 0 for the rest), model requests, media downloads
   and typing calls (all must be 0).
2. Approval to the first agent reply on the fake (goal ≤ 1 s).
3. 1,000 redeliveries of one message: duplicate inbound entries (goal 0).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from kernel.channels.model import ChannelConfig  # noqa: E402
from kernel.compose import build_kernel  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from kernel.leases.approver import DenyAll  # noqa: E402
from kernel.providers.scripted import ScriptedProvider, reply  # noqa: E402
from ledger import ChannelMessage, Ledger, PairingRequest  # noqa: E402
from tests.fakes.channels_server import ChannelsFake  # noqa: E402

TOKEN = "123456:BENCH-token"


async def settle(kernel, predicate, limit_s: float = 30.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("the fakes never reached the expected state")
        await asyncio.sleep(0.005)
    await kernel.channels.drain()


async def main() -> None:
    fake = await ChannelsFake().start()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "ws").mkdir()
    ledger = Ledger(tmp / "ledger.db")
    provider = ScriptedProvider()
    kernel = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(tmp / "ws")),
                          providers=lambda _n: provider, approver=DenyAll(), channel_token=lambda _n: TOKEN)
    await kernel.channels.add(ChannelConfig(name="tg", kind="telegram", base_url=fake.url, options={"poll_s": "5"}))
    web = await kernel.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0"))
    base = web.address.rstrip("/")
    hub = kernel.channels

    # 1. 200 unknown-sender events: 152 on Telegram (4 senders, 3 get codes), 48 on WebChat (3 sessions)
    kinds = Counter()
    for n in range(152):
        sender = 900 + n % 4
        kind = ("dm", "start", "photo", "group", "redelivery")[n % 5]
        kinds[kind] += 1
        if kind == "group":
            fake.tg_message(chat=-77, sender=sender, text="@desk_bot hello", message_id=n, group=True)
        elif kind == "redelivery":
            fake.tg_message(chat=sender, sender=sender, text="hi", message_id=n - 4)  # that sender's DM, again
        else:
            fake.tg_message(chat=sender, sender=sender, text="/start" if kind == "start" else "hi",
                            message_id=n, photo=kind == "photo")
    got: Counter[str] = Counter()
    async with aiohttp.ClientSession() as http:
        sockets = []
        for _ in range(3):
            async with http.post(base + "/session", headers={"Origin": base}) as r:
                token = (await r.json())["token"]
            sockets.append(await http.ws_connect(base.replace("http", "ws") + "/ws", headers={"Origin": base},
                                                 protocols=("agentdesk", f"token.{token}")))
        for n in range(48):
            ws = sockets[n % 3]
            # n and n + 3 go to the same session with the same id: every message is sent twice
            await ws.send_str(json.dumps({"type": "message", "id": f"{n // 6}-{n % 3}", "text": "hi"}))
        for i, ws in enumerate(sockets):
            while True:
                try:
                    msg = await asyncio.wait_for(ws.receive(), 0.5)
                except asyncio.TimeoutError:
                    break
                data = json.loads(msg.data)
                if data["type"] == "message":
                    got[f"web-{i}"] += 1
            await ws.close()
    await settle(kernel, lambda: hub.figures.claimed + hub.figures.redelivered >= 152 + 48 and
                 len(fake.tg.updates) == 0)
    per_sender = Counter(s.chat for s in fake.tg.sent)
    print("1. 200 unknown-sender events (Telegram 152: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
          + "; WebChat 48, every message twice)")
    print(f"   pairing replies per Telegram chat: {dict(per_sender)}")
    print(f"   pairing replies per WebChat session: {dict(got)}")
    print(f"   pairing codes on the record: {len(ledger.scan((PairingRequest.KIND,)))}; "
          f"dropped: {dict(hub.figures.dropped)}; redeliveries dropped: {hub.figures.redelivered}")
    print(f"   model requests: {len(provider.requests)}; media downloads: "
          f"{fake.hits['telegram.getFile'] + fake.hits['telegram.file']}; typing calls: "
          f"{fake.hits['telegram.sendChatAction']}; inbound entries: {len(ledger.scan((ChannelMessage.KIND,)))}")

    # 2. approval → first reply
    code = next(p.code for p in hub.pending() if p.channel == "tg" and p.chat_kind == "dm")
    sent_before = len(fake.tg.sent)
    provider.script(reply("Hello."))
    began = time.perf_counter()
    hub.approve(code)
    await settle(kernel, lambda: len(fake.tg.sent) > sent_before)
    print(f"2. approval to the first agent reply: {(time.perf_counter() - began) * 1000:.0f} ms (goal ≤ 1000 ms)")

    # 3. 1,000 redeliveries of one message of the paired sender
    chat = int(fake.tg.sent[-1].chat)
    before = len(ledger.scan((ChannelMessage.KIND,)))
    provider.script(reply("Once."))
    seen = hub.figures.redelivered
    for _ in range(1000):
        fake.tg_message(chat=chat, sender=chat, text="do it once", message_id=5000)
    await settle(kernel, lambda: len(fake.tg.updates) == 0 and hub.figures.redelivered >= seen + 999)
    after = len(ledger.scan((ChannelMessage.KIND,)))
    print(f"3. 1,000 deliveries of one message: {after - before} inbound entry, {after - before - 1} duplicates, "
          f"{len(provider.requests)} model requests in all")
    await kernel.aclose()
    ledger.close()
    await fake.stop()


if __name__ == "__main__":
    asyncio.run(main())
