"""The real config tree, composed in-process for the bench probes that build a job's own driver
themselves (`pin_probe.py`, `wake_probe.py`): the runtime they time is graphed on CUDA, eager on a
CPU (a smoke run there). Imported by its file name, as the probes run as scripts from this folder."""

import os

import torch

RUNTIME = "graphed" if torch.cuda.is_available() else "eager"


def compose(overrides: list[str]):
    from hydra import compose as hydra_compose, initialize_config_dir

    from ppo_bench.config.schema import register_configs

    register_configs()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf")
    with initialize_config_dir(config_dir=os.path.abspath(root), version_base="1.3"):
        return hydra_compose(config_name="config", overrides=overrides)
