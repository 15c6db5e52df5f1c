#!/usr/bin/env bash
# RabbitMQ's tail at 2,000 msg/s with and without a CPU-bound neighbour, as ../2026-12-04-rabbitmq-tail-2k/run.sh
# (keyed-2k-512, three repetitions a series, 30 s JVM warm-up passes, brokers in child JVMs) with the plain client
# writing the default envelope's headers as a fourth mode. Run from anywhere:
#   OUT=/tmp/tail BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-05-rabbitmq-tail-2k-sdk-path/run.sh
set -euo pipefail
MODES=native,native-ce,sdk,sdk-none exec "$(dirname "$0")/../2026-12-04-rabbitmq-tail-2k/run.sh"
