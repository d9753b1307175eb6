"""`python -m memory_graph`: the `memory-graph` command (what a hook runs where the script is not on PATH)."""

from server.entry import main

if __name__ == "__main__":
    main()
