"""The ledger's size limits, apart from the blob store so settings can name them without opening SQLite."""

MAX_BLOB_BYTES = 50 * 1024 * 1024  # default largest file content the kernel keeps as a blob
