#!/usr/bin/env bash
# How fast a new consumer group drains 200,000 messages of 1 KiB on RabbitMQ and RocketMQ: Switchboard's
# single-message and batch listeners (batch 100, max in flight 1000). One warm-up pass of each mode (printed, not
# counted), then three repetitions with the modes' order alternating.
set -euo pipefail
cd "$(dirname "$0")/../../.."
mvn -B -q package -pl bench -am -DskipTests
java -Dbench.brokers=rabbitmq,rocketmq -Dbench.modes=sdk-single,sdk-batch \
    -cp bench/target/switchboard-bench.jar io.switchboard.bench.batch.BatchListenerBench
