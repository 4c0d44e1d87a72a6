"""The team wing: memory a team of bots shares, accepted by a person (docs/TEAMS.md).

A team has a key that never changes (``t-…``), a name and member bots. Bots
propose cards; a person accepts, rejects or edits them; accepted notes load
into every member bot's turn within 6,000 bytes, pinned first. Every change
carries the revision it was based on and is one file and one journal row of
the team.

Modules, lowest first: ``records`` (the records of format 2, pure),
``files`` (the team folder under ``<home>/teams/``, reading and writing it,
its locks), ``migrate`` (format 1 → 2, atomically), ``teams`` (every change,
revisions, undo), ``loading`` (what a member bot loads). docs/TEAMS.md has the
on-disk format and how a team folder syncs.

Stands on ``store`` (the journal's rows), ``disk``, ``text`` and ``redact``; ``notes`` (what loads),
``recall`` (search), ``upkeep`` (capture's proposals) and ``ops`` stand on it.
"""
from __future__ import annotations
