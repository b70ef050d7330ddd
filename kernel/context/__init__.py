"""The context engine: how a conversation is laid out for the provider's prompt cache and kept inside the
model's window (a fixed prefix, a state block at the tail, cache hints, the size estimate)."""
