# Sourced by bin/portico: what the collector the JVM will run changes in the heap bin/portico gives it.
# bin/portico leaves the collector to the JVM (G1 on 2 CPUs or more, Serial on 1) or to JAVA_OPTS: Serial shortened
# young pauses on a busy 2-core machine but, with a rate-limit zone full and churning under an address spray, paused
# 0.7-1.7 s in full collections, 23 in 150 s (docs/deploy.md, "the collector", has the figures).
#   jvm_cpus JAVA_OPTS            -> the CPUs the JVM will see (affinity, cgroup quota, -XX:ActiveProcessorCount)
#   heap_for_collector MIB CPUS JAVA_OPTS -> the -Xmx in MiB that keeps MIB usable under the collector it will run

# Asked of the JVM itself, with the same options, so that a cpuset, a CFS quota or -XX:ActiveProcessorCount= count
# as they will in the server (nproc sees neither the quota nor the flag); about 0.1 s. Nothing when it cannot tell.
jvm_cpus() {
  # shellcheck disable=SC2086
  java $1 -Xshare:auto -Xlog:disable -Xlog:os=debug:stdout -version 2>/dev/null \
    | sed -n 's/.*Initial active processor count set to \([0-9][0-9]*\).*/\1/p' | head -1
}

# Serial and Parallel keep one survivor space (a thirtieth of the heap at the JVM's default ratios) out of what they
# can fill: Runtime.maxMemory is 309 MiB of -Xmx320m, below a 313 MiB advice, and Portico then warns at start that
# the heap is too small. Under them the heap grows by a twenty-ninth, rounded up to 32 MiB. Serial is what JAVA_OPTS
# names or, naming none, what the JVM picks on one CPU.
heap_for_collector() {
  local mib=$1 cpus=$2 opts=$3
  if [[ $opts =~ -XX:[+]Use(Serial|Parallel)GC ]] \
    || { ! [[ $opts =~ -XX:[+]Use[A-Za-z0-9]+GC ]] && [[ $cpus == 1 ]]; }; then
    mib=$(( (mib * 30 / 29 + 31) / 32 * 32 ))
  fi
  echo "$mib"
}
