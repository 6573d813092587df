"""One job: its parent side (check, isolate, record) and its child side (build, measure) in a process of its own."""
