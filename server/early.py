"""The answer to ``initialize`` before the MCP SDK is imported (0.8 s of pydantic models on an idle machine, and a
client with a short connect timeout on a busy one gave up waiting): the server reads the first line itself,
answers it as the SDK would, then hands the line to the SDK and drops the SDK's own answer to it
(``server.stdio``). A client of the 2026 protocol first asks ``server/discover``, which this SDK does not serve:
that is answered here too, with the SDK's "Method not found", and the client's ``initialize`` follows. Only the standard library here. ``tests/test_server.py`` checks the answer against the
SDK's own, so an SDK that answers otherwise fails a test rather than a client."""

from __future__ import annotations

import json
import os

INSTRUCTIONS = """memory-graph is your long-term memory and code search.

Workflow for memories (progressive disclosure, to save tokens):
1. search_memory: a compact index of matching memories (id, title, type, date, score).
2. timeline: what happened just before and after an interesting hit (anchor_id).
3. get_memories: full content, only for the ids you chose.
Store what will matter later with store_memory (decisions, bug fixes, procedures, facts about the
project); correct it with update_memory, retire it with invalidate_memory (keeps history) rather than
deleting: store_memory lists the similar memories a new one may update. Searches default to the current
project plus global memories.

For code: index_project once (incremental afterwards), then search_code (by meaning or identifier),
search_symbols (by name) and symbol_graph (callers, callees, imports, subclasses). An answer's `note` says
why it may be incomplete, e.g. a project still being indexed (project_status shows how far it got)."""

#: the protocol revisions the SDK negotiates through ``initialize`` (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS)
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: what the SDK's MCPServer announces (tools, and the prompts and resources it always registers)
CAPABILITIES = {"prompts": {"listChanged": False}, "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False}}


def read_line(fd: int = 0, limit: int = 1 << 20) -> bytes:
    """One line of a file descriptor, read a byte at a time: nothing after it is taken from the pipe, so the
    SDK's reader finds the rest where it was."""
    out = bytearray()
    while len(out) < limit:
        byte = os.read(fd, 1)
        if not byte:
            break
        out += byte
        if byte == b"\n":
            break
    return bytes(out)


#: how many ``server/discover`` probes are answered before the handshake (the SDK's client re-probes once)
MAX_DISCOVER_PROBES = 2


def _request(line: bytes, method: str) -> tuple[object, dict] | None:
    """(id, message) of a JSON-RPC 2.0 request for ``method`` with a valid id, or None for any other line (the
    SDK then says what is wrong with it)."""
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(msg, dict) or msg.get("method") != method or msg.get("jsonrpc") != "2.0":
        return None
    rid = msg.get("id")
    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
        return None
    return rid, msg


def _line(rid: object, **body) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": rid, **body}, separators=(",", ":")) + "\n").encode()


def discover_answer(line: bytes) -> bytes | None:
    """The SDK's answer to a ``server/discover`` request (Method not found), or None for any other line."""
    request = _request(line, "server/discover")
    if request is None:
        return None
    return _line(request[0], error={"code": -32601, "message": "Method not found", "data": "server/discover"})


def initialize_answer(line: bytes, version: str) -> tuple[bytes, object] | None:
    """The response to an ``initialize`` request (and its id), or None for any other line."""
    request = _request(line, "initialize")
    if request is None or not isinstance(request[1].get("params"), dict):
        return None
    rid, params = request[0], request[1]["params"]
    requested = params.get("protocolVersion")
    negotiated = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS, "protocolVersion": negotiated,
              "serverInfo": {"name": "memory-graph", "version": version}}
    return _line(rid, result=result), rid
