"""Model providers behind one streaming protocol (see ``base``).

The only place vendor SDKs are imported, and each adapter imports its SDK
only when it is constructed, so starting the CLI or the desktop pays for
none of them.
"""
