#!/usr/bin/env python3
"""Pairs of PROBE=kafka-metrics THREADS=1 runs (profile-window.sh, named PREFIX-N-MODE as the probe run.sh scripts name
them): per run its rate, the client's and the broker's CPU a message, the client's over the broker's, the broker's
cores busy and its produce and fetch requests per 1,000 messages; per pair the second mode's over the first's; pooled
over the pairs (rates summed, CPU figures averaged). The broker does the same work a message in every mode and was the
busy side in every run so far, so its CPU a message says how fast the machine ran then: the client's CPU over it
compares the modes without that, and its requests a message say what a client made it do ("own fetch/1k": the
consumers' own count of their fetches a message over the same window, where the run's probe read kafka-clients'
totals). A pair whose second run has not finished is left out.

    python3 bench/scripts/probe-pairs.py OUT PREFIX MODE_A MODE_B      e.g. OUT k1k native sdk-none
"""
import glob
import importlib.util
import os
import re
import sys

spec = importlib.util.spec_from_file_location("probe_compare", os.path.join(os.path.dirname(__file__), "probe-compare.py"))
probe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(probe)

FIGURES = [("msg/s", "%10.0f"), ("client us", "%10.3f"), ("broker us", "%10.3f"), ("client/broker", "%10.3f"),
           ("broker cores", "%10.3f"), ("produce/1k", "%10.2f"), ("fetch/1k", "%10.2f"), ("own fetch/1k", "%10.2f")]


def figures(directory):
    r = probe.run(directory)
    messages_in = r["broker"].get("broker all-topics MessagesInPerSec Count", 0)
    totals = probe.cpu_totals(r)
    if not messages_in or not totals:
        sys.exit("%s: no broker reading or thread figures (was it run with PROBE=kafka-metrics THREADS=1?)" % directory)
    client_cpu, broker_cpu = totals
    per_k = lambda name: r["broker"].get("broker requests %s Count" % name, 0) * 1000 / messages_in
    window = " a second over the window"
    fetches = r["client"].get("consumer consumer-fetch-manager-metrics fetch-total" + window, 0)
    consumed = r["client"].get("consumer consumer-fetch-manager-metrics records-consumed-total" + window, 0)
    return [r["rate"], client_cpu / messages_in, broker_cpu / messages_in, client_cpu / broker_cpu, broker_cpu / 1e6,
            per_k("Produce"), per_k("Fetch"), fetches * 1000 / consumed if consumed else 0]


def main(out, prefix, mode_a, mode_b):
    pairs = {}
    for d in glob.glob(os.path.join(out, "%s-*-*" % prefix)):
        m = re.fullmatch(re.escape(prefix) + r"-(\d+)-(.+)", os.path.basename(d))
        if m and m.group(2) in (mode_a, mode_b):
            pairs.setdefault(int(m.group(1)), {})[m.group(2)] = d
    finished = lambda d: any(os.path.exists(os.path.join(d, *f)) for f in (("out", "results.csv"), ("results.csv",)))
    complete = sorted(n for n, p in pairs.items() if len(p) == 2 and all(finished(d) for d in p.values()))
    if not complete:
        sys.exit("no complete pair of %s and %s named %s-N-MODE under %s" % (mode_a, mode_b, prefix, out))
    print("%-18s" % "" + "".join("%14s" % name for name, _ in FIGURES))
    sums = {mode_a: [0.0] * len(FIGURES), mode_b: [0.0] * len(FIGURES)}
    for n in complete:
        got = {mode: figures(pairs[n][mode]) for mode in (mode_a, mode_b)}
        for mode in (mode_a, mode_b):
            print("%-18s" % ("%d %s" % (n, mode)) + "".join("%14s" % (form % v) for (_, form), v in zip(FIGURES, got[mode])))
            sums[mode] = [s + v for s, v in zip(sums[mode], got[mode])]
        print("%-18s" % ("%d %s/%s" % (n, mode_b, mode_a))
              + "".join("%14.3f" % (b / a if a else 0) for a, b in zip(got[mode_a], got[mode_b])))
    print("%-18s" % ("pooled over %d" % len(complete))
          + "".join("%14.3f" % (b / a if a else 0) for a, b in zip(sums[mode_a], sums[mode_b])))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
