#!/usr/bin/env bash
# Makes sure the local PostgreSQL listens on 127.0.0.1:5432 with a database `test` (trust auth):
# JdbcIdempotencyStoreTest and the exactly-once crash tests of the RabbitMQ and RocketMQ adapters
# use it. Starts the cluster with `pg_ctlcluster --skip-systemctl-redirect <version> main start` when
# the port is closed and waits for the port; creates database `test` if it is missing; exits non-zero
# with a clear message otherwise (the tests would then fail, never skip).
set -u
. "$(dirname "$0")/service-up.sh"
tag=postgres-up
host=${POSTGRES_UP_HOST:-127.0.0.1}
port=${POSTGRES_UP_PORT:-5432}
wait_seconds=${POSTGRES_UP_WAIT_SECONDS:-60}

ensure_test_database() {
  if ! command -v psql >/dev/null 2>&1; then
    return 0 # the tests say so if it is missing
  fi
  if psql -h "$host" -p "$port" -U postgres -d test -Atqc 'SELECT 1' >/dev/null 2>&1; then
    return 0
  fi
  echo "$tag: creating database test"
  if ! createdb -h "$host" -p "$port" -U postgres test; then
    echo "$tag: PostgreSQL listens on $host:$port but database 'test' is missing and could not be created;" >&2
    echo "$tag: create it as the postgres user ('createdb test') and allow trust authentication from 127.0.0.1 in pg_hba.conf" >&2
    exit 1
  fi
}

if port_open "$host" "$port"; then
  echo "$tag: PostgreSQL already listens on $host:$port"
  ensure_test_database
  exit 0
fi
version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$version" ]; then
  echo "$tag: PostgreSQL is not listening on $host:$port and no cluster is installed (pg_ctlcluster, /etc/postgresql);" >&2
  echo "$tag: install it with: apt-get install -y postgresql" >&2
  exit 1
fi
log=/var/log/postgresql/postgresql-$version-main.log
echo "$tag: starting PostgreSQL: pg_ctlcluster --skip-systemctl-redirect $version main start"
if ! pg_ctlcluster --skip-systemctl-redirect "$version" main start; then
  echo "$tag: 'pg_ctlcluster --skip-systemctl-redirect $version main start' failed; see $log for the reason" >&2
  exit 1
fi
await_port "$host" "$port" "$wait_seconds" "PostgreSQL $version (after pg_ctlcluster start)" \
  "see $log (is listen_addresses or port changed in /etc/postgresql/$version/main/postgresql.conf?)" || exit 1
ensure_test_database
