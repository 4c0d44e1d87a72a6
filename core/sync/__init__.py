"""The sync wing: the same memory on every computer, through a git remote the person owns.

One repository per person (``sync setup REMOTE``); each synced folder is a top-level folder of it, named by a
key that is the same on every computer (``keys``). botmemory keeps its own bare git directory under
``<home>/botmemory/sync/repo`` and never checks anything out: trees and commits are built with git's plumbing
from what the store reads, and what comes in is written back through the store (atomic, 0600, no links,
redaction, a journal row ``how: sync`` for every change). Its modules, lowest first:

- ``git``: the git command line (the version checked once; timeouts; what a failure means, in one line);
- ``keys``: a folder's key (a Claude Code project's normalized remote URL, else a name) and its folder name;
- ``merge``: the three-way merge of one text on entries, which never loses a line;
- ``folder``: what the engine syncs — an id, a key, files through a filter — for a bot, or any directory;
- ``state``: ``settings.json`` (remote, branch, host, folders) and ``state.json`` (bases, marks, conflicts);
- ``engine``: one round — fetch, check, merge, write, commit one commit per journal row, push;
- ``schedule``: when it runs in ``watch`` and the tray: after changes (debounced), and for what others pushed.

Stands on ``store`` (the writer, the journal), ``outside`` (outside changes are recorded first), ``kinds``,
``text``, ``disk``, ``redact`` and ``base``; ``ops.sync`` is its one door.
"""
from __future__ import annotations
