#!/usr/bin/env bash
# Throw-away Redis and PostgreSQL servers on loopback for test/stores.
#
#   eval "$(bash test/stores/servers.sh start DIR)"   # prints the two exports
#   npx vitest run test/stores
#   bash test/stores/servers.sh stop DIR
#   bash test/stores/servers.sh redis-down|redis-up|postgres-down|postgres-up DIR
#
# `start` installs redis-server and postgresql with apt-get when they are
# missing (as root; `apt-get update` only if the first install fails), then
# starts both on 127.0.0.1 at free ports with their data in DIR (an empty or
# missing directory): Redis without persistence, PostgreSQL from a fresh
# initdb (run as the `postgres` user when root, as PostgreSQL refuses to run
# as root) with a `medrecords` role and database. Only the export lines go to
# stdout; progress goes to stderr. `stop` stops both and deletes DIR.
# `redis-down`/`postgres-down` stop one server (Redis as `SHUTDOWN NOSAVE`, a
# restart without persistence; PostgreSQL in `fast` mode, connections cut),
# `redis-up`/`postgres-up` start it again on the same port and data: what
# test/reliability/store-restarts.test.ts does to the stores mid-processing.
set -euo pipefail

usage() {
  echo "usage: bash test/stores/servers.sh start|stop|redis-down|redis-up|postgres-down|postgres-up DIR" >&2
  exit 2
}
[ "$#" -eq 2 ] || usage
action="$1"
dir="$2"

log() { printf 'test servers: %s\n' "$*" >&2; }

postgres_bin() {
  # Debian keeps the server binaries out of PATH, one directory per major version.
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$found" ] && [ -x "$found/initdb" ]; then
    echo "$found"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

free_port() {
  node -e '
    const server = require("node:net").createServer();
    server.listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close(); });
  '
}

# Runs a command as the PostgreSQL owner: `postgres` when we are root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

install_missing() {
  local packages=()
  command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
  [ -n "$(postgres_bin)" ] || packages+=(postgresql)
  [ "${#packages[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "missing ${packages[*]}; install them (sudo apt-get install ${packages[*]}) and run again"
    exit 1
  fi
  log "apt-get install ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${packages[@]}" >&2; then
    log "install failed; apt-get update, then install again"
    apt-get update >&2
    apt-get install -y --no-install-recommends "${packages[@]}" >&2
  fi
}

start() {
  install_missing
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"

  local redis_port
  redis_port="$(free_port)"
  echo "$redis_port" >"$dir/redis.port"
  redis_up
  log "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$redis_port"

  local bin pg_port
  bin="$(postgres_bin)"
  pg_port="$(free_port)"
  mkdir -p "$dir/pg"
  if [ "$(id -u)" -eq 0 ]; then
    # The postgres user must reach its directory (mktemp -d makes DIR 0700).
    chmod 755 "$dir"
    chown postgres: "$dir/pg"
    chmod 700 "$dir/pg"
  fi
  as_owner "$bin/initdb" -D "$dir/pg/data" -U postgres --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --no-sync >"$dir/pg-initdb.log" 2>&1 || {
    cat "$dir/pg-initdb.log" >&2
    exit 1
  }
  echo "$pg_port" >"$dir/pg.port"
  postgres_up
  as_owner "$bin/psql" -h "$dir/pg" -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE medrecords LOGIN PASSWORD 'medrecords'" \
    -c "CREATE DATABASE medrecords OWNER medrecords" >&2
  log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port"

  echo "export MEDRECORDS_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
  echo "export MEDRECORDS_TEST_POSTGRES_URL=postgres://medrecords:medrecords@127.0.0.1:$pg_port/medrecords"
}

redis_up() {
  local redis_port
  redis_port="$(cat "$dir/redis.port")"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no \
    --daemonize yes --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null
}

redis_down() {
  redis-cli -h 127.0.0.1 -p "$(cat "$dir/redis.port")" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$(cat "$dir/redis.port")" ping >/dev/null 2>&1 || return 0
    sleep 0.1
  done
}

postgres_up() {
  local pg_port
  pg_port="$(cat "$dir/pg.port")"
  # Unix socket in the data's own directory, TCP on loopback only, no fsync: throw-away data.
  as_owner "$(postgres_bin)/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir/pg -c fsync=off -c max_connections=200" \
    start >&2 || {
    cat "$dir/pg/server.log" >&2
    exit 1
  }
}

postgres_down() {
  as_owner "$(postgres_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null
}

stop() {
  [ -d "$dir" ] || return 0
  if [ -f "$dir/redis.port" ]; then
    redis-cli -h 127.0.0.1 -p "$(cat "$dir/redis.port")" shutdown nosave >/dev/null 2>&1 || true
  fi
  if [ -f "$dir/pg/data/postmaster.pid" ]; then
    as_owner "$(postgres_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  redis-down) redis_down ;;
  redis-up) redis_up ;;
  postgres-down) postgres_down ;;
  postgres-up) postgres_up ;;
  *) usage ;;
esac
