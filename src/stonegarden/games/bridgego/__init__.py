"""Bridge Go: connect two opposite sides; only external liberties count (spec/bridgego.md)."""
