#!/usr/bin/env bash
# A/B/C of seed 001 on Kafka, one JVM per run: per repetition and topic count, one run each of native (NEW_JAR),
# sdk-none with OLD_JAR ("old") and sdk-none with NEW_JAR ("new"), the order rotating between repetitions; the
# bench's temporary directories (and so the Kafka child's log) on tmpfs. WORKLOADS holds w<topics>.yaml for native and
# w<topics>-off.yaml for the SDK (bench/results/2026-12-02-seed-001-kafka/workloads/ has them). Without OLD_JAR, an A/B of
# native and new, native first on odd repetitions and second on even ones.
#
#   [OLD_JAR=old.jar] NEW_JAR=new.jar WORKLOADS=dir bench/scripts/seed-ab.sh OUT FIRST_REP LAST_REP TOPICS...
#
# OUT/ab-<topics>/<rep>-<native|old|new>-<topics>/ holds each run's results; bench/scripts/seed-ab-summary.py sums them.
set -uo pipefail
if [ $# -lt 4 ] || [ -z "${NEW_JAR:-}" ] || [ -z "${WORKLOADS:-}" ]; then
    sed -n '2,10p' "$0" >&2
    exit 2
fi
out=$1 first=$2 last=$3
shift 3
for rep in $(seq "$first" "$last"); do
    for t in "$@"; do
        dir=$out/ab-$t
        mkdir -p "$dir"
        if [ -z "${OLD_JAR:-}" ]; then
            case $((rep % 2)) in 1) order="native new" ;; 0) order="new native" ;; esac
        else
            case $((rep % 3)) in 1) order="native old new" ;; 2) order="old new native" ;; 0) order="new native old" ;; esac
        fi
        for c in $order; do
            case $c in
                native) mode=native wl=$WORKLOADS/w$t.yaml jar=$NEW_JAR ;;
                old) mode=sdk-none wl=$WORKLOADS/w$t-off.yaml jar=$OLD_JAR ;;
                new) mode=sdk-none wl=$WORKLOADS/w$t-off.yaml jar=$NEW_JAR ;;
            esac
            shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
            echo "== rep $rep $c $t topics $(date +%T)"
            java -Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir="$shm" -jar "$jar" run "$wl" --brokers kafka \
                --brokers-in-child --none-envelope --jvm-warmup 20 --modes $mode --repeat 1 --no-progress \
                --out "$dir/$rep-$c-$t" > "$dir/$rep-$c-$t.log" 2>&1
            echo "rc $? $(grep -h 'msg/s' "$dir/$rep-$c-$t.log" | head -1 | cut -c1-90)"
            rm -rf "$shm"
        done
    done
done
