"""The base wing: what every other wing stands on — loggers, record classes, the errors and their exit codes, counted nouns.

Imports nothing else of core.
"""
