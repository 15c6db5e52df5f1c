import sys, collections, re
def load(f):
    d=collections.Counter()
    for line in open(f):
        line=line.rstrip()
        if not line: continue
        s,_,c=line.rpartition(' ')
        t=s.split(';')[0]
        t=re.sub(r'\d+','N',t)
        d[t]+=int(c)
    return d
files=sys.argv[1].split(','); rates=[float(x) for x in sys.argv[2].split(',')]
D=[load(f) for f in files]
keys=set().union(*D)
rows=sorted(keys,key=lambda k:-max(d[k]*1000/(r*10) for d,r in zip(D,rates)))
print('%-70s'%'thread', *['%9s'%f for f in files])
print('%-70s'%'TOTAL', *['%9.3f'%(sum(d.values())*1000/(r*10)) for d,r in zip(D,rates)])
for k in rows[:25]:
    print('%-70s'%k[:70], *['%9.3f'%(d[k]*1000/(r*10)) for d,r in zip(D,rates)])
