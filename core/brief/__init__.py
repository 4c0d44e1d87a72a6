"""The brief wing: what a bot did elsewhere — the recent-work brief from its daily log lines, or from a Claude Code
project's other sessions (its transcripts), and the Claude Code brief's switches.

Stands on ``store``, ``text``, ``disk`` and ``kinds`` (Claude Code's transcripts); ``ops.brief`` is its door.
"""
