"""The shell sandbox: bubblewrap arguments, the view of the home, stages, the overlay, limits."""
