-- wrk script: a search for a random word from WORDS_FILE (words of the catalog's titles and authors) with a
-- random page size, so that nearly every request misses every cache and runs the search query.
function init(args)
  words = {}
  for line in io.lines(os.getenv("WORDS_FILE")) do table.insert(words, line) end
  math.randomseed(os.time() + (args[1] and #args[1] or 0))
end

function request()
  local word = words[math.random(#words)]
  return wrk.format("GET", "/opds/search?q=" .. word .. "&size=" .. math.random(20, 50))
end
