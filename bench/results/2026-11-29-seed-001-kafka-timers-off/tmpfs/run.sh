#!/bin/bash
# Kafka seed 001, 60 s windows, with the bench's temporary directories (and so the Kafka child's log directory) on
# tmpfs (/dev/shm): no page-cache writeback. One JVM per run; bench jar of 3f1ad25; session 27.
#   run.sh FIRST_RUN_NUMBER CONFIG...
# As run: run.sh 1 native sdk-off sdk-off native native sdk-off; then run.sh 7 sdk-lean sdk-lean native16 off16
cd /work/main
jar=/tmp/w/s27/bench2.jar
base=/tmp/w/s27/tmpfs
out=$base/out
mkdir -p $out
r=$(($1 - 1))
shift
for c in "$@"; do
  r=$((r + 1))
  case $c in
    native) mode=native; wl=$base/workload.yaml;;
    sdk-off) mode=sdk-none; wl=$base/workload-off.yaml;;
    sdk-lean) mode=sdk-none; wl=$base/workload.yaml;;
    native16) mode=native; wl=$base/workload16.yaml;;
    off16) mode=sdk-none; wl=$base/workload16-off.yaml;;
  esac
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  echo "== $r $c $(date +%T)"
  java -Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm -jar $jar run $wl --brokers kafka --brokers-in-child \
    --none-envelope --jvm-warmup 20 --modes $mode --repeat 1 --no-progress --out $out/$r-$c > $out/$r-$c.log 2>&1
  echo "rc $? shm left $(du -sh $shm | cut -f1)"
  rm -rf $shm
done
