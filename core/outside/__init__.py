"""The outside wing: edits made by other programs and by agents between and during turns — reconciling a folder
with its shadows, turns and the day's log line, the live watcher.

Stands on ``store``.
"""
