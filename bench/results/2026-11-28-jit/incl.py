import sys, collections
def load(f):
    stacks=[]
    for line in open(f):
        line=line.rstrip()
        if not line: continue
        s,_,c=line.rpartition(' ')
        stacks.append((s.split(';'),int(c)))
    return stacks
def incl(stacks, pat):
    return sum(c for fr,c in stacks if any(pat in x for x in fr))
files=sys.argv[1].split(','); rates=[float(x) for x in sys.argv[2].split(',')]
pats=sys.argv[3:]
S=[load(f) for f in files]
print('%-60s'%'pattern', *['%10s'%f.split('/')[-1] for f in files])
print('%-60s'%'total us/msg', *['%10.3f'%(sum(c for _,c in s)*1000/(r*10)) for s,r in zip(S,rates)])
for p in pats:
    print('%-60s'%p[:60], *['%10.3f'%(incl(s,p)*1000/(r*10)) for s,r in zip(S,rates)])
