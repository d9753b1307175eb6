"""The stdio transport, with an answer for every line: a line that is not a JSON-RPC message gets a JSON-RPC
error (parse error, or invalid request with the line's id when it has one) instead of silence, so a client
waiting on it fails at once rather than at its timeout."""

from __future__ import annotations

import json
import logging

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

log = logging.getLogger("memory_graph.server")


def error_for(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a line the SDK could not read as a message (``exc``, its error)."""
    raw = None
    errors = exc.errors() if hasattr(exc, "errors") else []
    if errors and errors[0].get("type") == "json_invalid" and isinstance(errors[0].get("input"), str):
        raw = errors[0]["input"]
    doc = None
    if raw is not None:
        try:  # Python's parser takes what the SDK's refuses only where the line is JSON all the same
            doc = json.loads(raw)  # (an unpaired surrogate escape); deep nesting and huge numbers raise
        except (ValueError, RecursionError):
            doc = None
    else:
        doc = {}  # valid JSON of the wrong shape: the SDK keeps no copy of it to take an id from
    rid = doc.get("id") if isinstance(doc, dict) else None
    rid = rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None
    if raw is not None and doc is None:
        code, message = types.PARSE_ERROR, "Parse error: the line is not valid JSON"
    else:
        code, message = types.INVALID_REQUEST, "Invalid Request: the line is not a JSON-RPC 2.0 message"
    detail = str(errors[0].get("msg", "")) if errors else str(exc)
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message,
                                                                           data=detail[:200]))


class _DropOneAnswer:
    """The SDK's write stream, less its answer to one request this process answered already
    (``server.early``)."""

    def __init__(self, inner, request_id) -> None:
        self._inner, self._id = inner, request_id

    async def send(self, item: SessionMessage) -> None:
        if self._id is not None and getattr(item.message, "id", object()) == self._id and \
                isinstance(item.message, (types.JSONRPCResponse, types.JSONRPCError)):
            self._id = None
            return
        await self._inner.send(item)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)


async def run_stdio(server, first_line: bytes | None = None, answered=None) -> None:
    """Run an MCPServer over stdio as ``MCPServer.run("stdio")`` does, answering unreadable lines.

    first_line: a line read from stdin before the SDK was loaded, handed to it first; answered: the id of the
    request in it that was answered already (its ``initialize``), whose answer from the SDK is dropped."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        send, receive = create_context_streams[SessionMessage | Exception](0)
        out = _DropOneAnswer(write_stream, answered)

        async def pump() -> None:
            async with send:
                if first_line and first_line.strip():
                    try:
                        await send.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(
                            first_line, by_name=False)))
                    except Exception as exc:
                        await write_stream.send(SessionMessage(error_for(exc)))
                async for item in read_stream:
                    if isinstance(item, Exception):
                        log.warning("answering an unreadable line with an error: %s", str(item)[:200])
                        await write_stream.send(SessionMessage(error_for(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            await lowlevel.run(receive, out, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
