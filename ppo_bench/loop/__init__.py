"""The measurement loop: drivers (how one loop step talks to the env), the loop itself, phase clocks."""
