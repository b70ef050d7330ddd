"""Agentdesk's kernel: agents as processes, leases, budgets, tools and the agent loop.

Headless and Qt-free: the same code runs under the desktop's qasync loop and
under a plain asyncio loop (the CLI, tests, benchmarks). Vendor SDKs are
imported only inside ``kernel.providers``, and only when a provider is used.
"""
