"""The designer lab: self-play studies, parameter sweeps and skill ladders with statistics,
stored in SQLite as games finish so interrupted runs resume."""
