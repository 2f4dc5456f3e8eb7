-- wrk -s bin/wrk-percentiles.lua URL: prints the whole latency distribution (wrk --latency prints four points).
done = function(summary, latency, requests)
  local out = string.format("n=%d", summary.requests)
  for _, p in ipairs({50, 90, 95, 98, 99, 99.5, 99.9, 99.99}) do
    out = out .. string.format(" p%s=%.2fms", p, latency:percentile(p) / 1000)
  end
  out = out .. string.format(" max=%.2fms", latency.max / 1000)
  io.write(out .. "\n")
end
