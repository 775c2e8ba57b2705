-- POST /v1/workspaces/{ws}/runs with a fresh Idempotency-Key per request (never a replay).
-- Features cycle through a list of implicit features (files of the benchmark repository,
-- given as the script argument): each feature's first trigger inserts a run, later ones
-- coalesce into it (the server runs with --no-workers, so runs stay queued). Both are durable
-- write transactions, and every request resolves its feature in the repository. A second
-- argument prefixes the keys, for several wrk processes loading at once.
local counter = 0
local thread_id = 0
local prefix = "bench"
local features = {}
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_id = tid
  prefix = args[2] or prefix
  for line in io.lines(args[1]) do
    table.insert(features, line)
  end
end

function request()
  counter = counter + 1
  local key = string.format("%s-%d-%d-%d", prefix, thread_id, counter, os.time())
  local feature = features[(counter % #features) + 1]
  local body = string.format('{"feature_id":"%s"}', feature)
  wrk.headers["Idempotency-Key"] = key
  wrk.headers["Content-Type"] = "application/json"
  return wrk.format("POST", nil, nil, body)
end
