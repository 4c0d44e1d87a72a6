"""The faces wing: how people and agents reach botmemory — the command line, the routes and their server,
the MCP tools and server, Claude Code's hooks, connecting agents.

A face reads and writes through ``ops`` only.
"""
