#!/usr/bin/env bash
# Runs each mode of a bench run in a JVM of its own: in one JVM, each mode's calls into the shared client library
# (kafka-clients, amqp-client, rocketmq-client) reshape the JIT's compiled code for the modes after it, and the JIT
# compiles in whichever mode's measured window comes first (bench/README, "One JVM per mode").
#
#   bench/scripts/by-mode.sh OUT REPEAT MODES WORKLOAD.yaml [more bench run options]
#   bench/scripts/by-mode.sh /tmp/seed1 3 native,sdk-none bench/workloads/seeds/seed-001-many-topics.yaml \
#       --brokers kafka --brokers-in-child --none-envelope
#
# Repetition r runs the modes in the given order when r is odd and reversed when it is even, each with
# `run ... --modes MODE --repeat 1 --out OUT/rR-MODE`; OUT/results.csv holds every run's row, repetition by repetition.
# JAVA_OPTS (default -Xmx2g -Dtls.server.mode=disabled) and BENCH_JAR (default bench/target/switchboard-bench.jar).
set -euo pipefail
if [ $# -lt 4 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
out=$1 repeat=$2 modes=$3
shift 3
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar}
read -r -a opts <<< "${JAVA_OPTS:--Xmx2g -Dtls.server.mode=disabled}"
IFS=, read -r -a order <<< "$modes"
mkdir -p "$out"
merged="$out/results.csv"
rm -f "$merged"
for ((r = 1; r <= repeat; r++)); do
    list=("${order[@]}")
    if ((r % 2 == 0)); then
        list=()
        for ((i = ${#order[@]} - 1; i >= 0; i--)); do list+=("${order[i]}"); done
    fi
    for mode in "${list[@]}"; do
        dir="$out/r$r-$mode"
        echo "== repetition $r, mode $mode -> $dir"
        java "${opts[@]}" -jar "$jar" run "$@" --modes "$mode" --repeat 1 --no-progress --out "$dir"
        if [ ! -f "$merged" ]; then
            head -1 "$dir/results.csv" > "$merged"
        fi
        tail -n +2 "$dir/results.csv" >> "$merged"
    done
done
echo "Wrote $merged"
