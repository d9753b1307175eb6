"""Automatic memory for coding agents: capture from an agent's hooks and recall into its context, without an LLM.

The pipeline: an agent's hook payload -> an adapter (``claude``) -> a neutral ``Event`` -> ``capture`` (what to
keep, pure) and ``recall`` (what to inject, pure) -> ``service`` (applies both to an Engine) -> ``daemon`` (keeps
the Engine warm between hook calls) <- ``client`` (the light process each hook runs).
"""
