#!/bin/bash
# Session 39 (issue 35): the Spring Kafka pairs of ../2026-12-02-s38-kafka-probe/run-spring.sh with every consumer (the SDK's
# and the Spring peer's) at fetch.min.bytes 64 KiB and fetch.max.wait.ms 5 (k1k-probe-fetch.yaml): with fetches equal, does the
# Spring row's gap (the SDK's extra fetches a message) go?
#   OUT=/tmp/w/s39/fetch REPS="1 2" BENCH_JAR=/tmp/w/s39/bench.jar run-fetch.sh
#   python3 bench/scripts/probe-pairs.py OUT k1k spring sdk-none
cd /work/main
OUT=${OUT:-/tmp/w/s39/fetch} BENCH_JAR=${BENCH_JAR:-/tmp/w/s39/bench.jar} WL=bench/results/2026-12-03-s39-spring/k1k-probe-fetch.yaml \
    exec bench/results/2026-12-02-s38-kafka-probe/run-spring.sh
