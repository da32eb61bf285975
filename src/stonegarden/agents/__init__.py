"""Agents (players that choose moves), named by ``NAME[:key=value,...]`` strings."""

from .registry import (
    Agent,
    agent_for,
    agent_names,
    make_agent,
    parse_agent_spec,
    register_agent,
)

__all__ = ["Agent", "agent_for", "agent_names", "make_agent", "parse_agent_spec", "register_agent"]
