"""The disk wing: the home's layout and path rules, reaching files without passing a symbolic link, atomic writes,
file modes and locks, config.json.

Stands on ``base``.
"""
