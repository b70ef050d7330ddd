"""Images in and out: fitting pictures once at ingestion, keeping them by hash, and laying them into requests."""
