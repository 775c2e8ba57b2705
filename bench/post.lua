-- POST /v1/workspaces/{ws}/runs with a fresh Idempotency-Key and feature per request, so
-- every request is a durable write of a new run (no replay, no coalescing).
local counter = 0
local thread_id = 0
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_id = tid
end

function request()
  counter = counter + 1
  local key = string.format("bench-%d-%d-%d", thread_id, counter, os.time())
  local body = string.format('{"feature_id":"bench-%d-%d-%d"}', thread_id, counter, os.time())
  wrk.headers["Idempotency-Key"] = key
  wrk.headers["Content-Type"] = "application/json"
  return wrk.format("POST", nil, nil, body)
end
