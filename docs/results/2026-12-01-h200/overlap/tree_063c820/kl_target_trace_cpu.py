"""CPU trace of agent.kl_target's step size over the first updates of learn_fast's shape on Pong."""
import sys, time
sys.path.insert(0, "tests")
import numpy as np, torch
from conftest import compose_config
from ppo_bench.algos import ppo as ppo_mod
from ppo_bench.agent import make_agent
from ppo_bench.backends import FRAME_SHAPE
from ppo_bench.envs import TorchEnvs
from ppo_bench.drivers import SendRecvDriver
from ale_py.vector_env import AtariVectorEnv

trace = []
orig = ppo_mod.PPO._adapt_lr
def traced(self, kl):
    before = float(self.opt.param_groups[0]["lr"])
    orig(self, kl)
    trace.append((float(kl), before, float(self.opt.param_groups[0]["lr"])))
ppo_mod.PPO._adapt_lr = traced
cfg = compose_config("+preset=learn_fast", "agent.runtime=eager", "device=cpu", "agent.kl_target=0.01",
                     "agent.anneal_lr=false", "agent.overlap=false").agent
n = 64
envs = AtariVectorEnv("pong", num_envs=n, frameskip=5, batch_size=32, num_threads=2)
agent = make_agent(cfg, FRAME_SHAPE, envs.single_action_space.n, n, torch.device("cpu"), 32)
driver = SendRecvDriver(TorchEnvs(envs, torch.device("cpu"), uploader=agent.uploader), agent, 0, 2)
s = 0
torch.manual_seed(0)
while agent.updates < 3:
    driver.step(s); s += 1
    if agent.update_due(s):
        t = time.time(); agent.update(); print("update", agent.updates, "took", round(time.time() - t, 1), "s")
for i, (kl, a, b) in enumerate(trace):
    print(i // 32, i % 32, f"kl={kl:.5f} lr {a:.2e} -> {b:.2e}")
