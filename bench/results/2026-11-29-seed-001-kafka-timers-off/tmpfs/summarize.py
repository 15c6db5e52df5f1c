import csv, glob, os
rows = []
for f in sorted(glob.glob('/tmp/w/s27/tmpfs/out/*/results.csv'), key=lambda p: int(os.path.basename(os.path.dirname(p)).split('-')[0])):
    name = os.path.basename(os.path.dirname(f))
    r = list(csv.DictReader(open(f)))[-1]
    rate = min(float(r['publish_msg_s']), float(r['consume_msg_s']))
    rows.append((name, int(r['topics']), rate, float(r['jvm_cpu_us_per_msg']), float(r['broker_cpu_us_per_msg']), int(r['lost']),
                 float(r['e2e_p50_ms']), float(r['e2e_p99_ms'])))
print("Kafka seed 001, 60 s windows, the bench's temporary directories (and the Kafka child's log) on /dev/shm;")
print("rate = min(published, consumed); client and broker CPU in us a message; run order as numbered")
for x in rows:
    print(f"  {x[0]:12s} {x[1]:3d} topics {x[2]/1000:7.1f}k msg/s  client {x[3]:.2f}  broker {x[4]:.2f}  e2e p50/p99 {x[6]:.2f}/{x[7]:.2f} ms  lost {x[5]}")
for t in (8, 16):
    by = {}
    for x in rows:
        if x[1] != t: continue
        cfg = x[0].split('-', 1)[1].replace('16', '').replace('native', 'native').replace('off', 'sdk-off') if t == 16 else x[0].split('-', 1)[1]
        by.setdefault(cfg, []).append(x)
    if 'native' not in by: continue
    n = sum(x[2] for x in by['native']) / len(by['native'])
    nc = sum(x[3] for x in by['native']) / len(by['native'])
    for cfg, xs in by.items():
        m = sum(x[2] for x in xs) / len(xs); c = sum(x[3] for x in xs) / len(xs)
        print(f"{t} topics {cfg:9s} runs {len(xs)} mean {m/1000:.1f}k msg/s = {m/n:.3f} of native's mean; client CPU {c:.2f} = {c/nc:.2f}x")
