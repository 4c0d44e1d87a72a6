"""``botmemory mcp BOT``: the memory tools over MCP (stdio), with the official ``mcp`` SDK (2.x).

Only ``botmemory mcp`` imports this module: the SDK costs most of a second to
import, and no other command pays for it. ``botmemory mcp`` starts in
:mod:`mcp_wire`, which owns stdin and stdout, answers ``initialize`` and every
bad line before this module has loaded, and hands this server the checked lines
(:func:`serve_wire`). The tools, their arguments and what
they do live in :mod:`mcp_tools`; this module registers them with an
:class:`MCPServer` (schema, description, annotations) and runs each call off
the event loop. Argument names models reach for (``query``, ``content``,
``hash``, ``n`` …) are mapped before the SDK validates them, so a wrong
argument is named in one line; a refused or bad call is a tool error with the
CLI's message and nothing written.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field

from ..base.log import get_logger
from ..ops import BadInput, BotMemoryError, Memory
from . import mcp_tools
from .mcp_tools import Param, ToolSpec

logger = get_logger(__name__)

INSTRUCTIONS = mcp_tools.INSTRUCTIONS

_TYPES: dict[str, Any] = {"string": str, "integer": int, "words": str | list[str]}
_CLIENT: ContextVar[str] = ContextVar("botmemory_mcp_client", default="")


def client_name(context: Context[Any, Any] | None) -> str:
    """The client's name from initialize's clientInfo, or "" when it gave none."""
    try:
        params = context.request_context.session.client_params if context is not None else None
    except ValueError:      # a context outside a request
        return ""
    return params.client_info.name if params is not None else ""


def refusal(e: BotMemoryError) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=mcp_tools.error_line(e))], is_error=True)


def _annotation(p: Param) -> Any:
    base = Literal[p.enum] if p.enum else _TYPES[p.type]
    return Annotated[base if p.required else base | None, Field(description=p.description)]


def _tool_function(mem: Memory, bot: str, spec: ToolSpec) -> Callable[..., Any]:
    """An async function whose signature is *spec*'s parameters (the SDK builds the JSON schema from it)."""
    async def run(**kwargs: Any) -> str | CallToolResult:
        args = {k: v for k, v in kwargs.items() if v is not None}
        try:
            return await anyio.to_thread.run_sync(partial(mcp_tools.call, mem, bot, spec.name, args, _CLIENT.get()))
        except BotMemoryError as e:  # refused or bad: one line, as the CLI says it (the SDK would prefix it)
            return refusal(e)
        except Exception as e:  # noqa: BLE001 - an answer that names what failed, never a bare "error"
            logger.exception("%s failed", spec.name)
            return CallToolResult(content=[TextContent(type="text", text=mcp_tools.failure_line(spec.name, e))],
                                  is_error=True)

    params = [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(p),
                                default=inspect.Parameter.empty if p.required else None) for p in spec.params]
    run.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    run.__annotations__ = {**{p.name: _annotation(p) for p in spec.params}, "return": str}
    run.__name__ = spec.name
    run.__doc__ = spec.description
    return run


class MemoryServer(MCPServer[Any]):
    """An MCPServer that maps argument aliases onto the canonical names before the SDK validates them."""

    def __init__(self, mem: Memory, bot: str) -> None:
        super().__init__(name="botmemory", title=mcp_tools.server_title(bot), instructions=INSTRUCTIONS,
                         log_level="WARNING")
        for spec in mcp_tools.TOOLS:
            h = spec.hints
            self.add_tool(_tool_function(mem, bot, spec), name=spec.name, title=spec.title,
                          description=spec.description, structured_output=False,
                          annotations=ToolAnnotations(title=spec.title, read_only_hint=h.read_only,
                                                      destructive_hint=h.destructive, idempotent_hint=h.idempotent,
                                                      open_world_hint=False))

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        spec = mcp_tools.BY_NAME.get(name)
        if spec is None:    # the SDK's own answer would not list the tools there are
            return refusal(BadInput(f"no tool {name!r} (tools: {', '.join(mcp_tools.BY_NAME)})"))
        try:
            arguments = mcp_tools.normalize(spec, arguments)
        except BotMemoryError as e:
            return refusal(e)
        _CLIENT.set(client_name(context))
        return await super().call_tool(name, arguments, context)


def build(mem: Memory, bot: str) -> MemoryServer:
    mem.home.require_bot(bot)
    return MemoryServer(mem, bot)


def serve(mem: Memory, bot: str) -> None:
    """Answer MCP on stdin/stdout until the client closes the connection (through :mod:`mcp_wire`)."""
    from .mcp_wire import serve as serve_on_wire

    serve_on_wire(mem, bot)


def serve_wire(mem: Memory, bot: str, lines: Any, answers: Any) -> None:
    """Serve MCP over the wire's checked *lines* and its *answers* (``mcp_wire.Lines`` / ``Answers``),
    until the lines end. The SDK's stdio transport, given these two for stdin and stdout."""
    from mcp.server.stdio import stdio_server

    server = build(mem, bot)
    low = server._lowlevel_server   # what MCPServer.run_stdio_async runs, on our streams

    async def run() -> None:
        async with stdio_server(stdin=lines, stdout=answers) as (read_stream, write_stream):
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(run)
