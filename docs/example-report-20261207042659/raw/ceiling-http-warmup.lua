
local threads = {}
setup = function(thread) table.insert(threads, thread) end

wrong_length = 0
response = function(status, headers, body)
  if #body ~= 10698 then wrong_length = wrong_length + 1 end
end

done = function(summary, latency, requests)
  local wrong = 0
  for _, thread in ipairs(threads) do wrong = wrong + (thread:get("wrong_length") or 0) end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"wrong_length":%d,"p50":%f,"p90":%f,"p99":%f,"p999":%f,"max":%f}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, wrong,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max))
end
