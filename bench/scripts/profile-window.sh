#!/usr/bin/env bash
# Runs one bench mode in a JVM of its own and profiles that JVM's CPU for 30 s inside the measured window, with
# async-profiler (ASYNC_PROFILER_LIB: libasyncProfiler.so, e.g. unzipped from Maven Central's
# tools.profiler:async-profiler:4.1:jar:linux-x64). It starts PROBE_DELAY (35) s after the bench's "Measuring:" line
# (its JVM warm-up is over; the point's set-up and warm-up follow), so give the point a warm-up of 20 s and 60 s measured.
#
#   ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so bench/scripts/profile-window.sh OUT MODE WORKLOAD.yaml \
#       --brokers rocketmq --brokers-in-child --none-envelope --native-batch
#
# OUT/collapsed.txt holds the stacks (one line per stack, thread first), OUT/out the run's results;
# bench/scripts/profile-threads.py compares two such profiles per message.
# PROBE=kafka-metrics instead reads every kafka-clients producer's and consumer's batching figures over JMX at the
# start and 20 s later (bench/scripts/KafkaClientMetrics.java) into OUT/kafka-metrics-{1,2}.txt, and a broker child
# JVM's request counts into OUT/kafka-metrics-{1,2}-<pid>.txt; no profiler needed.
# THREADS=1 with it also writes each thread's CPU and wake-ups a second over those 20 s, of the bench's JVM and of its
# brokers' child JVMs (bench/scripts/thread-switches.py), into OUT/threads-<pid>.txt.
set -euo pipefail
probe=${PROBE:-profile}
if [ $# -lt 3 ] || { [ "$probe" = profile ] && [ -z "${ASYNC_PROFILER_LIB:-}" ]; }; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
out=$1 mode=$2 workload=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar}
interval=${PROFILE_INTERVAL:-2ms}
mkdir -p "$out"
if [ "$probe" = kafka-metrics ]; then # compiled once here, not in the measured window
    javac -d "$out/probe-classes" "$here/KafkaClientMetrics.java"
fi
java -Xmx2g ${PROFILE_JAVA_OPTS:-} -Dtls.server.mode=disabled -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -jar "$jar" run "$workload" \
    "$@" --modes "$mode" --repeat 1 --jvm-warmup 20 --no-progress --out "$out/out" > "$out/log" 2>&1 &
pid=$!
started=false
for ((second = 0; second < 1800; second++)); do
    kill -0 "$pid" 2> /dev/null || break
    if grep -q "^Measuring: " "$out/log"; then # the bench's line once its JVM warm-up is over
        started=true
        break
    fi
    sleep 1
done
if ! $started; then
    echo "the measured run did not start within 30 min (see $out/log)" >&2
    kill "$pid" 2> /dev/null || true
    exit 1
fi
sleep "${PROBE_DELAY:-35}"
if [ "$probe" = kafka-metrics ]; then
    java -cp "$out/probe-classes" KafkaClientMetrics "$pid" > "$out/kafka-metrics-1.txt"
    children=$(pgrep -P "$pid" java || true)
    for p in $children; do java -cp "$out/probe-classes" KafkaClientMetrics "$p" > "$out/kafka-metrics-1-$p.txt" 2>&1 || true; done
    samplers=()
    if [ "${THREADS:-0}" = 1 ]; then
        for p in "$pid" $children; do
            python3 "$here/thread-switches.py" "$p" 20 0 "pid $p ($(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-200))" \
                > "$out/threads-$p.txt" 2>&1 &
            samplers+=($!)
        done
    fi
    sleep 20
    java -cp "$out/probe-classes" KafkaClientMetrics "$pid" > "$out/kafka-metrics-2.txt"
    for p in $children; do java -cp "$out/probe-classes" KafkaClientMetrics "$p" > "$out/kafka-metrics-2-$p.txt" 2>&1 || true; done
    for s in "${samplers[@]}"; do wait "$s" || true; done
else
    echo "profiling pid $pid from $(date +%T) for 30 s"
    java "$here/AttachAgent.java" "$pid" "$ASYNC_PROFILER_LIB" "start,event=cpu,interval=$interval,threads"
    sleep 30
    java "$here/AttachAgent.java" "$pid" "$ASYNC_PROFILER_LIB" "stop,threads,file=$out/collapsed.txt,collapsed"
fi
wait "$pid"
rm -rf "$out/probe-classes"
grep "msg/s" "$out/log" | head -1
