#!/usr/bin/env bash
# Makes sure the local RabbitMQ server listens on 127.0.0.1:5672 (the RabbitMQ adapter's tests
# use the real server). Starts it with `rabbitmq-server -detached` when the port is closed and waits
# for the port; exits non-zero with a clear message if it never opens.
set -u
. "$(dirname "$0")/service-up.sh"
tag=rabbitmq-up
host=127.0.0.1
port=5672
wait_seconds=${RABBITMQ_UP_WAIT_SECONDS:-90}

if port_open "$host" "$port"; then
  echo "$tag: RabbitMQ already listens on $host:$port"
  exit 0
fi
if ! command -v rabbitmq-server >/dev/null 2>&1; then
  echo "$tag: RabbitMQ is not listening on $host:$port and rabbitmq-server is not installed;" >&2
  echo "$tag: install it with: apt-get install -y rabbitmq-server" >&2
  exit 1
fi
echo "$tag: starting RabbitMQ: rabbitmq-server -detached"
if ! rabbitmq-server -detached; then
  echo "$tag: 'rabbitmq-server -detached' failed; see /var/log/rabbitmq/ for the reason" >&2
  exit 1
fi
await_port "$host" "$port" "$wait_seconds" "RabbitMQ (after 'rabbitmq-server -detached')" \
  "see /var/log/rabbitmq/ (is another node or a stale pid holding it? try 'rabbitmqctl status')"
