-- wrk script for tools/bench/portal-load.sh: each request is a search (40%), an item's JSON
-- (30%) or a 256 KiB range of an item's data (30%), with the bench user's token. Counts
-- statuses other than 200/206 and API errors (HTTP 200 with {"error": ...}) per thread.
local token = "@TOKEN@"
local ids = {@IDS@}
local size = @SIZE@
local words = {"water", "sewer", "district", "hydrants", "valves", "mains", "streets", "naperville"}
local headers = {["X-Esri-Authorization"] = "Bearer " .. token}
bad, apierrors, searches, items, ranges = 0, 0, 0, 0, 0

local threads = {}
function setup(thread) table.insert(threads, thread) end

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  local r = math.random()
  local h = {["X-Esri-Authorization"] = headers["X-Esri-Authorization"]}
  if r < 0.4 then
    searches = searches + 1
    local q = words[math.random(#words)] .. "%20type:%22mobile%20map%20package%22"
    return wrk.format("GET", "/sharing/rest/search?f=json&num=10&q=" .. q, h)
  elseif r < 0.7 then
    items = items + 1
    return wrk.format("GET", "/sharing/rest/content/items/" .. ids[math.random(#ids)] .. "?f=json", h)
  else
    ranges = ranges + 1
    local start = math.random(0, size - 262144)
    h["Range"] = "bytes=" .. start .. "-" .. (start + 262143)
    return wrk.format("GET", "/sharing/rest/content/items/" .. ids[math.random(#ids)] .. "/data", h)
  end
end

function response(status, headers, body)
  if status ~= 200 and status ~= 206 then
    bad = bad + 1
  elseif status == 200 and string.sub(body, 1, 9) == '{"error":' then
    apierrors = apierrors + 1
  end
end

function done(summary, latency, requests)
  local b, a, s, i, r = 0, 0, 0, 0, 0
  for _, t in ipairs(threads) do
    b = b + t:get("bad"); a = a + t:get("apierrors")
    s = s + t:get("searches"); i = i + t:get("items"); r = r + t:get("ranges")
  end
  io.write(string.format("requests sent: %d searches, %d item JSON, %d ranged downloads\n", s, i, r))
  io.write(string.format("errors: %d non-200/206 statuses, %d API errors, %d socket errors (connect %d, read %d, write %d, timeout %d)\n",
    b, a, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
  io.write(string.format("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; %.0f requests/s\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    summary.requests / (summary.duration / 1e6)))
end
