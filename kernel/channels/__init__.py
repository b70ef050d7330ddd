"""Channels: reach agents from chat apps (Telegram, WebChat, …) through a pairing gate.

Inbound messages are parsed by an adapter into ``Inbound`` values, claimed once
(``inbound.InboundClaims``), judged by the pairing gate (``gate.judge``) and
only then allowed any side effect: typing, downloads, model requests. Admitted
messages reach one agent per (channel, account, chat, sender) session
(``sessions``); the hub (``hub.ChannelHub``) wires them together.
"""
