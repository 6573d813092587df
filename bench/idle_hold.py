"""Run a command while this process asks Linux to keep every CPU out of its deeper idle states
(the loop held to 0.95 of its chain bound at 1 and 8 envs). An experiment, not a feature.

Why: the loop's thread blocks in ale-py's recv while its emulator steps, and an emulator thread
blocks while the act runs; both wake about a millisecond later. The runs of 2026-12-01 at
2ec764f and be36810 measured that a launch after the thread blocked costs 0.05-0.1 ms more than back to back, and that
a plain sleep reproduces it. If the CPU (or, in a virtual machine, the vCPU's halt) is what makes
the wake-up slow, holding a PM QoS request of 0 us on /dev/cpu_dma_latency (the kernel's documented
interface: the request holds while the file stays open, and ends with this process) makes idle
CPUs poll instead of halting, and the wake-up should shrink. The command's output says what it
measured; this prints the machine's idle states and whether the hold took.

On the H200's machine (a Firecracker/KVM guest) there is no cpuidle driver: an idle vCPU halts
whatever the request says. --spin instead keeps every vCPU busy with a spinning process of the
lowest priority (SCHED_IDLE, one pinned to each CPU; separate processes, so no GIL): a CPU running
only such a task never halts, and any thread that wakes there preempts it at once. If the wake-up
shrinks with it, the cost is the halted vCPU's, outside what a loop can change. It did (2026-12-01,
commit e0dd2f5, docs/results/2026-12-01-h200: the hold changed nothing, the spinners removed the wake-up).

    python bench/idle_hold.py --hold -- python bench/wake_probe.py --num-envs 8
    python bench/idle_hold.py --spin -- python bench/wake_probe.py --num-envs 8
    python bench/idle_hold.py -- python bench/wake_probe.py --num-envs 8      # same, no hold
"""

import argparse
import glob
import os
import signal
import struct
import subprocess
import sys


def idle_states() -> str:
    """cpu0's idle states as the kernel lists them (name, exit latency in us, disabled), and the driver."""
    def read(path: str) -> str:
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return "?"
    driver = read("/sys/devices/system/cpu/cpuidle/current_driver")
    governor = read("/sys/devices/system/cpu/cpuidle/current_governor_ro")
    states = [f"{read(d + '/name')}({read(d + '/latency')}us{', off' if read(d + '/disable') == '1' else ''})"
              for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cpuidle/state*"))]
    return f"cpuidle driver {driver}, governor {governor}, cpu0 states: {' '.join(states) or 'none'}"


SPINNER = """
import os, sys
parent = os.getppid()
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
while os.getppid() == parent:  # ends when this script does, however it ends
    for _ in range(100000):
        pass
"""


def spinners() -> list[subprocess.Popen]:
    """One SCHED_IDLE spinning process pinned to each CPU this process may use."""
    return [subprocess.Popen([sys.executable, "-c", SPINNER, str(cpu)]) for cpu in sorted(os.sched_getaffinity(0))]


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # so that `finally` stops the spinners and ends the hold


def main() -> int:
    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGHUP, _exit)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hold", action="store_true", help="hold a 0 us request on /dev/cpu_dma_latency")
    p.add_argument("--spin", action="store_true", help="a SCHED_IDLE spinner on every CPU")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    a = p.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    print(idle_states(), flush=True)
    fd = None
    if a.hold:
        try:
            fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
            os.write(fd, struct.pack("i", 0))
            print("idle hold: 0 us requested on /dev/cpu_dma_latency", flush=True)
        except OSError as e:
            print(f"idle hold: not taken ({e})", flush=True)
            return 2
    else:
        print("idle hold: none", flush=True)
    spinning = spinners() if a.spin else []
    print(f"spinners: {len(spinning)} (SCHED_IDLE, one per CPU)", flush=True)
    try:
        return subprocess.call(command)
    finally:
        for proc in spinning:
            proc.kill()
        if fd is not None:
            os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
