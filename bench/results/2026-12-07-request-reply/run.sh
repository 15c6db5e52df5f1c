#!/usr/bin/env bash
# Request/reply at 2,000 requests/s for 60 s (10 s warm-up), 4 responders, 256 B payloads: Switchboard's Requester and
# replying subscriptions against each broker's own request/reply, on the same broker. Kafka and RocketMQ run in child
# JVMs; RabbitMQ is the local server.
set -euo pipefail
cd "$(dirname "$0")/../../.."
mvn -B -q package -pl bench -am -DskipTests
java -cp bench/target/switchboard-bench.jar io.switchboard.bench.reply.RequestReplyBench
# the SDK's requests at-most-once (no publisher confirms on the request, as the native rigs send theirs)
java -Dbench.brokers=rabbitmq,rocketmq -Dbench.delivery=at-most-once -cp bench/target/switchboard-bench.jar \
    io.switchboard.bench.reply.RequestReplyBench
# the pending-reply state over 10 minutes with 5 % of requests unanswered (they time out after 5 s)
java -Dbench.brokers=kafka -Dbench.modes=sdk -Dbench.drop-percent=5 -Dbench.seconds=600 \
    -Dbench.heap-probe-seconds=30 -cp bench/target/switchboard-bench.jar io.switchboard.bench.reply.RequestReplyBench
