# Usage: python3 sum.py [DIR]: DIR holds one folder a run, REP-CONFIG (1-native, 2-old, ...), with results.csv;
# by default this session's folder. Session 32's A/B (bench/results/2026-12-01-s32-kafka-512/ab) is summed by it too.
import csv, glob, os, collections, sys
root = sys.argv[1] if len(sys.argv) > 1 else 'bench/results/2026-12-01-s31-kafka-seed/issue35-kafka-ce'
rows = collections.defaultdict(dict)
for f in glob.glob(root + '/*/results.csv'):
    rep, cfg = os.path.basename(os.path.dirname(f)).split('-')
    for r in csv.DictReader(open(f)):
        size = [v for k, v in r.items() if 'messageSize' in (v or '') or k == 'variant']
        var = r.get('variant', '')
        rate = min(float(r['publish_msg_s']), float(r['consume_msg_s']))
        rows[(var, cfg)][int(rep)] = (rate, float(r['jvm_cpu_us_per_msg']), float(r['broker_cpu_us_per_msg'] or 'nan'),
                                      float(r['e2e_p50_ms']), float(r['e2e_p99_ms']), int(r['lost']))
def mean(v): return sum(v) / len(v)
for var in sorted({k[0] for k in rows}):
    n = rows.get((var, 'native'), {})
    print(f"== {var}")
    for cfg in ('native', 'old', 'new'):
        s = rows.get((var, cfg), {})
        reps = sorted(set(s) & set(n))
        if not reps: continue
        print(f"{cfg:6s} msg/s " + ", ".join(f"{s[k][0]/1000:.1f}k" for k in sorted(s)) +
              f"  client CPU " + ", ".join(f"{s[k][1]:.2f}" for k in sorted(s)) +
              f"  broker CPU " + ", ".join(f"{s[k][2]:.2f}" for k in sorted(s)) + f"  lost {sum(s[k][5] for k in s)}")
        print(f"       /native-ce: rate {mean([s[k][0] for k in reps]) / mean([n[k][0] for k in reps]):.3f}"
              f"  client CPU {mean([s[k][1] for k in reps]) / mean([n[k][1] for k in reps]):.3f}"
              f"  e2e p50 {mean([s[k][3] for k in reps]) / mean([n[k][3] for k in reps]):.2f}"
              f"  p99 {mean([s[k][4] for k in reps]) / mean([n[k][4] for k in reps]):.2f}")
