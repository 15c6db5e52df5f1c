#!/bin/bash
# Session 36's series (issues 35 and 38): session 35's probe pairs (../2026-12-02-s35-kafka-probe/run.sh: Kafka, native
# against sdk-none, kafka-clients' and the broker's request figures and each thread's CPU over 20 s of a 60 s window,
# pairs in alternating order, Kafka in a child JVM, tmpfs), more of them:
#   OUT=/tmp/w/s36/k1k POINT=k1k REPS="1 2 3 4 5 6" run.sh, then REPS="7 8" into the same OUT once
#     KafkaClientMetrics.java read kafka-clients' totals (issue 35's keyed 1 KiB row);
#   POINT=64 REPS="1 2 3 4" run.sh (seed 001 at 64 topics).
# Compare with
#   python3 bench/scripts/probe-pairs.py OUT 64 native sdk-none      (pairs-64.txt and pairs-k1k.txt here)
#   python3 bench/scripts/probe-compare.py OUT/64-1-native OUT/64-1-sdk-none ...   (compare-*.txt here)
export OUT=${OUT:-/tmp/w/s36/probe} BENCH_JAR=${BENCH_JAR:-/tmp/w/s36/bench.jar} REPS=${REPS:-1 2 3 4 5 6}
exec "$(cd "$(dirname "$0")" && pwd)/../2026-12-02-s35-kafka-probe/run.sh"
