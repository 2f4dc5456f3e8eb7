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
# With java_cpus set (a taskset list), the JVM starts on those CPUs, as under systemd's CPUAffinity= or a container's
# cpuset: it then sizes itself for them (on one CPU: the Serial collector, one GC thread, fewer compiler threads),
# which pinning a running JVM with `taskset -p` does not do (its G1 workers, sized for two cores, then share one).
#   [java_cpus=0] start_java LOG "ENV" "FLAGS" JAR|MAIN ARGS...
start_java() {
  local log=$1 env=$2 flags=$3 what=$4
  shift 4
  if [[ $what == *.jar ]]; then set -- -jar "$what" "$@"; else set -- "$what" "$@"; fi
  local pin=()
  [[ -n ${java_cpus:-} ]] && pin=(taskset -c "$java_cpus")
  # shellcheck disable=SC2086
  setsid env $env "${pin[@]}" java $flags "$@" >"$log" 2>&1 </dev/null &
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

# The /fast/ app as a process of its own (an nginx with one worker answering "Hello, World!"), as an app server is
# in production, so that both fronts pay the same hop to another process. origin_prepare takes the stand-in's
# server block out of PEERS_DIR's front template (PEERS_DIR must be a copy: never write into ../shared) and
# writes the origin's configuration under RUN_DIR/origin; origin_start starts it, origin_stop stops it.
#   origin_prepare RUN_DIR PEERS_DIR FAST_PORT; origin_start RUN_DIR FAST_PORT; origin_pids RUN_DIR; origin_stop RUN_DIR
origin_prepare() {
  local run=$1 peers=$2 fast_port=$3
  awk '
    /^  server \{/ {block = $0 "\n"; inside = 1; next}
    inside {block = block $0 "\n"; if ($0 ~ /listen 127\.0\.0\.1:@FAST@/) fast = 1
            if ($0 ~ /^  \}/) {if (!fast) printf "%s", block; inside = 0; fast = 0}; next}
    {print}' "$peers/nginx.conf.tpl" > "$run/nginx.conf.tpl"
  grep -q '@FAST@;' "$run/nginx.conf.tpl" && ! grep -q 'listen 127.0.0.1:@FAST@' "$run/nginx.conf.tpl" \
    || { echo "could not take the stand-in app out of $peers/nginx.conf.tpl" >&2; return 1; }
  mv "$run/nginx.conf.tpl" "$peers/nginx.conf.tpl"
  mkdir -p "$run/origin"
  cat > "$run/origin/nginx.conf" <<CONF
worker_processes 1; daemon off; pid $run/origin/nginx.pid; error_log $run/origin/error.log warn;
events { worker_connections 16384; }
http {
  access_log off; keepalive_requests 100000;
$(for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $run/origin/$t;"; done)
  server { listen 127.0.0.1:$fast_port reuseport; location / { return 200 "Hello, World!"; } }
}
CONF
}
origin_start() {
  setsid nginx -c "$1/origin/nginx.conf" >/dev/null 2>&1 &
  wait_http "http://127.0.0.1:$2/" "$1/origin/error.log"
}
origin_pids() {
  local master
  master=$(cat "$1/origin/nginx.pid")
  echo "$master $(pgrep -P "$master" | tr '\n' ' ')"
}
origin_stop() {
  if [[ -f $1/origin/nginx.pid ]]; then
    kill "$(cat "$1/origin/nginx.pid")" 2>/dev/null && sleep 0.3
  fi
  return 0
}
