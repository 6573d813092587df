"""Where a learning run's time before its loop goes: each stage of a job's start, timed.

Runs the stages a job runs (child.build's parts, then the loop's first step and first update) in this
process, with the config `run.py` would compose, and prints each stage's seconds, counting from
this process's own start (read from /proc), so the interpreter's start and the imports count too:

    python bench/startup_profile.py +preset=learn agent.overlap=true
    python bench/startup_profile.py +preset=learn --no-cudnn-benchmark

It is a profile, not the job's clock: `run.py` runs the same stages in a child forked from a
server that imported torch once (see ppo_bench.job.isolation).
"""

import os
import sys
import time


def process_age() -> float:
    """Seconds since this process started (field 22 of /proc/self/stat, in clock ticks since boot)."""
    with open("/proc/self/stat") as f:
        start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    marks = [("interpreter start to main()", process_age())]
    t0 = time.monotonic() - marks[0][1]

    def mark(what: str) -> None:
        marks.append((what, time.monotonic() - t0))

    from hydra import compose, initialize_config_dir

    from ppo_bench.config.schema import register_configs
    mark("import hydra, ppo_bench.config.schema")
    import torch

    mark("import torch")
    from ppo_bench.job import child
    from ppo_bench.agent.make import make_agent, total_updates
    from ppo_bench.env.torch_envs import TorchEnvs, spaces
    from ppo_bench.loop.run import run_loop
    from ppo_bench.registry import MODES
    mark("import ppo_bench.job.child (drivers, runtimes, dynamo, scipy)")

    register_configs()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf")
    with initialize_config_dir(config_dir=os.path.abspath(root), version_base="1.3"):
        cfg = compose(config_name="config", overrides=args)
    mark("compose the config")
    device = child.resolve_device(cfg.device)
    if device.type == "cuda":
        torch.cuda.init()
        torch.zeros(1, device=device)
    mark(f"CUDA context ({device})")
    envs = child.make_envs(cfg)
    mark(f"create {cfg.env.num_envs} emulators")
    obs_shape, num_actions = spaces(envs)
    mark("reset them (spaces)")
    agent = make_agent(cfg.agent, obs_shape, num_actions, cfg.env.num_envs, device,
                       cfg.env.num_envs // cfg.mode.groups, total_updates(cfg))
    if "--no-cudnn-benchmark" in sys.argv:
        torch.backends.cudnn.benchmark = False
    mark(f"build the agent ({cfg.agent.runtime})")
    envs = TorchEnvs(envs, device, cfg.env.upload, agent.uploader)
    driver = MODES[cfg.mode.name].load()(envs, agent, cfg.seed, cfg.mode.groups)
    mark("the driver")
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    driver.step(0)
    sync()
    mark("first loop step (act capture / compile)")
    update, spent = agent.update, []

    def timed_update(*a, **k):  # the update's own seconds, apart from the rollout's
        t = time.monotonic()
        update(*a, **k)
        agent.wait_for_update()
        sync()
        spent.append(time.monotonic() - t)

    agent.update = timed_update
    steps = run_loop(driver, until=lambda _: agent.updates >= 1, first=1)
    sync()
    mark(f"first rollout ({steps} more loop steps) and first update")
    marks.append((f"  of which the first update (update capture): {spent[0]:.2f} s", marks[-1][1]))
    run_loop(driver, until=lambda _: agent.updates >= 2, first=steps + 1)
    sync()
    mark(f"second rollout and update (update {spent[1]:.3f} s)")
    driver.close()
    prev = 0.0
    print(f"{'stage':<58} {'s':>7} {'at s':>7}")
    for what, at in marks:
        print(f"{what:<58} {at - prev:7.2f} {at:7.2f}")
        prev = at


if __name__ == "__main__":
    main()
