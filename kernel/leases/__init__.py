"""Leases: the value, the book of live ones, the approver's decision values and the open requests."""
