"""Allocation per message from a bench --jfr recording (jdk.ObjectAllocationSample weights, by class), over the
recording's last 64 s to 6 s (inside the measured 60 s window; the run's drain and clean-up follow it), against the
run's min(published, consumed) rate. Session 28.
    python3 alloc.py RUN_DIR   (holding the .jfr and out/results.csv)"""
import collections, csv, glob, json, subprocess, sys
from datetime import datetime
d = sys.argv[1]
jfr = glob.glob(d + '/*.jfr')[0]
row = list(csv.DictReader(open(d + '/out/results.csv')))[-1]
rate = min(float(row['publish_msg_s']), float(row['consume_msg_s']))
out = subprocess.run(['jfr', 'print', '--json', '--events', 'jdk.ObjectAllocationSample', jfr], capture_output=True, text=True).stdout
events = json.loads(out)['recording']['events']
def t(e): return datetime.fromisoformat(e['values']['startTime'].replace('Z', '+00:00')).timestamp()
end = max(t(e) for e in events)
by = collections.Counter(); thread = collections.Counter()
for e in events:
    if end - 64 <= t(e) <= end - 6:
        v = e['values']; w = v['weight']
        by[v['objectClass']['name']] += w
        thread[(v.get('eventThread') or {}).get('javaName', '?').rstrip('0123456789')] += w
msgs = rate * 58
total = sum(by.values())
print(f"{d}: {rate/1000:.1f}k msg/s, {total/msgs:.0f} B allocated a message")
for k, w in by.most_common(40):
    print(f"  {w/msgs:7.1f} B  {k}")
print("  by thread:")
for k, w in thread.most_common(6):
    print(f"  {w/msgs:7.1f} B  {k}")
