#!/bin/bash
# After the series (series/run.sh): kafka-clients' batching and fetch figures at 64 topics (native, sdk-off), then issue 35's Kafka rows
# (keyed-max-rate-sizes, 1 KiB and 512 B) one JVM per mode with timers off, all with the bench's temporary
# directories on tmpfs. Session 28.
cd /work/main
export BENCH_JAR=/tmp/w/s28/bench.jar
for m in native sdk-off; do
  case $m in native) mode=native; wl=/tmp/w/s28/w64.yaml;; sdk-off) mode=sdk-none; wl=/tmp/w/s28/w64-off.yaml;; esac
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  PROBE=kafka-metrics PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh /tmp/w/s28/km64/$m $mode $wl \
    --brokers kafka --brokers-in-child --none-envelope
  rm -rf $shm
done
shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh /tmp/w/s28/i35 3 native,sdk-none \
  /tmp/w/s28/sizes-off.yaml --brokers kafka --brokers-in-child --none-envelope --time-scale 0.6 --jvm-warmup 20
rm -rf $shm
python3 bench/scripts/by-mode-summary.py /tmp/w/s28/i35/results.csv > /tmp/w/s28/i35/summary.txt
echo done
