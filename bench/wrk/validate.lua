-- wrk script for bench/wrk/validate.sh: POST /api/v1/licenses/validate with a random key of KEYS_FILE
-- (one key a line) for PRODUCT_ID, and one RESULT line at the end (requests, req/s, p50, p99, errors).
local keys = {}
for line in io.lines(os.getenv("KEYS_FILE")) do keys[#keys + 1] = line end
local product = os.getenv("PRODUCT_ID") or "1"
math.randomseed(os.time())
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local key = keys[math.random(#keys)]
  return wrk.format(nil, "/api/v1/licenses/validate", nil, '{"key":"' .. key .. '","productId":"' .. product .. '"}')
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT requests=%d rps=%.0f p50=%.2fms p99=%.2fms errors=%d non2xx=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
