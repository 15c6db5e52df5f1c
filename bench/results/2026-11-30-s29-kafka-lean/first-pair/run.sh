#!/bin/bash
# Kafka seed 001 at 8-128 topics, 60 s windows, the bench's temporary directories (and so the Kafka child's log
# directory) on tmpfs (/dev/shm): no page-cache writeback. One JVM per run; native and sdk-off (sdk-none with
# switchboard.metrics.timers=off) alternate which goes first at each point. Session 29 (after the lean-objects change).
#   run.sh FIRST_RUN_NUMBER FIRST_REP LAST_REP TOPICS...
# As run: run.sh 1 1 3 8 16 32 64 128 (stopped after run 10 to profile 64 topics), then run.sh 11 2 3 8 16 32 64 128
cd /tmp/w/s29
jar=/tmp/w/s29/bench.jar
out=/tmp/w/s29/out
mkdir -p $out
r=$(($1 - 1)); first=$2; last=$3
shift 3
for rep in $(seq $first $last); do
  for t in "$@"; do
    if (( (rep + t / 8) % 2 == 1 )); then order="native sdk-off"; else order="sdk-off native"; fi
    for c in $order; do
      r=$((r + 1))
      case $c in
        native) mode=native; wl=w$t.yaml;;
        sdk-off) mode=sdk-none; wl=w$t-off.yaml;;
      esac
      shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
      echo "== $r $c $t topics $(date +%T)"
      java -Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm -jar $jar run $wl --brokers kafka --brokers-in-child \
        --none-envelope --jvm-warmup 20 --modes $mode --repeat 1 --no-progress --out $out/$r-$c-$t > $out/$r-$c-$t.log 2>&1
      echo "rc $? shm left $(du -sh $shm | cut -f1)"
      rm -rf $shm
    done
  done
done
