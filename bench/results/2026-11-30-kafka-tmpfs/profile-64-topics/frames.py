"""Frames on one thread group of profile A against another of profile B, in us a message (inclusive, each frame once a
stack; 2 ms samples; messages = mean of published and consumed rate x 30 s). Session 28.
    python3 frames.py native bench-kafka-consumer sdk-off switchboard-kafka [ROWS]"""
import os
import collections, csv, re, sys
def load(d, part):
    csv_path = d + "/out/results.csv" if os.path.exists(d + "/out/results.csv") else d + "/results.csv"
    row = next(csv.DictReader(open(csv_path)))
    msgs = (float(row["publish_msg_s"]) + float(row["consume_msg_s"])) / 2 * 30
    c = collections.Counter()
    import gzip
    name = d + "/collapsed.txt"
    for line in (open(name) if os.path.exists(name) else gzip.open(name + ".gz", "rt")):
        stack, n = line.rstrip().rsplit(" ", 1)
        f = stack.split(";")
        if part not in f[0]: continue
        seen = set()
        for fr in f[1:]:
            fr = re.sub(r"\$\$Lambda\$\d+\.0x[0-9a-f]+", "$$Lambda", fr)
            if fr not in seen:
                seen.add(fr); c[fr] += int(n)
    return {k: v * 2.0 / msgs * 1000 for k, v in c.items()}
a = load(sys.argv[1], sys.argv[2]); b = load(sys.argv[3], sys.argv[4])
keys = sorted(set(a) | set(b), key=lambda k: -max(a.get(k, 0), b.get(k, 0)))
for k in keys[:int(sys.argv[5]) if len(sys.argv) > 5 else 80]:
    print(f"{a.get(k,0):6.2f} {b.get(k,0):6.2f}  {k}")
