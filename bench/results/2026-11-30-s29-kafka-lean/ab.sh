#!/bin/bash
# Session 29: at TOPICS, per repetition one run each of native, sdk-off on main c1299f3 (bench-old.jar) and sdk-off
# with the lean per-message objects (bench.jar), order rotating; tmpfs; 60 s windows after 20 s warm-up.
#   ab.sh FIRST_RUN FIRST_REP LAST_REP TOPICS
cd /tmp/w/s29
out=/tmp/w/s29/ab
mkdir -p $out
r=$(($1 - 1)); first=$2; last=$3; t=$4
for rep in $(seq $first $last); do
  case $((rep % 3)) in 1) order="native old new";; 2) order="old new native";; 0) order="new native old";; esac
  for c in $order; do
    r=$((r + 1))
    case $c in
      native) mode=native; wl=w$t.yaml; jar=bench.jar;;
      old) mode=sdk-none; wl=w$t-off.yaml; jar=bench-old.jar;;
      new) mode=sdk-none; wl=w$t-off.yaml; jar=bench.jar;;
    esac
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== $r $c $t topics $(date +%T)"
    java -Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm -jar $jar run $wl --brokers kafka --brokers-in-child \
      --none-envelope --jvm-warmup 20 --modes $mode --repeat 1 --no-progress --out $out/$r-$c-$t > $out/$r-$c-$t.log 2>&1
    echo "rc $? shm left $(du -sh $shm | cut -f1)"
    rm -rf $shm
  done
done
