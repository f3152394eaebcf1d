-- wrk script: each wrk thread borrows its own 200 books one after another, then returns them, and so on,
-- so that no two requests in flight touch the same book. BOOKS_FILE lists book ids; BENCH_TOKEN is
-- the "Bearer ..." header value of the patron.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  books = {}
  for line in io.lines(os.getenv("BOOKS_FILE")) do table.insert(books, line) end
  per = 200
  base = tid * per
  n = 0
  auth = os.getenv("BENCH_TOKEN")
end

function request()
  local i = n % per
  local action = (math.floor(n / per) % 2 == 0) and "borrow" or "return"
  n = n + 1
  return wrk.format("POST", "/me/books/" .. books[base + i + 1] .. "/" .. action, { ["Authorization"] = auth, ["Host"] = wrk.host }, "")
end
