#!/usr/bin/env python3
"""Summarises a by-mode.sh results.csv: per broker and workload point (topics, message size), each mode's
min(published, consumed) msg/s per run and their mean, its client CPU per message (jvm_cpu_us_per_msg, the client's
alone with --brokers-in-child), JIT time and e2e p50 / p99 per run, and the ratios that issues 35 and 38 set targets on:
of the means for throughput and CPU, of the means and of the medians for latency (one stalled run moves a mean).

    python3 bench/scripts/by-mode-summary.py OUT/results.csv
"""
import collections
import csv
import statistics
import sys

PAIRS = [("sdk-none", "native"), ("sdk", "native-ce"), ("sdk-none", "native-batch"), ("sdk", "native-batch-ce"),
         ("sdk-none", "spring"), ("sdk-none", "spring-ce"), ("sdk-none", "native-as-none"), ("native-as-none", "native")]


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def main(path):
    rows = list(csv.DictReader(open(path)))
    points = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        points[(r["broker"], int(r["topics"]), int(r["message_bytes"]))][r["mode"]].append(r)
    for (broker, topics, size), modes in sorted(points.items()):
        print("%s, %d topic(s), %d B" % (broker, topics, size))
        means = {}
        for mode, rs in sorted(modes.items()):
            thr = [min(float(r["publish_msg_s"]), float(r["consume_msg_s"])) for r in rs]
            cpu = [float(r["jvm_cpu_us_per_msg"]) for r in rs]
            jit = ["%.0f" % float(r["jit_ms"]) if r.get("jit_ms") else "-" for r in rs]
            p50 = [float(r["e2e_p50_ms"]) for r in rs]
            p99 = [float(r["e2e_p99_ms"]) for r in rs]
            means[mode] = (mean(thr), mean(cpu), mean(p50), mean(p99), statistics.median(p50), statistics.median(p99))
            print("  %-16s %s mean %.0f msg/s, client CPU %s mean %.2f us/msg, jit ms %s, lost %s" % (
                mode, " ".join("%.1fk" % (x / 1000) for x in thr), means[mode][0],
                " ".join("%.2f" % c for c in cpu), means[mode][1], " ".join(jit), ",".join(r["lost"] for r in rs)))
            print("  %-16s e2e ms p50/p99 %s: mean %.2f / %.2f, median %.2f / %.2f" % (
                "", " ".join("%.2f/%.2f" % (a, b) for a, b in zip(p50, p99)), *means[mode][2:]))
        for a, b in PAIRS:
            if a in means and b in means and means[b][0] > 0 and means[b][1] > 0:
                ma, mb = means[a], means[b]
                print("  %s / %s: throughput %.3f, client CPU %.3f; e2e p50 / p99 of the means %.2f / %.2f, "
                      "of the medians %.2f / %.2f" % (a, b, ma[0] / mb[0], ma[1] / mb[1], ma[2] / mb[2], ma[3] / mb[3],
                                                      ma[4] / mb[4], ma[5] / mb[5]))


if __name__ == "__main__":
    main(sys.argv[1])
