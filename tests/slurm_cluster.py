"""A real SLURM cluster of one node on this machine, for the tests of `hydra/launcher=slurm`: Debian's
munge and slurm-wlm (installed where missing and the machine allows it), `munged`, `slurmctld` and
`slurmd` started on 127.0.0.1 with a `slurm.conf` written for this machine (one node, its cores and
memory, one partition), on ports of their own, in a folder of their own, and stopped after.

Accounting (slurmdbd, which needs a database) is not run: `sacct` answers nothing, as on a small
cluster without it, so the launcher is tested as it must work there.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol")
PARTITION = "debug"
UP_S = 60.0


def missing() -> Optional[str]:
    """Why this machine cannot run the cluster (None: it can), after installing the packages where they
    are missing and this process may (root, with apt-get)."""
    if all(shutil.which(d) or os.path.exists(f"/usr/sbin/{d}") for d in DAEMONS):
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"SLURM's daemons are not installed and this process cannot install them (apt-get install {' '.join(PACKAGES)})"
    out = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES], capture_output=True,
                         text=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if out.returncode != 0:
        return f"apt-get install {' '.join(PACKAGES)} failed: {out.stderr.strip().splitlines()[-1:]}"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _memory_mb() -> int:
    with open("/proc/meminfo") as f:
        total_kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
    return int(total_kb / 1024 * 0.8)


def _binary(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


class Cluster:
    """One node's SLURM: `env` is what a client command needs (SLURM_CONF), `node` the node's name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.node = socket.gethostname().split(".")[0]
        self.conf = root / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.procs: list[subprocess.Popen] = []

    def write(self) -> None:
        for d in ("munge", "state", "spool", "log"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        (self.root / "munge").chmod(0o700)
        key = self.root / "munge" / "key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        r = self.root
        self.conf.write_text(f"""ClusterName=ppobench
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={r}/munge/sock
CredType=cred/munge
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=30
MinJobAge=600
InactiveLimit=0
SlurmdTimeout=20
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} RealMemory={_memory_mb()} State=UNKNOWN
PartitionName={PARTITION} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")

    def start(self) -> None:
        r = self.root
        self.procs.append(subprocess.Popen(
            [_binary("munged"), "--foreground", "--force", f"--key-file={r}/munge/key", f"--socket={r}/munge/sock",
             f"--pid-file={r}/munge/pid", f"--log-file={r}/munge/log", f"--seed-file={r}/munge/seed"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        self._wait(lambda: (r / "munge" / "sock").exists(), "munged's socket")
        for daemon, flags in (("slurmctld", ["-D", "-i"]), ("slurmd", ["-D"])):
            self.procs.append(subprocess.Popen([_binary(daemon), "-f", str(self.conf), *flags], env=self.env,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                               start_new_session=True))
        self._wait(lambda: self.state() == "idle", f"node {self.node} idle")

    def state(self) -> str:
        """The node's state as sinfo says it (idle, mixed, allocated, down, ...); "" where none answers."""
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%t"], env=self.env, capture_output=True, text=True)
        return out.stdout.strip().rstrip("*~#!%$@^-") if out.returncode == 0 else ""

    def queue(self) -> list[str]:
        """The jobs SLURM holds pending or running, as `id state name`."""
        out = subprocess.run(["squeue", "-h", "-o", "%i %T %j"], env=self.env, capture_output=True, text=True)
        return out.stdout.split("\n")[:-1] if out.returncode == 0 else []

    def run(self, *cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), env=self.env, capture_output=True, text=True, timeout=60)

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + UP_S
        while not ready():
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                logs = "".join((self.root / "log" / f).read_text()[-1500:] for f in ("slurmctld.log", "slurmd.log")
                               if (self.root / "log" / f).exists())
                self.stop()
                raise RuntimeError(f"SLURM did not come up ({what}):\n{logs}")
            time.sleep(0.3)

    def stop(self) -> None:
        """Cancel every job, then end the daemons (and any job step left)."""
        if self.procs:
            subprocess.run(["scancel", "--full", "--user", str(os.getuid())], env=self.env, capture_output=True)
            deadline = time.monotonic() + 45
            while self.queue() and time.monotonic() < deadline:
                time.sleep(0.5)
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs.clear()
        subprocess.run(["pkill", "-KILL", "-x", "slurmstepd"], capture_output=True)


@contextmanager
def cluster(root: Path) -> Iterator[Cluster]:
    c = Cluster(root)
    c.write()
    c.start()
    try:
        yield c
    finally:
        c.stop()
