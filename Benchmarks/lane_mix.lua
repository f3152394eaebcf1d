-- wrk script: a random lane page from URLS_FILE (every lane, sort, order and facet, each at a page reached by keyset),
-- so that issue 20's "any sort, any facet" is measured as one mix rather than one lane.
function init(args)
  urls = {}
  for line in io.lines(os.getenv("URLS_FILE")) do table.insert(urls, line) end
  math.randomseed(os.time() + (args[1] and #args[1] or 0))
end

function request()
  return wrk.format("GET", urls[math.random(#urls)])
end
