-- wrk script: 32 patrons borrow and return different books. Each wrk thread serves 16 patrons (AUTH_FILE lists
-- their "Bearer ..." values); each patron borrows its own 10 books (BOOKS_FILE) one after another, then returns
-- them, and so on, so that no two requests in flight touch the same book.
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
