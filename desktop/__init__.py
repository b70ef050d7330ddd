"""Agentdesk's desktop: PySide6 views of the kernel, on a qasync loop.

Nothing here is imported by the kernel or the ledger. Qt is imported only
by the modules that draw, so ``agentdesk ask`` never loads it.
"""
