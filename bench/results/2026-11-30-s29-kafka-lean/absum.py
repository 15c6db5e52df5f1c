"""Session 29 A/B at one topic count: each run's rate and CPU, then the means of native, old (main c1299f3) and new
(the lean per-message objects), with sdk/native ratios of means and per repetition.
    python3 absum.py DIR"""
import csv, glob, os, sys, collections
base = sys.argv[1]
rows = []
for f in glob.glob(base + '/*/results.csv'):
    name = os.path.basename(os.path.dirname(f))
    run, cfg, topics = name.split('-')
    r = list(csv.DictReader(open(f)))[-1]
    rate = min(float(r['publish_msg_s']), float(r['consume_msg_s']))
    rows.append((int(run), cfg, int(topics), rate, float(r['jvm_cpu_us_per_msg']), float(r['broker_cpu_us_per_msg']),
                 int(r['lost']), float(r['jit_ms'] or 0)))
rows.sort()
print("run config topics  msg/s   client / broker CPU us a message  JIT ms  lost")
for x in rows:
    print(f"{x[0]:3d} {x[1]:6s} {x[2]:4d} {x[3]/1000:7.1f}k  {x[4]:5.2f} / {x[5]:5.2f}  {x[7]:6.0f}  {x[6]}")
by = collections.defaultdict(list)
for x in rows:
    by[x[1]].append(x)
def mean(v): return sum(v) / len(v)
n = by['native']
print()
for c in ('native', 'old', 'new'):
    s = by[c]
    if not s or not n:
        continue
    reps = [f"{b[3]/a[3]:.3f}" for a, b in zip(n, s)]
    print(f"{c:6s} mean {mean([x[3] for x in s])/1000:7.1f}k ({len(s)})  /native {mean([x[3] for x in s])/mean([x[3] for x in n]):.3f}"
          f"  client CPU {mean([x[4] for x in s]):.2f} us (/native {mean([x[4] for x in s])/mean([x[4] for x in n]):.3f})"
          f"  per repetition {', '.join(reps)}")
