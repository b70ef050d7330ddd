"""Small widgets the Ask window and the lease dialog share: state badge, budget bar,
diff view, tool card, streaming Markdown block, message input."""
