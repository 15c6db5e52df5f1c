#!/usr/bin/env python3
"""Context switches and CPU per thread of a running JVM over a window, per message: which threads wake how often for
each message (a thread hop costs a wake-up, and on two shared cores a wake-up costs latency). Reads /proc only.

    python3 bench/scripts/thread-switches.py PID SECONDS MSG_PER_S [LABEL]

Threads are grouped by name with digits replaced by '#'; per group: wake-ups (voluntary switches) and preemptions
(involuntary) per message, and CPU us per message (utime + stime, clock ticks).
"""
import collections
import os
import re
import sys
import time

TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")


def sample(pid):
    threads = {}
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            base = "/proc/%s/task/%s/" % (pid, tid)
            name = open(base + "comm").read().strip()
            status = open(base + "status").read()
            vol = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", status).group(1))
            invol = int(re.search(r"nonvoluntary_ctxt_switches:\s+(\d+)", status).group(1))
            fields = open(base + "stat").read().rsplit(")", 1)[1].split()
            cpu = int(fields[11]) + int(fields[12])
            threads[tid] = (name, vol, invol, cpu)
        except (FileNotFoundError, ProcessLookupError, AttributeError):
            pass
    return threads


def main(pid, seconds, rate, label=""):
    before = sample(pid)
    time.sleep(seconds)
    after = sample(pid)
    messages = seconds * rate
    groups = collections.defaultdict(lambda: [0, 0, 0, 0])
    for tid, (name, vol, invol, cpu) in after.items():
        b = before.get(tid, (name, 0, 0, 0))
        g = groups[re.sub(r"\d+", "#", name)]
        g[0] += 1
        g[1] += vol - b[1]
        g[2] += invol - b[2]
        g[3] += cpu - b[3]
    total = [0, 0, 0]
    print("%s: %d s at %d msg/s; per message: wake-ups, preemptions, CPU us" % (label, seconds, rate))
    for name, (n, vol, invol, cpu) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        total[0] += vol
        total[1] += invol
        total[2] += cpu
        if vol or cpu:
            print("  %-32s x%-3d %6.3f %6.3f %7.2f" % (name, n, vol / messages, invol / messages, cpu * TICK_US / messages))
    print("  %-32s      %6.3f %6.3f %7.2f" % ("all", total[0] / messages, total[1] / messages,
                                              total[2] * TICK_US / messages))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
