"""Simulation: run many seeded games in chunks, write records, run studies."""
