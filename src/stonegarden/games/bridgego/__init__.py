"""Bridge Go: connect two opposite sides; only external liberties count (docs/games/bridgego.md)."""
