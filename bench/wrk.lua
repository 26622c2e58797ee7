-- The wrk script of the benchmark (bench/wrk.ts). Requests come from a file of lines "METHOD<TAB>PATH<TAB>BODY",
-- then optionally one field a header of that request, "name: value" (env BENCH_REQUESTS); each thread takes its own
-- slice and cycles through it. Headers: x-api-key (env BENCH_KEY) and content-type, and the line's. done() prints one
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
    local method, path, body, headers = line_parts(all[i])
    table.insert(mine, wrk.format(method, path, headers, body ~= "" and body or nil))
  end
  position = 0
  statuses = {}
end

-- The line's method, path, body ("" for none) and headers: wrk's own (wrk.headers) with the line's added, or nil
-- (wrk.format then sends wrk.headers) when the line has none.
function line_parts(line)
  local fields = {}
  local start = 1
  while true do
    local tab = line:find("\t", start, true)
    if not tab then
      table.insert(fields, line:sub(start))
      break
    end
    table.insert(fields, line:sub(start, tab - 1))
    start = tab + 1
  end
  local headers = nil
  if #fields > 3 then
    headers = {}
    for name, value in pairs(wrk.headers) do
      headers[name] = value
    end
    for i = 4, #fields do
      local name, value = fields[i]:match("^([^:]+):%s*(.*)$")
      if not name then
        error("a header field is not 'name: value': " .. fields[i])
      end
      headers[name] = value
    end
  end
  return fields[1], fields[2], fields[3] or "", headers
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
