"""Adapters to the ecosystems researchers use: OpenSpiel, PettingZoo (optional dependencies)."""
