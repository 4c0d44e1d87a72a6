"""The text wing: pure text, no disk — words and stems, frontmatter, MEMORY.md's entry grammar, diffs, the load budget.

Stands on ``base`` and ``redact``.
"""
