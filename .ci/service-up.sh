# Shared by the *-up.sh scripts (sourced, not run): checks and waits for a local TCP port.
# Each script sets `tag` (the prefix of its messages) before calling these.

# port_open HOST PORT: true when something accepts a TCP connection on HOST:PORT.
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# await_port HOST PORT SECONDS WHAT HINT: waits up to SECONDS for HOST:PORT to accept; says so and
# returns 0 when it does, else prints that WHAT did not open it, with HINT, and returns 1.
await_port() {
  local host=$1 port=$2 seconds=$3 what=$4 hint=$5 i
  for ((i = 0; i < seconds; i++)); do
    if port_open "$host" "$port"; then
      echo "$tag: $what listens on $host:$port after ${i} s"
      return 0
    fi
    sleep 1
  done
  echo "$tag: $what did not open $host:$port within ${seconds} s;" >&2
  echo "$tag: $hint" >&2
  return 1
}
