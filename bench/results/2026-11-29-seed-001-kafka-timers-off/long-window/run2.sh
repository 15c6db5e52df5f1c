#!/bin/bash
# Repetitions 3 and 4 of run.sh, bench jar with the Kafka header change (bench2.jar); session 27
cd /work/main
jar=/tmp/w/s27/bench2.jar
out=/tmp/w/s27/out
for r in 3 4; do
  if [ $r = 3 ]; then order="sdk-lean native sdk-off"; else order="sdk-off native"; fi
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
echo done > /tmp/w/s27/done2
