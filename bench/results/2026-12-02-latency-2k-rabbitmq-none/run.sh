#!/usr/bin/env bash
# RabbitMQ at 2,000 msg/s, the none envelope: is the SDK's gap at p50 what its `none` messages carry (a message-id, a
# timestamp, the key as a header, mandatory) or its code? keyed-2k-512, one JVM a run, a 30 s JVM warm-up (repeated while the JIT is busy); both
# series, in the order they ran:
#   wire/: native (plain), native-as-none (the plain client writing what sdk-none writes:
#          -Dbench.rabbitmq.native-as-none=true) and sdk-none, three repetitions with the order rotating;
#   abba/: native and sdk-none in the order A B B A A B B A (A = native), so that a linear drift through the series
#          (wire/'s p50 rose from each mode's first repetition to its third) weighs on both modes alike.
set -euo pipefail
cd "$(dirname "$0")/../../.."
jar=${BENCH_JAR:-bench/target/switchboard-bench.jar} out=${OUT:-/tmp/rabbit-none}
wl=bench/workloads/keyed/keyed-2k-512.yaml
run() { # SERIES RUN LABEL [JVM options]: mode native for native-as-none, else the label
    local series=$1 name=$2 label=$3 mode=$3
    shift 3
    [ "$label" = native-as-none ] && mode=native
    local dir="$out/$series/$name-$label" merged="$out/$series/results.csv"
    mkdir -p "$out/$series"
    echo "== $series $name, $label -> $dir ($(date +%T))"
    java -Xmx2g -Dtls.server.mode=disabled "$@" -jar "$jar" run "$wl" --brokers rabbitmq --none-envelope \
        --jvm-warmup 30 --modes "$mode" --repeat 1 --no-progress --out "$dir"
    [ -f "$merged" ] || head -1 "$dir/results.csv" > "$merged"
    tail -n +2 "$dir/results.csv" | sed "s/,rabbitmq,$mode,/,rabbitmq,$label,/" >> "$merged"
    rm -f "$dir/report.html"
}
rm -f "$out/wire/results.csv" "$out/abba/results.csv"
for r in 1 2 3; do
    case $r in
        1) order="native native-as-none sdk-none" ;;
        2) order="sdk-none native-as-none native" ;;
        3) order="native-as-none sdk-none native" ;;
    esac
    for label in $order; do
        if [ "$label" = native-as-none ]; then
            run wire "r$r" "$label" -Dbench.rabbitmq.native-as-none=true
        else
            run wire "r$r" "$label"
        fi
    done
done
i=0
for label in native sdk-none sdk-none native native sdk-none sdk-none native; do
    i=$((i + 1))
    run abba "$i" "$label"
done
for series in wire abba; do
    python3 bench/scripts/by-mode-summary.py "$out/$series/results.csv" | tee "$out/$series/summary.txt"
done
