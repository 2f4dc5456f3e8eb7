# Sourced by the bench scripts: the Portico configuration that mirrors ../shared/peers' nginx (same files,
# upstreams and zone), so that a scenario means the same on both sides, and what the scripts share to start and
# wait for servers (ports_free, wait_http, start_java, peers_start).
#   peers_portico_conf PORT WORKERS PEERS_DIR APP_PORT FAST_PORT > portico.conf
peers_portico_conf() {
  local port=$1 workers=$2 peers=$3 app_port=$4 fast_port=$5
  cat <<CONF
portico {
  listen = ["127.0.0.1:$port"]
  workers = $workers
  access-log = off
  # the peers' nginx has keepalive_requests 100000; with Portico's default (10,000) each wrk connection would be
  # closed and reopened every few seconds in a round, and nginx's not
  limits.keepalive-requests = 100000
  upstreams {
    app { servers = ["127.0.0.1:$app_port"], keepalive = 64 }
    fast { servers = ["127.0.0.1:$fast_port"], keepalive = 64 }
  }
  rate-limits { allips { rate = 50r/s, burst = 20, nodelay = true, status = 503 } }
  locations = [
    { path = "/static/", alias = "$peers/site/" }
    { path = "/limited/", alias = "$peers/site/", rate-limit = allips }
    # the forwarding headers the peers' nginx sets: none on /fast/, X-Forwarded-For on / (Portico sets five unless
    # told, and each is work on both sides of the hop)
    { path = "/fast/", proxy = fast, forwarded-headers = [] }
    { path = "/", proxy = app, forwarded-headers = [X-Forwarded-For] }
  ]
}
CONF
}

# The JVM flags the scripts give a Portico unless told otherwise (JAVA_OPTS, A_OPTS, B_OPTS): a fixed heap sized to
# need, touched at start-up. A 1 GiB heap made the p99 several times worse on the benchmark VM (docs/benchmarks.md,
# "The heap sized to need").
bench_java_opts="-Xms256m -Xmx256m -XX:+AlwaysPreTouch"

# Fails when something already listens on one of the ports: a peer left over from another run would answer in
# the new one's place (a second nginx cannot bind, and the checks that it is up would pass against the old one).
ports_free() {
  local port
  for port in "$@"; do
    if ss -Hltn "sport = :$port" | grep -q .; then
      echo "port $port is in use (a leftover peer or Portico?): $(ss -Hltnp "sport = :$port" | head -1)" >&2
      return 1
    fi
  done
}

# Waits up to 15 s for URL to answer with a 2xx; otherwise says so, shows LOG (when given) and fails.
wait_http() {
  local url=$1 log=${2:-}
  for _ in $(seq 150); do curl -sf -o /dev/null "$url" && return 0; sleep 0.1; done
  echo "no answer from $url" >&2
  if [[ -n $log ]]; then cat "$log" >&2; fi
  return 1
}

# Starts `java FLAGS -jar JAR ARGS...` with the environment ENV (NAME=VALUE words, may be empty), its output in LOG,
# and sets java_pid; `java FLAGS MAIN ARGS...` when the fourth argument is a class name (put -cp in FLAGS). setsid
# gives it a session, so a scheduler autogroup, of its own, as the daemonized nginx and gunicorn have; started from
# this script's session it would share one group's CPU with wrk (docs/benchmarks.md, sixth session). FLAGS and ENV
# are split on spaces.
#   start_java LOG "ENV" "FLAGS" JAR|MAIN ARGS...
start_java() {
  local log=$1 env=$2 flags=$3 what=$4
  shift 4
  if [[ $what == *.jar ]]; then set -- -jar "$what" "$@"; else set -- "$what" "$@"; fi
  # shellcheck disable=SC2086
  setsid env $env java $flags "$@" >"$log" 2>&1 </dev/null &
  java_pid=$!
}

# Starts ../shared/peers with their runtime files (nginx's configuration, pid, temporary and error log files) in
# RUN_DIR, to be removed with the run: nginx logs every rejection of the flood scenario there (about 1 GB a minute
# of flood), which the default /tmp/peers-run kept from run to run (42 GB after ten sessions) and which the kernel
# wrote back to disk during later rounds. PEERS_RUN stays exported, so the script's `peers.sh stop` finds them.
#   peers_start PEERS_DIR RUN_DIR APP_PORT NGINX_PORT WORKERS
peers_start() {
  export PEERS_RUN=$2
  mkdir -p "$PEERS_RUN"
  chmod 755 "$(dirname "$PEERS_RUN")" # nginx's workers run as nobody and use their temporary directories there
  "$1/peers.sh" start "$3" "$4" "$5" >/dev/null
}
