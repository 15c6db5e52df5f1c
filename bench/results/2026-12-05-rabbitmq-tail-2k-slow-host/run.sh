#!/usr/bin/env bash
# RabbitMQ's tail at 2,000 msg/s, every envelope mode in one bench run: keyed-2k-512 (512 B, keyed, at least once, 5 s
# warm-up, 20 s measured), native, native-ce, sdk, sdk-none and sdk-compact, three repetitions, 30 s JVM warm-up passes,
# brokers in child JVMs, with a CPU-bound neighbour (a shell busy loop) for the whole run; then native and sdk once
# without it. Run from anywhere:
#   OUT=/tmp/tail BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-05-rabbitmq-tail-2k-slow-host/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar} out=${OUT:-/tmp/tail}
(exec timeout 3600 sh -c 'while :; do :; done') &
pid=$!
java -Xmx2g -Dtls.server.mode=disabled -jar "$jar" run bench/workloads/keyed/keyed-2k-512.yaml --brokers rabbitmq \
    --brokers-in-child --native-envelope --none-envelope --compact-envelope --jvm-warmup 30 \
    --modes native,native-ce,sdk,sdk-none,sdk-compact --repeat 3 --no-progress --out "$out/neighbour"
kill "$pid"
python3 bench/scripts/by-mode-summary.py "$out/neighbour/results.csv" > "$out/neighbour/summary.txt"
java -Xmx2g -Dtls.server.mode=disabled -jar "$jar" run bench/workloads/keyed/keyed-2k-512.yaml --brokers rabbitmq \
    --brokers-in-child --jvm-warmup 20 --modes native,sdk --repeat 1 --no-progress --out "$out/quiet"
python3 bench/scripts/by-mode-summary.py "$out/quiet/results.csv" > "$out/quiet/summary.txt"
