-- wrk script: listeners seeking in an audiobook's track: GET AUDIO_PATH for 64 KB at a random offset of its
-- AUDIO_SIZE bytes (as a player asks while it buffers or after a seek), with AUTH as the Authorization header (empty
-- for nginx, which serves the same bytes).
function init(args)
  path = os.getenv("AUDIO_PATH")
  size = tonumber(os.getenv("AUDIO_SIZE"))
  auth = os.getenv("AUTH") or ""
  math.randomseed(os.time() + math.random(100000))
end

function request()
  local start = math.random(0, size - 65536)
  local headers = { ["Range"] = "bytes=" .. start .. "-" .. (start + 65535), ["Host"] = wrk.host }
  if auth ~= "" then headers["Authorization"] = auth end
  return wrk.format("GET", path, headers)
end
