"""The kernel's vocabulary: errors, events, states, messages, the clock, words. Imports no other room."""
