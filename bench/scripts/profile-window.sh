#!/usr/bin/env bash
# Runs one bench mode in a JVM of its own and profiles that JVM's CPU for 30 s inside the measured window, with
# async-profiler (ASYNC_PROFILER_LIB: libasyncProfiler.so, e.g. unzipped from Maven Central's
# tools.profiler:async-profiler:4.1:jar:linux-x64). The window is found as the log's first 25 quiet seconds after a
# "JIT:" line (the JVM warm-up's last round), so give the workload point a warm-up of 20 s or more and 60 s measured.
#
#   ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so bench/scripts/profile-window.sh OUT MODE WORKLOAD.yaml \
#       --brokers rocketmq --brokers-in-child --none-envelope --native-batch
#
# OUT/collapsed.txt holds the stacks (one line per stack, thread first), OUT/out the run's results;
# bench/scripts/profile-threads.py compares two such profiles per message.
set -euo pipefail
if [ $# -lt 3 ] || [ -z "${ASYNC_PROFILER_LIB:-}" ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
out=$1 mode=$2 workload=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar}
interval=${PROFILE_INTERVAL:-2ms}
mkdir -p "$out"
java -Xmx2g -Dtls.server.mode=disabled -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -jar "$jar" run "$workload" \
    "$@" --modes "$mode" --repeat 1 --jvm-warmup 20 --no-progress --out "$out/out" > "$out/log" 2>&1 &
pid=$!
last="" quiet=0 started=false
for ((second = 0; second < 1800; second++)); do
    kill -0 "$pid" 2> /dev/null || break
    sum=$(md5sum < "$out/log")
    if [ "$sum" != "$last" ]; then last=$sum quiet=0; else quiet=$((quiet + 1)); fi
    if grep -q "JIT: compiled" "$out/log" && ((quiet >= 25)); then
        started=true
        break
    fi
    sleep 1
done
if ! $started; then
    echo "no quiet measured window found in 30 min (see $out/log)" >&2
    kill "$pid" 2> /dev/null || true
    exit 1
fi
echo "profiling pid $pid from $(date +%T) for 30 s"
java "$here/AttachAgent.java" "$pid" "$ASYNC_PROFILER_LIB" "start,event=cpu,interval=$interval,threads"
sleep 30
java "$here/AttachAgent.java" "$pid" "$ASYNC_PROFILER_LIB" "stop,threads,file=$out/collapsed.txt,collapsed"
wait "$pid"
grep "msg/s" "$out/log" | head -1
