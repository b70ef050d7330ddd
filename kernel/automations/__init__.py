"""Automations: scheduled, unattended agent runs, at least an hour apart, exactly once per slot."""

from .model import Automation, PolicyItem
from .schedule import Schedule, ScheduleRefused, describe_cron, in_words, local_time
from .service import AutomationView, Automations, UnknownAutomation
from .store import InboxItem, RunRecord

__all__ = ["Automation", "AutomationView", "Automations", "InboxItem", "PolicyItem", "RunRecord", "Schedule",
           "ScheduleRefused", "UnknownAutomation", "describe_cron", "in_words", "local_time"]
