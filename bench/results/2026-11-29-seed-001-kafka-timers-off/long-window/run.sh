#!/bin/bash
# Kafka seed 001 at 8 and 16 topics, 120 s windows: native, sdk-none with the default lean timers (sdk-lean) and
# sdk-none with switchboard.metrics.timers=off (sdk-off), one JVM per configuration; session 27.
#   run.sh JAR REPETITION CONFIG...      (the configurations in the order they run)
# As run: run.sh bench.jar 1 native sdk-lean sdk-off; run.sh bench.jar 2 sdk-off sdk-lean native (bench jar of
# 3f1ad25 without the Kafka header change); run.sh bench2.jar 3 sdk-lean native sdk-off; run.sh bench2.jar 4 sdk-off
# native (bench jar of 3f1ad25).
cd /work/main
jar=$1 r=$2
shift 2
out=/tmp/w/s27/out
mkdir -p $out
for c in "$@"; do
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
