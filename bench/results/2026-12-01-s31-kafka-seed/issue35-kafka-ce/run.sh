#!/bin/bash
# Issue 35's Kafka default-envelope rows, A/B of the consume and header changes: per repetition one JVM each of
# native-ce (old jar), sdk on main 5fb8bb8 (old) and sdk with the change (new), the order rotating; tmpfs; timers off.
cd /work/main
for rep in 1 2 3; do
  case $rep in 1) order="native old new" ;; 2) order="old new native" ;; 3) order="new native old" ;; esac
  for c in $order; do
    case $c in native) jar=/tmp/w/s31/bench.jar mode=native-ce ;; old) jar=/tmp/w/s31/bench.jar mode=sdk ;;
      new) jar=/tmp/w/s31/bench-new.jar mode=sdk ;; esac
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== rep $rep $c $(date +%T)"
    BENCH_JAR=$jar JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh \
      /tmp/w/s31/ce/out/$rep-$c 1 $mode /tmp/w/s31/ce/sizes-off.yaml --brokers kafka --brokers-in-child \
      --native-envelope --time-scale 0.6 --jvm-warmup 20 > /tmp/w/s31/ce/out-$rep-$c.log 2>&1
    echo "rc $? $(grep -h 'msg/s' /tmp/w/s31/ce/out-$rep-$c.log | cut -c1-100)"
    rm -rf $shm
  done
done
echo done
