#!/usr/bin/env python3
"""The SDK's own frames in a profile-window.sh profile of sdk-none (stacks without kafka-clients or bench frames below
the given root), in us a message, by the deepest Switchboard frame and the leaf.

    gunzip -k sdk-none/collapsed.txt.gz; python3 sdk-own.py sdk-none
"""
import collections
import csv
import sys

directory = sys.argv[1]
row = next(csv.DictReader(open(directory + "/out/results.csv")))
messages = (float(row["publish_msg_s"]) + float(row["consume_msg_s"])) / 2 * 30
INTERVAL_US = 2000
ROOTS = [("sender", "io/switchboard/internal/DefaultPublisher.publish"),
         ("producer-network", "io/switchboard/kafka/internal/publish/SendCallback.onCompletion"),
         ("group", "io/switchboard/kafka/internal/consume/RoundDelivery.deliver")]
for thread, root in ROOTS:
    counts = collections.Counter()
    for line in open(directory + "/collapsed.txt"):
        stack, samples = line.rstrip().rsplit(" ", 1)
        frames = stack.split(";")
        if thread not in frames[0] or root not in frames:
            continue
        below = frames[frames.index(root):]
        if any("org/apache/kafka" in f or "io/switchboard/bench" in f for f in below[1:]):
            continue
        own = [f for f in below if "io/switchboard" in f]
        counts[own[-1].replace("io/switchboard/", "") + " | " + below[-1][-50:]] += int(samples)
    print(f"{thread} under {root}: {sum(counts.values()) * INTERVAL_US / messages:.3f} us a message")
    for frame, samples in counts.most_common(12):
        print(f"  {samples * INTERVAL_US / messages:6.3f}  {frame}")
