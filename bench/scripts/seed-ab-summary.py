"""Sums bench/scripts/seed-ab.sh's runs: each run's rate and CPU, then per topic count the means of native, old and
new, sdk/native ratios of the means and per repetition, and client CPU over broker CPU a message (a ratio of two
figures of one run, which a change of the machine's speed moves less), and the rate that CPU predicts: these runs are
CPU-bound (the two cores busy), so at equal broker CPU a message the rates stand as the total CPU a message, which is
(1 + native's client/broker) / (1 + this mode's client/broker) of native's, with the machine's speed of each run
divided out.
    python3 bench/scripts/seed-ab-summary.py OUT/ab-16 OUT/ab-64 ..."""
import csv, glob, os, sys, collections, statistics
def mean(v): return sum(v) / len(v)
for base in sys.argv[1:]:
    rows = []
    for f in glob.glob(base + '/*/results.csv'):
        rep, cfg, topics = os.path.basename(os.path.dirname(f)).split('-')
        r = list(csv.DictReader(open(f)))[-1]
        rate = min(float(r['publish_msg_s']), float(r['consume_msg_s']))
        rows.append((int(rep), cfg, int(topics), rate, float(r['jvm_cpu_us_per_msg']), float(r['broker_cpu_us_per_msg']),
                     int(r['lost']), float(r['jit_ms'] or 0)))
    rows.sort()
    print(f"== {base}")
    print("rep config topics  msg/s   client / broker CPU us a message  client/broker  JIT ms  lost")
    for x in rows:
        print(f"{x[0]:3d} {x[1]:6s} {x[2]:4d} {x[3]/1000:7.1f}k  {x[4]:5.2f} / {x[5]:5.2f}  {x[4]/x[5]:5.2f}  {x[7]:6.0f}  {x[6]}")
    by = collections.defaultdict(dict)
    for x in rows:
        by[x[1]][x[0]] = x
    n = by['native']
    for c in ('native', 'old', 'new'):
        s = by[c]
        reps = sorted(set(s) & set(n))
        if not reps:
            continue
        rate = mean([s[k][3] for k in reps]) / mean([n[k][3] for k in reps])
        per = ", ".join(f"{s[k][3] / n[k][3]:.2f}" for k in reps)
        cpu = mean([s[k][4] for k in reps]) / mean([n[k][4] for k in reps])
        norm = mean([s[k][4] / s[k][5] for k in reps]) / mean([n[k][4] / n[k][5] for k in reps])
        bound = [(1 + n[k][4] / n[k][5]) / (1 + s[k][4] / s[k][5]) for k in reps]
        print(f"{c:6s} ({len(reps)}) mean {mean([s[k][3] for k in reps])/1000:7.1f}k  /native {rate:.3f} (per rep {per})"
              f"  client CPU /native {cpu:.3f}  client/broker CPU /native {norm:.3f}"
              f"  rate from CPU /native {mean(bound):.3f} (per rep {', '.join(f'{b:.2f}' for b in bound)})")
    print()
