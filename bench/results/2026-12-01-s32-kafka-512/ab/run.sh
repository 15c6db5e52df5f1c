#!/bin/bash
# Issue 35's Kafka default-envelope row at 512 B, A/B: per repetition one JVM each of native-ce, sdk on 261c172 (old)
# and sdk with the lazy traceparent (new), the order rotating; tmpfs; timers off; the s31 method (by-mode.sh, 0.6 scale).
cd /work/main
for rep in 1 2 3 4; do
  case $rep in 1) order="native old new" ;; 2) order="old new native" ;; 3) order="new native old" ;; 4) order="native new old" ;; esac
  for c in $order; do
    case $c in native) jar=/tmp/w/s32/bench.jar mode=native-ce ;; old) jar=/tmp/w/s32/bench.jar mode=sdk ;;
      new) jar=/tmp/w/s32/bench-new.jar mode=sdk ;; esac
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== rep $rep $c $(date +%T)"
    BENCH_JAR=$jar JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh \
      /tmp/w/s32/ab/out/$rep-$c 1 $mode /tmp/w/s32/ab/s512.yaml --brokers kafka --brokers-in-child \
      --native-envelope --time-scale 0.6 --jvm-warmup 20 > /tmp/w/s32/ab/out-$rep-$c.log 2>&1
    echo "rc $? $(grep -h 'msg/s' /tmp/w/s32/ab/out-$rep-$c.log | cut -c1-100)"
    rm -rf $shm
  done
done
echo done $(date +%T)
