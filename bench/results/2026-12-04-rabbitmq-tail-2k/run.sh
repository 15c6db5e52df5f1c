#!/usr/bin/env bash
# RabbitMQ's tail at 2,000 msg/s with and without a CPU-bound neighbour: keyed-2k-512 (512 B, keyed, at least once,
# 5 s warm-up, 20 s measured), native, sdk (default envelope) and sdk-none in one bench run, three repetitions,
# 30 s JVM warm-up passes, brokers in child JVMs. The neighbour is a shell busy loop on one of the two cores, for the
# whole run. Run from anywhere:
#   OUT=/tmp/tail BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-04-rabbitmq-tail-2k/run.sh
# MODES (default native,sdk,sdk-none) changes the modes of both series.
set -euo pipefail
cd "$(dirname "$0")/../../.."
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar} out=${OUT:-/tmp/tail} modes=${MODES:-native,sdk,sdk-none}
series() { # NAME NEIGHBOUR(0|1)
    local dir=$out/$1 pid=
    if [ "$2" = 1 ]; then
        (exec timeout 3600 sh -c 'while :; do :; done') &
        pid=$!
    fi
    java -Xmx2g -Dtls.server.mode=disabled -jar "$jar" run bench/workloads/keyed/keyed-2k-512.yaml --brokers rabbitmq \
        --brokers-in-child --native-envelope --none-envelope --jvm-warmup 30 --modes "$modes" --repeat 3 \
        --no-progress --out "$dir"
    if [ -n "$pid" ]; then kill "$pid"; fi
    python3 bench/scripts/by-mode-summary.py "$dir/results.csv" > "$dir/summary.txt"
    echo "done $1 $(date +%T)"
}
series quiet 0
series neighbour 1
