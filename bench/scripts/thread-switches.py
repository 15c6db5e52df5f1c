#!/usr/bin/env python3
"""Context switches and CPU per thread of a running JVM over a window, per message: which threads wake how often for
each message (a thread hop costs a wake-up, and on two shared cores a wake-up costs latency). Reads /proc only.

    python3 bench/scripts/thread-switches.py PID SECONDS MSG_PER_S [LABEL]

Threads are grouped by name with digits replaced by '#'; per group: wake-ups (voluntary switches) and preemptions
(involuntary) per message, and CPU us per message (utime + stime, clock ticks). Names are the JVM's own (from
`jcmd PID Thread.print`, whose nid is the thread's id), not the kernel's 15-character cut, where jcmd answers.
MSG_PER_S 0 prints the figures per second instead, to divide by a rate known only after the run.
"""
import collections
import os
import re
import subprocess
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


def java_names(pid):
    """Thread id to the JVM's name of the thread, or {} when jcmd cannot attach."""
    try:
        dump = subprocess.run(["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {str(int(nid, 16)): name for name, nid in re.findall(r'^"(.*?)".*? nid=(0x[0-9a-f]+)', dump, re.M)}


def main(pid, seconds, rate, label=""):
    names = java_names(pid)
    before = sample(pid)
    time.sleep(seconds)
    after = sample(pid)
    messages = seconds * (rate or 1)
    groups = collections.defaultdict(lambda: [0, 0, 0, 0])
    for tid, (name, vol, invol, cpu) in after.items():
        b = before.get(tid, (name, 0, 0, 0))
        g = groups[re.sub(r"\d+", "#", names.get(tid, name))]
        g[0] += 1
        g[1] += vol - b[1]
        g[2] += invol - b[2]
        g[3] += cpu - b[3]
    total = [0, 0, 0]
    print("%s: %d s at %d msg/s; per %s: wake-ups, preemptions, CPU us" % (label, seconds, rate, "message" if rate else "second"))
    for name, (n, vol, invol, cpu) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        total[0] += vol
        total[1] += invol
        total[2] += cpu
        if vol or cpu:
            print("  %-60s x%-3d %6.3f %6.3f %7.2f" % (name, n, vol / messages, invol / messages, cpu * TICK_US / messages))
    print("  %-60s      %6.3f %6.3f %7.2f" % ("all", total[0] / messages, total[1] / messages,
                                              total[2] * TICK_US / messages))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
