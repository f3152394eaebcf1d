-- wrk script: a library's morning. Each request is a random line of URLS_FILE ("<Accept>\t<path>": lane pages 1 to 3
-- of every lane, book details, searches, in Atom and OPDS 2.0) as a random patron of AUTH_FILE (their Authorization
-- header values, Bearer or Basic), or anonymously when AUTH_FILE is empty. PACE_MS, when set, makes each connection wait
-- that long between an answer and its next request (patrons browsing at a pace, not as fast as answers come).
-- ACCEPT_ENCODING, when set, is sent as the requests' Accept-Encoding (apps ask for gzip; the bench's mix does not).
function init(args)
  urls = {}
  for line in io.lines(os.getenv("URLS_FILE")) do
    local accept, path = line:match("^([^\t]+)\t(.+)$")
    if path then table.insert(urls, { accept, path }) end
  end
  auths = {}
  local file = os.getenv("AUTH_FILE") or ""
  if file ~= "" then
    for line in io.lines(file) do
      if line ~= "" then table.insert(auths, line) end
    end
  end
  math.randomseed(os.time() + math.random(100000))
end

local encoding = os.getenv("ACCEPT_ENCODING")
if encoding == "" then encoding = nil end

function request()
  local url = urls[math.random(#urls)]
  local headers = { ["Accept"] = url[1], ["Host"] = wrk.host }
  if #auths > 0 then headers["Authorization"] = auths[math.random(#auths)] end
  if encoding then headers["Accept-Encoding"] = encoding end
  return wrk.format("GET", url[2], headers)
end

local pace = tonumber(os.getenv("PACE_MS") or "")
if pace then
  function delay()
    return pace
  end
end

-- COUNT_STATUSES, when set, tallies each answer's status in each thread and prints "status <code> <count>" lines at the
-- end (wrk only counts non-2xx); only then is a response() function defined, which costs wrk a parse of each answer.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

if os.getenv("COUNT_STATUSES") then
  statuses = {}
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    if counts then
      for status, count in pairs(counts) do total[status] = (total[status] or 0) + count end
    end
  end
  for status, count in pairs(total) do io.write(string.format("status %d %d\n", status, count)) end
end
