#!/bin/bash
cd /work/main
for m in sdk-none native; do
BENCH_JAR=/tmp/w/kp/bench.jar ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so bench/scripts/profile-window.sh /tmp/w/kp/$m $m /tmp/w/kp/workload.yaml --brokers kafka --brokers-in-child --none-envelope
done
echo done > /tmp/w/kp/done
