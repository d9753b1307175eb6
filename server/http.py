"""The optional HTTP mode: streamable HTTP on 127.0.0.1 only, behind a bearer token."""

from __future__ import annotations

import hmac
import os
import secrets
import sys

HOST = "127.0.0.1"


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``, else 401."""

    def __init__(self, app, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            auth = dict(scope.get("headers") or []).get(b"authorization", b"")
            given = auth[7:] if auth[:7].lower() == b"bearer " else b""
            if not hmac.compare_digest(given, self.token):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body",
                            "body": b"missing or wrong bearer token (see MEMORY_GRAPH_HTTP_TOKEN)\n"})
                return
        await self.app(scope, receive, send)


def http_token() -> str:
    """``MEMORY_GRAPH_HTTP_TOKEN``, else a fresh random token announced on stderr."""
    token = os.environ.get("MEMORY_GRAPH_HTTP_TOKEN", "").strip()
    if not token:
        token = secrets.token_urlsafe(24)
        print(f"memory-graph: HTTP token (send as 'Authorization: Bearer ...'): {token}", file=sys.stderr)
    return token


def serve_http(server, port: int, token: str) -> None:
    """Run the MCP server as streamable HTTP on 127.0.0.1:port, requiring the token."""
    import uvicorn

    app = BearerToken(server.streamable_http_app(host=HOST), token)
    uvicorn.run(app, host=HOST, port=port, log_level="warning")
