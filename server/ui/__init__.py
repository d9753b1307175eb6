"""The local web viewer (`memory-graph ui`): search, read, correct and prune memories, see their graph."""
