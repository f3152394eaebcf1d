-- wrk script: GET BENCH_PATH as a random one of the patrons whose Authorization header values AUTH_FILE lists
-- (Bearer tokens or Basic credentials), as many signed-in apps would.
function init(args)
  auths = {}
  for line in io.lines(os.getenv("AUTH_FILE")) do table.insert(auths, line) end
  path = os.getenv("BENCH_PATH")
  math.randomseed(os.time() + math.random(100000))
end

function request()
  return wrk.format("GET", path, { ["Authorization"] = auths[math.random(#auths)], ["Host"] = wrk.host })
end
