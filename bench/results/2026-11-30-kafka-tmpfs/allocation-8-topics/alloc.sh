#!/bin/bash
# Allocation per message at 8 topics, native and sdk-off, JFR default settings (ObjectAllocationSample), tmpfs. Session 28.
cd /tmp/w/s28
for c in native sdk-off; do
  case $c in native) mode=native; wl=w8.yaml;; sdk-off) mode=sdk-none; wl=w8-off.yaml;; esac
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  java -Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm -jar bench.jar run $wl --brokers kafka --brokers-in-child \
    --none-envelope --jvm-warmup 20 --modes $mode --repeat 1 --no-progress --jfr alloc/$c --out alloc/$c/out > alloc/$c.log 2>&1
  echo "$c rc $?"
  rm -rf $shm
done
