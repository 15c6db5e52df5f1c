#!/usr/bin/env bash
# Makes sure the local MariaDB listens on 127.0.0.1:3306 with a database `test` that root reaches from 127.0.0.1
# without a password: the outbox's tests on MariaDB (OutboxMariaDbTest) use it. Starts the server with
# `mysqld_safe --user=mysql` when the port is closed and waits for the port; exits non-zero with a clear message
# otherwise (the tests would then fail, never skip).
set -u
. "$(dirname "$0")/service-up.sh"
tag=mariadb-up
host=${MARIADB_UP_HOST:-127.0.0.1}
port=${MARIADB_UP_PORT:-3306}
wait_seconds=${MARIADB_UP_WAIT_SECONDS:-60}

ensure_test_database() {
  if ! command -v mariadb >/dev/null 2>&1; then
    return 0 # the tests say so if it is missing
  fi
  if mariadb -h "$host" -P "$port" -u root -e 'CREATE DATABASE IF NOT EXISTS test' >/dev/null 2>&1; then
    return 0
  fi
  echo "$tag: MariaDB listens on $host:$port but root cannot log in from $host without a password to make database 'test';" >&2
  echo "$tag: as an administrator run: CREATE DATABASE IF NOT EXISTS test; and allow root@127.0.0.1 (or set the tests' user)" >&2
  exit 1
}

if port_open "$host" "$port"; then
  echo "$tag: MariaDB already listens on $host:$port"
  ensure_test_database
  exit 0
fi
if ! command -v mysqld_safe >/dev/null 2>&1; then
  echo "$tag: MariaDB is not listening on $host:$port and mysqld_safe is not installed;" >&2
  echo "$tag: install it with: apt-get install -y mariadb-server" >&2
  exit 1
fi
echo "$tag: starting MariaDB: mysqld_safe --user=mysql (in the background)"
(mysqld_safe --user=mysql >/dev/null 2>&1 &)
await_port "$host" "$port" "$wait_seconds" "MariaDB (after mysqld_safe)" \
  "see /var/log/mysql/error.log or 'journalctl -u mariadb' (is bind-address or port changed in /etc/mysql/?)" || exit 1
ensure_test_database
