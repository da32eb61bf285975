"""Blooms: both rule sets (``blooms``, ``blooms-territory``)."""
