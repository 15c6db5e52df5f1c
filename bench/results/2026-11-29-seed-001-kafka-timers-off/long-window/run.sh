#!/bin/bash
# Kafka seed 001 at 8 and 16 topics, 120 s windows: native, sdk-none (lean timers, the default) and sdk-none with
# switchboard.metrics.timers=off; one JVM per configuration, the order reversed in the second repetition; session 27
cd /work/main
jar=/tmp/w/s27/bench.jar
out=/tmp/w/s27/out
mkdir -p $out
for r in 1 2; do
  if [ $r = 1 ]; then order="native sdk-lean sdk-off"; else order="sdk-off sdk-lean native"; fi
  for c in $order; do
    case $c in
      native) mode=native; wl=/tmp/w/s27/workload.yaml;;
      sdk-lean) mode=sdk-none; wl=/tmp/w/s27/workload.yaml;;
      sdk-off) mode=sdk-none; wl=/tmp/w/s27/workload-off.yaml;;
    esac
    echo "== $r $c $(date +%T)"
    java -Xmx2g -Dtls.server.mode=disabled -jar $jar run $wl --brokers kafka --brokers-in-child --none-envelope \
      --jvm-warmup 20 --modes $mode --repeat 1 --no-progress --out $out/r$r-$c > $out/r$r-$c.log 2>&1
    echo "rc $?"
  done
done
echo done > /tmp/w/s27/done
