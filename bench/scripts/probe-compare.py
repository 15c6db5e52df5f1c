#!/usr/bin/env python3
"""Compares two or more PROBE=kafka-metrics THREADS=1 runs of bench/scripts/profile-window.sh (say native and sdk-none at
the same point): the run's rate, the Kafka broker's requests by type a second and per 1,000 messages (from its child
JVM's two readings), kafka-clients' batching figures, and each thread group's CPU per message in the client's JVM and
in the broker's (thread-switches.py's figures a second, divided by the rate the broker took messages in over the same
window), and the client's CPU a message over the broker's: the broker does the same work a message in every mode, so
its CPU a message is a yardstick of how fast the machine ran in that run (runs of one mode here swing 40 % in it).

    python3 bench/scripts/probe-compare.py OUT/native OUT/sdk-none [...]
"""
import csv
import glob
import os
import re
import sys


def readings(path):
    figures = {}
    for line in open(path):
        m = re.match(r"(.+?)\s+clients\s+\d+\s+sum\s+(\S+)\s+mean\s+(\S+)", line)
        if m:  # rates and counts summed over the clients, averages and ratios their mean
            name = m.group(1).strip()
            figures[name] = float(m.group(3) if name.endswith(("-avg", "-ratio", "-in-flight")) else m.group(2))
        elif line.startswith("read-at-epoch-ms"):
            figures["time"] = float(line.split()[1]) / 1000
    return figures


# one role per row whatever the mode: the native driver's and the SDK's threads doing the same work, run ids left out
ROLES = [(r"^(bench-kafka-consumer-|switchboard-kafka\[.*\]-group-).*", "consumer poll threads"),
         (r"^kafka-producer-network-thread \| .*", "kafka-producer-network-thread"),
         (r"^kafka-coordinator-heartbeat-thread \| .*", "kafka-coordinator-heartbeat-thread"),
         (r"^(switchboard-kafka\[.*\]-deliver).*", r"\1")]


def role(name):
    for pattern, replacement in ROLES:
        if re.match(pattern, name):
            return re.sub(pattern, replacement, name)
    return name


def threads(path):
    groups = {}
    for line in open(path).readlines()[1:]:
        m = re.match(r"\s+(.+?)\s+(?:x\d+\s+)?(\S+)\s+(\S+)\s+(\S+)$", line)
        if m:
            key = role(m.group(1).strip())
            groups[key] = groups.get(key, 0) + float(m.group(4))
    return groups


def run(d):
    found = [f for f in (os.path.join(d, "out", "results.csv"), os.path.join(d, "results.csv")) if os.path.exists(f)]
    if not found:
        sys.exit("%s: no results.csv there or in out/ (not a profile-window.sh run, or it did not finish)" % d)
    r = list(csv.DictReader(open(found[0])))[-1]
    rate = min(float(r["publish_msg_s"]), float(r["consume_msg_s"]))
    info = {"rate": rate, "broker": {}, "client": readings(os.path.join(d, "kafka-metrics-2.txt")), "threads": {}}
    first = readings(os.path.join(d, "kafka-metrics-1.txt"))
    if "time" in first and "time" in info["client"]:  # kafka-clients' cumulative totals as rates over the probe's window
        seconds = info["client"]["time"] - first["time"]
        for k in [k for k in info["client"] if k.endswith("-total")]:
            info["client"][k + " a second over the window"] = (info["client"].pop(k) - first.get(k, 0)) / seconds
    for f1 in glob.glob(os.path.join(d, "kafka-metrics-1-*.txt")):
        pid = f1.rsplit("-", 1)[1][:-4]
        a, b = readings(f1), readings(os.path.join(d, "kafka-metrics-2-%s.txt" % pid))
        if "time" not in a or "time" not in b:  # the JVM did not answer (the file holds why): no broker figures
            print("%s: no reading of pid %s (see %s)" % (d, pid, f1), file=sys.stderr)
            continue
        seconds = b["time"] - a["time"]
        info["broker"] = {k: (b[k] - a.get(k, 0)) / seconds for k in b if k.startswith("broker")}
        info["broker_pid"] = pid
    for f in glob.glob(os.path.join(d, "threads-*.txt")):
        pid = f.rsplit("-", 1)[1][:-4]
        side = "broker" if pid == info.get("broker_pid") else "client"
        info["threads"][side] = threads(f)
    return info


def main(dirs):
    runs = [run(d) for d in dirs]
    names = [os.path.basename(d.rstrip("/")) for d in dirs]
    print("%-62s" % "" + "".join("%16s" % n for n in names))
    print("%-62s" % "msg/s (min of published, consumed; whole window)" + "".join("%16.0f" % r["rate"] for r in runs))
    ins = [r["broker"].get("broker all-topics MessagesInPerSec Count", 0) for r in runs]
    print("%-62s" % "broker messages in a second (probe's 20 s)" + "".join("%16.0f" % x for x in ins))
    keys = sorted({k for r in runs for k in r["broker"]})
    print("broker, per 1,000 messages in (a second in brackets):")
    for k in keys:
        vals = [r["broker"].get(k, 0) for r in runs]
        if any(v > 0.5 for v in vals):
            print("  %-60s" % k.replace("broker ", "").replace(" Count", "")
                  + "".join("%16s" % ("%.3f (%.0f)" % (v * 1000 / i, v) if i else "-") for v, i in zip(vals, ins)))
    print("kafka-clients (second reading):")
    for k in sorted({k for r in runs for k in r["client"] if k.startswith(("producer", "consumer"))}):
        print("  %-60s" % k + "".join("%16.2f" % r["client"].get(k, 0) for r in runs))
    for side in ("client", "broker"):
        groups = {}
        for i, r in enumerate(runs):
            for g, cpu in r["threads"].get(side, {}).items():
                groups.setdefault(g, [0.0] * len(runs))[i] = cpu / ins[i] if ins[i] else 0
        print("%s threads, CPU us per message in:" % side)
        for g, v in sorted(groups.items(), key=lambda kv: -max(kv[1])):
            if max(v) >= 0.005:
                print("  %-60s" % g[:60] + "".join("%16.3f" % x for x in v))
    print("the broker's CPU as a yardstick of the run's machine speed (its work a message is the same in every mode):")
    calibrated = [calibration(r, i) for r, i in zip(runs, ins)]
    for label, index, form in (("client / broker CPU a message", 0, "%16.3f"), ("broker's cores busy", 1, "%16.3f")):
        print("  %-60s" % label + "".join(form % c[index] if c else "%16s" % "-" for c in calibrated))


def cpu_totals(r):
    """(the client JVM's CPU us a second, the broker's), or None without both JVMs' thread figures."""
    client, broker = r["threads"].get("client"), r["threads"].get("broker")
    if not client or not broker:
        return None
    return client.get("all", sum(client.values())), broker.get("all", sum(broker.values()))


def calibration(r, messages_in):
    """(client CPU / broker CPU a message, the broker's CPU in cores), or None without both JVMs' thread figures."""
    totals = cpu_totals(r)
    if not totals or not messages_in:
        return None
    return totals[0] / totals[1], totals[1] / 1e6


if __name__ == "__main__":
    main(sys.argv[1:])
