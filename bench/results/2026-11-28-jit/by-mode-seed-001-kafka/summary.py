import csv, sys, collections
rows=list(csv.DictReader(open(sys.argv[1])))
by=collections.defaultdict(list)
for r in rows:
    by[(int(r['topics']),r['mode'])].append(r)
modes=sorted({r['mode'] for r in rows})
for t in sorted({k[0] for k in by}):
    line=['%4d'%t]
    m={}
    for mode in modes:
        rs=by[(t,mode)]
        thr=[min(float(r['publish_msg_s']),float(r['consume_msg_s'])) for r in rs]
        cpu=[float(r['jvm_cpu_us_per_msg']) for r in rs]
        jit=[float(r['jit_ms']) if r.get('jit_ms') else float('nan') for r in rs]
        lost=[r['lost'] for r in rs]
        m[mode]=(sum(thr)/len(thr), sum(cpu)/len(cpu))
        line.append('%s %s mean %.0fk cpu %.2f jit %s lost %s'%(mode,'/'.join('%.0fk'%(x/1000) for x in thr),m[mode][0]/1000,m[mode][1],'/'.join('%.0f'%j for j in jit),','.join(lost)))
    if 'native' in m:
        for mode in modes:
            if mode!='native': line.append('%s/native thr %.2f cpu %.2f'%(mode,m[mode][0]/m['native'][0],m[mode][1]/m['native'][1]))
    print(' | '.join(line))
