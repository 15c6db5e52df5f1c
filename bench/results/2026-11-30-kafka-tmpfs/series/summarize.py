"""Kafka seed 001 on tmpfs, session 28: each run's rate and CPU, then per topic count the means of native and sdk-off,
the ratio of means, and the per-repetition ratios (native and sdk-off of the same repetition ran back to back)."""
import csv, glob, os, sys
base = sys.argv[1] if len(sys.argv) > 1 else '.'
rows = []
for f in glob.glob(base + '/*/results.csv'):
    run, cfg, topics = os.path.basename(os.path.dirname(f)).rsplit('-', 2)[0].split('-', 1)[0], \
        os.path.basename(os.path.dirname(f)).split('-', 1)[1].rsplit('-', 1)[0], int(os.path.dirname(f).rsplit('-', 1)[1])
    r = list(csv.DictReader(open(f)))[-1]
    rate = min(float(r['publish_msg_s']), float(r['consume_msg_s']))
    rows.append((int(run), cfg, topics, rate, float(r['jvm_cpu_us_per_msg']), float(r['broker_cpu_us_per_msg']),
                 int(r['lost']), float(r['jit_ms'] or 0)))
rows.sort()
print("run config  topics  msg/s (min of published, consumed)  client / broker CPU us a message  JIT ms in window  lost")
for x in rows:
    print(f"{x[0]:3d} {x[1]:8s} {x[2]:4d} {x[3]/1000:8.1f}k  {x[4]:6.2f} / {x[5]:5.2f}  {x[7]:7.0f}  {x[6]}")
print()
print("topics  native mean  sdk-off mean  ratio of means  client CPU ratio  per-repetition ratios (run pairs)")
for t in sorted({x[2] for x in rows}):
    n = [x for x in rows if x[2] == t and x[1] == 'native']
    s = [x for x in rows if x[2] == t and x[1] == 'sdk-off']
    if not n or not s:
        continue
    nm = sum(x[3] for x in n) / len(n); sm = sum(x[3] for x in s) / len(s)
    nc = sum(x[4] for x in n) / len(n); sc = sum(x[4] for x in s) / len(s)
    pairs = [f"{b[3]/a[3]:.2f}" for a, b in zip(n, s)]
    print(f"{t:5d}  {nm/1000:8.1f}k ({len(n)})  {sm/1000:8.1f}k ({len(s)})  {sm/nm:6.3f}  {sc/nc:6.2f}  {', '.join(pairs)}")
