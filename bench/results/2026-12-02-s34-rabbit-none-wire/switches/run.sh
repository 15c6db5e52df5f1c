#!/usr/bin/env bash
# Session 34: one run of MODE (label LABEL, JVM options after it) with bench/scripts/thread-switches.py over 12 s of the
# measured window, 6 s after the bench's "Measuring:" line; ran as `run.sh native native` and `run.sh sdk-none sdk-none`.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-/tmp/s34/cs} mode=$1 label=${2:-$1}
shift 2 || true
log=$out/$label.log
java -Xmx2g -Dtls.server.mode=disabled "$@" -jar bench/target/switchboard-bench.jar run bench/workloads/keyed/keyed-2k-512.yaml \
    --brokers rabbitmq --none-envelope --jvm-warmup 30 --modes "$mode" --repeat 1 --no-progress --out $out/$label > "$log" 2>&1 &
pid=$!
for i in $(seq 1 600); do grep -q "Measuring:" "$log" && break; sleep 0.5; done
sleep 6
python3 bench/scripts/thread-switches.py $pid 12 2000 "$label" > $out/$label.switches.txt
wait $pid
cut -d, -f4,24,27,41 $out/$label/results.csv | tail -1 >> $out/$label.switches.txt
