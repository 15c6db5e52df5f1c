import csv,glob,collections,statistics
by=collections.defaultdict(list)
for f in sorted(glob.glob('bench/results/2026-11-29-seed-001-rocketmq-shared-instance/send-window-interleaved/*-r*/results.csv')):
    name=f.split('/')[-2]; var,rep=name.rsplit('-r',1)
    for r in csv.DictReader(open(f)):
        by[var].append((int(rep), min(float(r['publish_msg_s']),float(r['consume_msg_s'])), float(r['jvm_cpu_us_per_msg']), float(r['publish_p50_ms']), float(r['jit_ms']), r['lost'], float(r['e2e_p50_ms'])))
nat={rep:t for rep,t,*_ in by['native']}
nm=statistics.mean(nat.values())
for var,rs in sorted(by.items()):
    rs.sort()
    m=statistics.mean(t for _,t,*_ in rs)
    print("%-9s %s | mean %.1fk (%.2f of native) | cpu %s | send p50 ms %s | jit ms %s | lost %s | per-rep ratio %s" % (var,
      " ".join("%.1fk"%(t/1000) for _,t,*_ in rs), m/1000, m/nm, " ".join("%.1f"%c for _,_,c,*_ in rs),
      " ".join("%.0f"%x[3] for x in rs), " ".join("%.0f"%x[4] for x in rs), ",".join(x[5] for x in rs),
      " ".join("%.2f"%(t/nat[rep]) for rep,t,*_ in rs)))
