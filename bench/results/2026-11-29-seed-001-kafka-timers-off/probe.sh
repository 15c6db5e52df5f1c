#!/bin/bash
# kafka-clients' batching figures at 16 topics, native and sdk-none with timers off; then CPU profiles of both
cd /work/main
export BENCH_JAR=/tmp/w/s27/bench2.jar
PROBE=kafka-metrics bench/scripts/profile-window.sh /tmp/w/s27/km-native native /tmp/w/s27/p16.yaml --brokers kafka --brokers-in-child --none-envelope
PROBE=kafka-metrics bench/scripts/profile-window.sh /tmp/w/s27/km-sdk-off sdk-none /tmp/w/s27/p16-off.yaml --brokers kafka --brokers-in-child --none-envelope
export ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so
bench/scripts/profile-window.sh /tmp/w/s27/pr-sdk-off sdk-none /tmp/w/s27/p16-off.yaml --brokers kafka --brokers-in-child --none-envelope
bench/scripts/profile-window.sh /tmp/w/s27/pr-native native /tmp/w/s27/p16.yaml --brokers kafka --brokers-in-child --none-envelope
echo done > /tmp/w/s27/probe-done
