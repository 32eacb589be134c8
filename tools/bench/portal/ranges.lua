-- wrk script for the peer comparison in tools/bench/portal-load.sh: only 256 KiB ranges of one
-- file, with the bench user's token (nginx ignores it).
local path = "@PATH@"
local size = @SIZE@
local token = "@TOKEN@"
bad = 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000) end
function request()
  local start = math.random(0, size - 262144)
  return wrk.format("GET", path, {["X-Esri-Authorization"] = "Bearer " .. token, ["Range"] = "bytes=" .. start .. "-" .. (start + 262143)})
end
function response(status, headers, body) if status ~= 206 then bad = bad + 1 end end
function done(summary, latency, requests)
  local b = 0
  for _, t in ipairs(threads) do b = b + t:get("bad") end
  io.write(string.format("ranges: p50 %.2f ms, p99 %.2f ms, %.0f requests/s, %.1f MB/s, %d not 206, %d socket errors\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests / (summary.duration / 1e6),
    summary.bytes / (summary.duration / 1e6) / 1e6, b, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
