#!/usr/bin/env bash
# How fast a new consumer group drains a backlog of 200,000 messages of 1 KiB: Switchboard's single-message and batch
# listeners (batch 100, max in flight 1000) on each broker, and Spring Kafka's record and batch listeners on Kafka.
# One warm-up pass of every mode (printed, not counted), then three repetitions with the modes' order alternating.
set -euo pipefail
cd "$(dirname "$0")/../../.."
mvn -B -q package -pl bench -am -DskipTests
java -cp bench/target/switchboard-bench.jar io.switchboard.bench.batch.BatchListenerBench
