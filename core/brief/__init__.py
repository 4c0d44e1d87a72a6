"""The brief wing: what a bot did elsewhere — the recent-work brief from its daily log lines.

Stands on ``store``, ``text`` and ``disk``; ``ops.brief`` is its door.
"""
