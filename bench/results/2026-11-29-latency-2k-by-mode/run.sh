#!/usr/bin/env bash
# issue 35's latency row one JVM per mode (session 24); run from the repository root
set -euo pipefail
W=bench/workloads/keyed/keyed-2k-512.yaml
bench/scripts/by-mode.sh /tmp/lat2k/rabbitmq 3 native,sdk-none,native-ce,sdk $W --brokers rabbitmq --none-envelope --native-envelope --jvm-warmup 10
bench/scripts/by-mode.sh /tmp/lat2k/kafka 3 native,sdk-none,native-ce,sdk $W --brokers kafka --brokers-in-child --none-envelope --native-envelope --jvm-warmup 10
bench/scripts/by-mode.sh /tmp/lat2k/rocketmq 3 native,sdk-none,native-ce,sdk $W --brokers rocketmq --brokers-in-child --none-envelope --native-envelope --jvm-warmup 10
