"""Model routes: which (provider, model) answers an agent, and what happens when one fails."""
