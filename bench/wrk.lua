-- The wrk script of the benchmark (bench/wrk.ts). Requests come from a file of lines "METHOD<TAB>PATH<TAB>BODY"
-- (env BENCH_REQUESTS); each thread takes its own slice and cycles through it. Headers: x-api-key (env BENCH_KEY) and content-type. done() prints one
-- JSON line: requests, duration, latency percentiles over every answer, status counts and socket errors.
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

function init(args)
  wrk.headers["x-api-key"] = os.getenv("BENCH_KEY")
  wrk.headers["content-type"] = "application/json"
  local all = {}
  for line in io.lines(os.getenv("BENCH_REQUESTS")) do
    table.insert(all, line)
  end
  local count = tonumber(os.getenv("BENCH_THREADS"))
  mine = {}
  for i = index, #all, count do
    local method, path, body = line_parts(all[i])
    table.insert(mine, wrk.format(method, path, nil, body ~= "" and body or nil))
  end
  position = 0
  statuses = {}
end

function line_parts(line)
  local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t?(.*)$")
  return method, path, body or ""
end

function request()
  position = position + 1
  if position > #mine then
    position = 1
  end
  return mine[position]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for status, n in pairs(s) do
      counts[status] = (counts[status] or 0) + n
    end
  end
  local parts = {}
  for status, n in pairs(counts) do
    table.insert(parts, string.format('"%d":%d', status, n))
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"meanUs":%.1f,"statusCounts":{%s},"socketErrors":%d,"timeouts":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.mean,
    table.concat(parts, ","), e.connect + e.read + e.write, e.timeout))
end
