"""The agent: networks, algorithms (what is computed) and runtimes (how it is launched)."""
