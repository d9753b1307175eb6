"""The MCP server: 20 tools over stdio (or streamable HTTP on 127.0.0.1), thin wrappers over the Engine."""
