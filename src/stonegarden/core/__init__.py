"""The game protocol, the registry, parameters, records and replay: what every game plugs into."""
