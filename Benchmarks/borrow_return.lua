-- wrk script: 32 patrons borrow and return different books. Each wrk thread serves 16 patrons (AUTH_FILE lists
-- their "Bearer ..." values); each patron borrows its own 10 books (BOOKS_FILE) one after another, then returns
-- them, and so on, so that no two requests in flight touch the same book.
-- wrk calls request() once more in one thread than it sends (its first request, patron 0's borrow of its first
-- book, is never sent: seen with X-Request-ID numbered requests): that book's first return, 160 requests later, is
-- refused with a 409, the one non-2xx answer of each run.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  books = {}
  for line in io.lines(os.getenv("BOOKS_FILE")) do table.insert(books, line) end
  auths = {}
  for line in io.lines(os.getenv("AUTH_FILE")) do table.insert(auths, line) end
  patrons = 16
  per = 10
  n = 0
end

function request()
  local slot = n % patrons
  local step = math.floor(n / patrons)
  local i = step % per
  local action = (math.floor(step / per) % 2 == 0) and "borrow" or "return"
  local patron = tid * patrons + slot
  n = n + 1
  return wrk.format("POST", "/me/books/" .. books[patron * per + i + 1] .. "/" .. action,
    { ["Authorization"] = auths[patron + 1], ["Host"] = wrk.host }, "")
end
