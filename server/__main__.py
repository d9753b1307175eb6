"""`python -m server`: the MCP server over stdio (same options as `memory-graph serve`)."""

from server.cli import app

if __name__ == "__main__":
    app(["serve", *__import__("sys").argv[1:]])
