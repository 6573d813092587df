"""Hydra's handle on the toy launcher of the tests (tests/toy_launcher.py): `hydra/launcher=toy`, found
where tests/plugins is on PYTHONPATH (Hydra instantiates launchers only from the hydra_plugins package)."""
