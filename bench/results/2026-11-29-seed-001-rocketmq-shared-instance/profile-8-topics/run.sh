#!/usr/bin/env bash
cd /work/main
export ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so
for m in native sdk-none; do
  bench/scripts/profile-window.sh /tmp/w/prof8/$m $m /tmp/w/prof8/workload.yaml --brokers rocketmq --brokers-in-child --none-envelope
done
echo ALLDONE
