"""Launching sweeps: the command line, the sweep folder, the node launcher and its slots."""
