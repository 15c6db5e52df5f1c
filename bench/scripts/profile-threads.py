#!/usr/bin/env python3
"""Compares two profile-window.sh profiles per message: CPU a message by thread (names with digits as N), or, given a
thread name's part, the frames on those threads (inclusive, each frame counted once a stack), in us a message.

    python3 bench/scripts/profile-threads.py A_DIR B_DIR [THREAD_PART [ROWS]] [--interval-ms 2]

THREAD_PART may be A_PART,B_PART where the two runs name the same work's threads differently (the native driver's
bench-kafka-consumer against the adapter's switchboard-kafka). A directory holds collapsed.txt (or collapsed.txt.gz)
and out/results.csv (or results.csv).

Messages are the mean of the published and consumed rates times the 30 s profiled.
"""
import collections
import csv
import gzip
import os
import re
import sys


def load(directory, thread_part):
    results = directory + "/out/results.csv"
    row = next(csv.DictReader(open(results if os.path.exists(results) else directory + "/results.csv")))
    messages = (float(row["publish_msg_s"]) + float(row["consume_msg_s"])) / 2 * 30
    counts = collections.Counter()
    stacks = directory + "/collapsed.txt"
    for line in open(stacks) if os.path.exists(stacks) else gzip.open(stacks + ".gz", "rt"):
        stack, samples = line.rstrip().rsplit(" ", 1)
        frames = stack.split(";")
        thread = re.sub(r"\d+", "N", frames[0].split(" tid=")[0].strip("["))
        if thread_part is None:
            counts[thread] += int(samples)
            continue
        if thread_part not in frames[0]:
            continue
        seen = set()
        for frame in frames[1:]:
            frame = re.sub(r"\$\$Lambda\$\d+\.0x[0-9a-f]+", "$$Lambda", frame)
            if frame not in seen and not frame.endswith("_[k]"):
                counts[frame] += int(samples)
                seen.add(frame)
    return counts, messages


def main(args):
    interval = 2.0
    if "--interval-ms" in args:
        i = args.index("--interval-ms")
        interval = float(args[i + 1])
        del args[i:i + 2]
    a_dir, b_dir = args[0], args[1]
    part = args[2] if len(args) > 2 else None
    rows = int(args[3]) if len(args) > 3 else 20
    a_part, b_part = part.split(",", 1) if part and "," in part else (part, part)
    a, a_messages = load(a_dir, a_part)
    b, b_messages = load(b_dir, b_part)
    us = lambda counts, key, messages: counts[key] * interval * 1000 / messages
    keys = sorted(set(a) | set(b), key=lambda k: -max(us(a, k, a_messages), us(b, k, b_messages)))
    print(f"{'A us/msg':>9} {'B us/msg':>9}  {'thread' if part is None else 'frame on ' + part}")
    for key in keys[:rows]:
        print(f"{us(a, key, a_messages):9.2f} {us(b, key, b_messages):9.2f}  {key[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
