"""What the agent computes, one sub-package per algorithm (`agent.algo`; see registry.ALGOS).

An algorithm is an actor-critic network, its optimizer, its rollout buffers (a dataclass of
named device tensors, CleanRL's plain storage) and a handful of functions in the order the
drivers call them: the contract is `base.Algorithm`. Each algorithm's sub-package holds its
config (`config.py`: its keys under `agent.` and their checks, torch-free, see `config`) and
its algorithm (`algorithm.py`). This package imports nothing, so the config check can read the
configs without torch.
"""
