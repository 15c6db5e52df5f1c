#!/bin/bash
# Issue 35, Kafka 512 B: native, native-ce, sdk-none, sdk; one JVM per run, each profiled 30 s in its measured window
# (async-profiler, cpu, 2 ms), three repetitions, the order reversed on even ones; tmpfs; timers off (p512.yaml).
cd /work/main
export ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so BENCH_JAR=/tmp/w/s32/bench.jar
for rep in 1 2 3; do
  if [ $((rep % 2)) = 1 ]; then order="native native-ce sdk-none sdk"; else order="sdk sdk-none native-ce native"; fi
  for m in $order; do
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== rep $rep $m $(date +%T)"
    PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh /tmp/w/s32/series/$rep-$m $m /tmp/w/s32/p512.yaml \
      --brokers kafka --brokers-in-child --native-envelope --none-envelope
    rm -rf $shm
  done
done
echo done $(date +%T)
