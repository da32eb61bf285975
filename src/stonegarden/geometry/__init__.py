"""Board geometry, apart from any rules: cells, names and neighbour tables built once per board."""
