#!/usr/bin/env bash
# Makes sure the local RabbitMQ server listens on 127.0.0.1:5672 (the RabbitMQ adapter's tests
# use the real server). Starts it with `rabbitmq-server -detached` when the port is closed and waits
# for the port; exits non-zero with a clear message if it never opens.
set -u
host=127.0.0.1
port=5672
wait_seconds=${RABBITMQ_UP_WAIT_SECONDS:-90}

port_open() { (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; }

if port_open; then
  echo "rabbitmq-up: RabbitMQ already listens on $host:$port"
  exit 0
fi
if ! command -v rabbitmq-server >/dev/null 2>&1; then
  echo "rabbitmq-up: RabbitMQ is not listening on $host:$port and rabbitmq-server is not installed;" >&2
  echo "rabbitmq-up: install it with: apt-get install -y rabbitmq-server" >&2
  exit 1
fi
echo "rabbitmq-up: starting RabbitMQ: rabbitmq-server -detached"
if ! rabbitmq-server -detached; then
  echo "rabbitmq-up: 'rabbitmq-server -detached' failed; see /var/log/rabbitmq/ for the reason" >&2
  exit 1
fi
for ((i = 0; i < wait_seconds; i++)); do
  if port_open; then
    echo "rabbitmq-up: RabbitMQ listens on $host:$port after ${i} s"
    exit 0
  fi
  sleep 1
done
echo "rabbitmq-up: RabbitMQ did not open $host:$port within ${wait_seconds} s after 'rabbitmq-server -detached';" >&2
echo "rabbitmq-up: see /var/log/rabbitmq/ (is another node or a stale pid holding it? try 'rabbitmqctl status')" >&2
exit 1
