"""Bookmobile's web app and operator console in a real Chromium (Debian's, driven by Playwright for Python).

Run by `BrowserTests` (Tests/EndToEndTests) against the three real executables:
    python web_app_test.py --base http://127.0.0.1:PORT --admin-token TOKEN --upload A.epub B.epub --lent-title "..."
With --screenshots DIR it also saves docs/USING.md's screenshots (phone and desktop widths) there.
Exits 0 when every check passed; otherwise prints each failure and exits 1.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import sys
import time
import uuid

from playwright.sync_api import expect, sync_playwright

# Assertions wait as long as actions do (`set_default_timeout` below): on two loaded cores a sign-in with card and PIN
# (a bcrypt in patron behind the rest of the suite) took over Playwright's 5 s. Checks that something happens quickly
# give their own timeout.
expect.set_options(timeout=20_000)

import a11y

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", flush=True)


class Watched:
    """A browser context whose pages report console errors and uncaught exceptions as failures."""

    def __init__(self, browser, name, viewport):
        self.name = name
        self.offline = False
        self.grace_until = 0.0
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.page.on("console", lambda m: self.console(m))
        self.page.on("pageerror", lambda e: failures.append(f"{name}: uncaught exception: {e}"))

    def console(self, message):
        # Chromium logs every 4xx answer as an error ("Failed to load resource"): those the API gives on purpose
        # (no reading position yet, a wrong password) are not the page's errors; a 5xx is.
        if message.type != "error":
            return
        status = re.search(r"status of (\d{3})", message.text)
        if "Failed to load resource" in message.text and status and int(status.group(1)) < 500:
            return
        # With the network off on purpose (the offline step), the requests that fail are the point; one the service
        # worker had no copy of fails as ERR_FAILED (the shelf asked at start, which the app then leaves alone).
        # Chromium may report a request that failed while offline a moment after the network is back: a few seconds' grace.
        excused = self.offline or time.monotonic() < self.grace_until
        if excused and any(sign in message.text for sign in ("ERR_INTERNET_DISCONNECTED", "ERR_FAILED", "Failed to fetch")):
            return
        failures.append(f"{self.name}: console error: {message.text} ({message.location.get('url', '')})")

    def back_online(self):
        self.context.set_offline(False)
        self.offline = False
        self.grace_until = time.monotonic() + 3

    def audit(self, what, focus=True):
        """The page's accessibility checks, as failures named after the page."""
        self.page.wait_for_timeout(200)
        for problem in a11y.static_problems(self.page):
            check(False, f"{self.name} / {what}: {problem}")
        if focus:
            problems = a11y.focus_problems(self.page)
            if problems:
                # A live event may redraw the page while the keyboard walks it (live.js), shifting what came after:
                # a real focus problem is there again a moment later, on a page that has settled.
                self.page.wait_for_timeout(1000)
                problems = a11y.focus_problems(self.page)
            for problem in problems:
                check(False, f"{self.name} / {what}: {problem}")


def sign_up(page, base, username):
    page.goto(f"{base}/#/signup")
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Email").fill(f"{username}@example.org")
    page.get_by_label("Password (at least 8 characters)").fill("correct horse battery")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()


def search_result(page, words, title):
    """Searches from the header's Search link as a patron types, and returns the result that links `title`."""
    page.get_by_role("link", name="Search").click()
    page.get_by_role("searchbox", name="Search the catalog").fill(words)
    return page.get_by_role("list", name="Search results").get_by_role("link", name=re.compile(re.escape(title))).first


def operator_uploads(browser, base, token, files, viewport):
    """An operator enters the token, uploads two EPUBs at once and finds them on the home page."""
    operator = Watched(browser, "console", viewport)
    page = operator.page
    page.goto(f"{base}/admin/")
    operator.audit("token form")
    page.get_by_label("Admin token").fill("not-the-token")
    page.get_by_role("button", name="Open the console").click()
    expect(page.get_by_role("alert")).to_have_text("That token is not right.")
    check(page.evaluate("sessionStorage.length") == 0, "a wrong admin token was kept in the tab")
    page.get_by_label("Admin token").fill(token)
    page.get_by_role("button", name="Open the console").click()
    expect(page.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
    operator.audit("dashboard")
    page.get_by_role("link", name="Upload").click()
    expect(page.get_by_role("heading", name="Upload books")).to_be_visible()
    operator.audit("upload")
    drop_files(page, ".dropzone", files)
    added = page.get_by_text(re.compile(r"^(Added|Already in the catalog): "))
    expect(added).to_have_count(len(files), timeout=60_000)
    titles = [text.split(": ", 1)[1] for text in added.all_inner_texts()]
    for index, name in enumerate(files):
        expect(page.get_by_role("progressbar", name=f"Uploading {name.split('/')[-1]}")).to_have_attribute("value", "1")
    operator.audit("upload finished", focus=False)
    page.get_by_role("link", name="Books").click()
    expect(page.get_by_role("heading", name="Books", level=1)).to_be_visible()
    operator.audit("books")
    # Two copies and featured for the first upload; the change holds when the list is read again.
    page.get_by_label(f"Copies of {titles[0]}").fill("2")
    page.get_by_role("checkbox", name=f"Featured: {titles[0]}").check()
    page.get_by_role("button", name=f"Save {titles[0]}").click()
    expect(page.get_by_text("Saved", exact=True)).to_be_visible()
    page.get_by_role("searchbox", name="Find by title or author").fill(titles[0])
    page.get_by_role("button", name="Find").click()
    expect(page.get_by_label(f"Copies of {titles[0]}")).to_have_value("2")
    expect(page.get_by_role("checkbox", name=f"Featured: {titles[0]}")).to_be_checked()

    page.request.post(f"{base}/feedback", data={"message": "Please add more mysteries."})
    page.get_by_role("link", name="Feedback").click()
    expect(page.get_by_role("heading", name="Feedback", level=1)).to_be_visible()
    expect(page.get_by_text("Please add more mysteries.")).to_be_visible()
    operator.audit("feedback inbox")
    page.get_by_role("link", name="Mail", exact=True).click()
    expect(page.get_by_role("heading", name="Mail", level=1)).to_be_visible()
    expect(page.locator("#mail-counts")).to_contain_text("Sent")
    operator.audit("mail queue")

    visitor = Watched(browser, "home", viewport)
    visitor.page.goto(f"{base}/")
    for title in titles:
        expect(visitor.page.get_by_role("link", name=re.compile(re.escape(title))).first).to_be_visible()
    visitor.audit("home")
    # A lane's page: its facets change the order, and the page keeps its checks.
    visitor.page.get_by_role("link", name="More: New arrivals").click()
    expect(visitor.page.get_by_role("heading", name="New arrivals", level=1)).to_be_visible()
    visitor.page.get_by_label("Sort by").select_option(label="Title (ascending)")
    expect(visitor.page.get_by_label("Sort by")).to_have_value(re.compile("sort=title&order=asc"))
    names = visitor.page.get_by_role("list", name="New arrivals").locator(".title").all_inner_texts()
    key = lambda n: re.sub(r"^(the|a|an) ", "", n.lower())
    check(len(names) >= 2 and key(names[0]) <= key(names[-1]), f"title order is {names}")
    visitor.audit("lane page")

    # Withdrawn: gone from the home page at once.
    page.get_by_role("link", name="Books").click()
    page.get_by_role("button", name=f"Withdraw {titles[1]}").click()
    expect(page.get_by_role("button", name=f"Withdraw {titles[1]}")).to_have_count(0)
    visitor.context.close()
    # A visitor who comes now (the first one's browser may keep the page for its max-age, as HTTP allows).
    latecomer = Watched(browser, "home after a withdrawal", viewport)
    latecomer.page.goto(f"{base}/")
    expect(latecomer.page.get_by_role("heading", name="New arrivals", level=2)).to_be_visible()
    check(latecomer.page.get_by_role("link", name=re.compile(re.escape(titles[1]))).count() == 0, "a withdrawn book is still on the home page")
    latecomer.context.close()
    operator.context.close()
    return titles


def drop_files(page, selector, paths):
    """Drops files on an element as a person dragging them from their desktop would (a DataTransfer with Files)."""
    files = [{"name": os.path.basename(path), "data": base64.b64encode(open(path, "rb").read()).decode()} for path in paths]
    transfer = page.evaluate_handle(
        """(files) => { const transfer = new DataTransfer();
             for (const file of files) {
               const bytes = Uint8Array.from(atob(file.data), (c) => c.charCodeAt(0));
               transfer.items.add(new File([bytes], file.name, { type: 'application/epub+zip' }));
             }
             return transfer; }""", files)
    page.locator(selector).dispatch_event("dragover", {"dataTransfer": transfer})
    page.locator(selector).dispatch_event("drop", {"dataTransfer": transfer})


def reader_position(page):
    return page.locator("#reader-position").inner_text()


def patron_reads_and_returns(browser, base, title, viewport, second_patron):
    """A patron signs up, searches, borrows, reads three pages, bookmarks, enlarges the text, reloads and finds it all
    kept, and returns the book; `second_patron` holds the book while it is lent and sees the offer after the return."""
    reader = Watched(browser, "patron", viewport)
    page = reader.page
    page.goto(f"{base}/#/signup")
    reader.audit("sign-up")
    sign_up(page, base, f"reader{uuid.uuid4().hex[:8]}")
    result = search_result(page, title.split()[0], title)
    expect(result).to_be_visible()
    reader.audit("search results")
    result.click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    reader.audit("book detail")
    page.get_by_role("button", name=f"Borrow: {title}").click()
    expect(page.locator("#book-state")).to_contain_text("On loan until")
    check(page.get_by_role("button", name=f"Borrow: {title}").count() == 0, "Borrow is still offered after borrowing")

    # The second patron finds the book lent and places a hold.
    waiting = Watched(browser, "second patron", viewport)
    sign_up(waiting.page, base, f"waiter{uuid.uuid4().hex[:8]}")
    waiting.page.goto(f"{base}/")
    search_result(waiting.page, title.split()[0], title).click()
    # The page's copy figures may be a few seconds old (feed and edge caches): Borrow may still show, and then turns
    # into Place hold when the server answers that no copy is free.
    hold = waiting.page.get_by_role("button", name=f"Place hold: {title}")
    expect(hold.or_(waiting.page.get_by_role("button", name=f"Borrow: {title}"))).to_be_visible()
    if hold.count() == 0:
        waiting.page.get_by_role("button", name=f"Borrow: {title}").click()
        expect(waiting.page.get_by_role("alert")).to_contain_text("hold queue")
    hold.click()
    expect(waiting.page.locator("#book-state")).to_contain_text("On hold")
    # The second patron keeps My Books open while the first reads; the page is never reloaded from here on.
    waiting.page.get_by_role("link", name=re.compile("^My Books")).click()
    expect(waiting.page.get_by_role("heading", name="Holds (1)", level=2)).to_be_visible()
    waiting.page.evaluate("window.stayedOpen = true")

    # Read three pages.
    page.get_by_role("link", name=f"Read {title}").click()
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    reader.audit("reader", focus=False)
    places = [reader_position(page)]
    for _ in range(3):
        page.get_by_role("button", name="Next page").click()
        expect(page.locator("#reader-position")).not_to_have_text(places[-1])
        places.append(reader_position(page))
    # The keyboard turns pages too.
    page.get_by_role("button", name="Next page").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#reader-position")).to_have_text(places[-2])
    page.keyboard.press("ArrowRight")
    expect(page.locator("#reader-position")).to_have_text(places[-1])
    expect(page.locator(".reader[data-saved-position]")).to_be_attached()
    frame_text = page.frame_locator("iframe.reader-frame").locator("body").inner_text()
    check(len(frame_text.strip()) > 0, "the reader shows no text")

    page.get_by_role("button", name="Add bookmark").click()
    expect(page.locator("#status")).to_contain_text("Bookmark added")
    page.get_by_role("button", name="Reading settings").click()
    size_before = page.locator("#font-size-value").inner_text()
    page.get_by_role("button", name="Larger text").click()
    size_after = page.locator("#font-size-value").inner_text()
    check(size_after != size_before, f"Larger text left the size at {size_after}")
    expect(page.locator(".reader[data-saved-settings]")).to_be_attached()
    reader.audit("reader settings panel", focus=False)
    page.get_by_role("button", name="Close panel").click()
    page.wait_for_timeout(700)  # the position is saved 0.4 s after the last turn or change
    place_before_reload = reader_position(page)

    page.reload()
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    check(reader_position(page) == place_before_reload, f"after a reload the reader is at '{reader_position(page)}', not '{place_before_reload}'")
    page.get_by_role("button", name="Bookmarks").click()
    check(page.get_by_role("button", name=re.compile("^Go to bookmark")).count() == 1, "the bookmark is not listed after a reload")
    listed = page.locator(".bookmark-list li").first.inner_text()
    check(len(listed.strip().splitlines()) >= 2, f"the bookmark lacks its chapter or snippet: {listed!r}")
    page.get_by_role("button", name="Close panel").click()
    # Back two pages, then the bookmark brings the reader to its place again.
    page.get_by_role("button", name="Previous page").click()
    page.get_by_role("button", name="Previous page").click()
    expect(page.locator("#reader-position")).not_to_have_text(place_before_reload)
    page.get_by_role("button", name="Bookmarks").click()
    page.get_by_role("button", name=re.compile("^Go to bookmark")).click()
    expect(page.locator("#reader-position")).to_have_text(place_before_reload)
    page.get_by_role("button", name="Reading settings").click()
    check(page.locator("#font-size-value").inner_text() == size_after, f"font size after reload is {page.locator('#font-size-value').inner_text()}, not {size_after}")
    page.get_by_role("button", name="Close panel").click()

    # Return it from My Books.
    page.get_by_role("link", name="Close book").click()
    page.get_by_role("link", name=re.compile("^My Books")).click()
    expect(page.get_by_role("heading", name="My Books", level=1)).to_be_visible()
    reader.audit("my books")
    page.get_by_role("button", name=f"Return: {title}").click()
    expect(page.get_by_role("button", name=f"Return: {title}")).to_have_count(0)

    # The waiting patron's open My Books shows the offer within 2 s, without a reload (live events, `GET /me/events`),
    # with a message and the header's count.
    expect(waiting.page.get_by_role("button", name=f"Accept loan: {title}")).to_be_visible(timeout=2_000)
    expect(waiting.page.locator("#live-notice")).to_contain_text(title, timeout=2_000)
    expect(waiting.page.locator("#waiting-badge")).to_have_text("1", timeout=2_000)
    check(waiting.page.evaluate("window.stayedOpen === true"), "the waiting patron's page was reloaded")
    expect(waiting.page.locator("#waiting-count")).to_contain_text("1 book waits for your action")
    print("ok: live offer", flush=True)
    waiting.audit("my books with an offer")
    waiting.page.get_by_role("button", name=f"Accept loan: {title}").click()
    expect(waiting.page.get_by_role("button", name=f"Return: {title}")).to_be_visible()

    page.get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", name="Account", level=1)).to_be_visible()
    reader.audit("account")
    # Mail: the address given at sign-up waits for its confirmation; one kind turned off and saved.
    expect(page.locator("#mail-state")).to_contain_text("is not confirmed yet")
    page.get_by_label("A loan ends soon").uncheck()
    page.get_by_role("button", name="Save mail settings").click()
    expect(page.locator("#mail-message")).to_contain_text("Mail settings saved")
    check(reader.page.request.get(f"{base}/me/mail", headers={"Authorization": "Bearer " + page.evaluate("JSON.parse(localStorage.getItem('bookmobile.session')).access")}).json()["kinds"]["loan_due_soon"] is False,
          "the mail setting was not saved")
    waiting.context.close()
    reader.context.close()


def read_to_the_end(browser, base, title, viewport):
    """Borrow a short book, read it to the end in the scrolled layout through the contents, rate it at the prompt;
    remove a bookmark; sign up with a new library card and sign in with it."""
    patron = Watched(browser, "to the end", viewport)
    page = patron.page
    page.goto(f"{base}/#/signup")
    page.get_by_label("Sign up with").select_option("card")
    page.get_by_label("PIN (4 to 8 digits)").fill("2468")
    page.get_by_role("button", name="Create account").click()
    barcode = page.locator("#new-barcode").inner_text()
    check(re.fullmatch(r"\d{14}", barcode) is not None, f"the new card number is '{barcode}'")
    patron.audit("new card")
    page.get_by_role("link", name="Account").click()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Library card number or username").fill(barcode)
    page.get_by_label("PIN or password").fill("2468")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()

    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()
    search_result(page, title, title).click()
    page.get_by_role("button", name=f"Borrow: {title}").click()
    page.get_by_role("link", name=f"Read {title}").click()
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    page.get_by_role("button", name="Add bookmark").click()
    expect(page.locator("#status")).to_contain_text("Bookmark added")
    page.get_by_role("button", name="Bookmarks").click()
    page.get_by_role("button", name=re.compile("^Remove bookmark")).click()
    expect(page.get_by_text("No bookmarks yet.")).to_be_visible()
    page.get_by_role("button", name="Close panel").click()
    page.get_by_role("button", name="Reading settings").click()
    page.get_by_role("radio", name="Scrolled").check()
    page.get_by_role("button", name="Close panel").click()
    page.get_by_role("button", name="Contents").click()
    entries = page.locator(".reader-panel li a")
    check(entries.count() > 0, "the contents panel lists nothing")
    entries.last.click()
    for _ in range(40):
        if page.get_by_role("dialog", name=re.compile("^You finished")).count():
            break
        page.get_by_role("button", name="Next page").click()
        page.wait_for_timeout(100)
    dialog = page.get_by_role("dialog", name=re.compile("^You finished"))
    expect(dialog).to_be_visible()
    patron.audit("rating prompt", focus=False)
    dialog.get_by_role("button", name="4 stars").click()
    expect(dialog).to_have_count(0)
    page.get_by_role("link", name="Close book").click()
    expect(page.get_by_role("group", name=f"Your rating of {title}").get_by_role("button", name="4 stars")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("group", name=f"Your rating of {title}").get_by_role("button", name="5 stars")).to_have_attribute("aria-pressed", "false")
    page.evaluate("localStorage.removeItem('bookmobile.reader.layout')")
    patron.context.close()


def patron_account(browser, base, title, viewport):
    """Hide a book and restore it, send feedback, make and revoke a KOReader sync key, export, sign out and in, delete
    the account."""
    patron = Watched(browser, "account", viewport)
    page = patron.page
    name = f"acct{uuid.uuid4().hex[:8]}"
    sign_up(page, base, name)
    search_result(page, title.split()[0], title).click()
    page.get_by_role("button", name=f"Hide {title} from my feeds").click()
    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()
    page.get_by_role("link", name="Account").click()
    restore = page.get_by_role("button", name=f"Restore {title}")
    expect(restore).to_be_visible()
    restore.click()
    expect(restore).to_have_count(0)
    page.get_by_label("Your message").fill("The reader is lovely.")
    page.get_by_role("button", name="Send feedback").click()
    expect(page.get_by_text("Thank you: your feedback was sent.")).to_be_visible()
    page.get_by_label("Theme").select_option("night")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()
    check("theme-night" in page.evaluate("document.body.className"), "the night theme is not applied")
    patron.audit("account, night theme")
    # A KOReader sync key: made for a device, its user name and key shown once, accepted by /kosync, then revoked.
    page.get_by_label("Device name").fill("Kobo Clara")
    page.get_by_label("Your PIN or password, to make a key").fill("correct horse battery")
    page.get_by_role("button", name="Make a sync key").click()
    expect(page.locator("#sync-key-key")).to_be_visible()
    username, key = page.locator("#sync-key-username").inner_text(), page.locator("#sync-key-key").inner_text()
    koreader = {"x-auth-user": username, "x-auth-key": hashlib.md5(key.encode()).hexdigest(), "Accept": "application/vnd.koreader.v1+json"}
    check(page.request.get(f"{base}/kosync/users/auth", headers=koreader).status == 200, "the sync key shown is not accepted by /kosync")
    patron.audit("account, sync key made")
    page.get_by_role("button", name="Revoke the key of Kobo Clara").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("button", name="Revoke the key of Kobo Clara")).to_have_count(0)
    check(page.request.get(f"{base}/kosync/users/auth", headers=koreader).status == 401, "a revoked sync key is still accepted")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export my data").click()
    check(download.value.suggested_filename == "bookmobile-export.json", "the export is not offered as a file")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()
    page.get_by_role("link", name="Sign in").click()
    patron.audit("sign-in")
    page.get_by_label("Library card number or username").fill(name)
    page.get_by_label("PIN or password").fill("wrong password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not right")
    page.get_by_label("PIN or password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Bookmobile", level=1)).to_be_visible()
    page.get_by_role("link", name="Account").click()
    page.get_by_role("button", name="Delete my account").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete my account").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    # Failures on purpose above (a wrong password's 401) are the API's answer, not the page's errors.
    patron.context.close()


def koreader_place_opens_the_reader(browser, base, book_id, digest, viewport):
    """KOReader saves a place in an open-access book with a sync key made in the account page (exactly KOReader's
    request: its headers, the key's MD5, the file's partial MD5); the web reader then opens in that section."""
    patron = Watched(browser, "koreader", viewport)
    page = patron.page
    sign_up(page, base, f"kobo{uuid.uuid4().hex[:8]}")
    page.get_by_role("link", name="Account").click()
    page.get_by_label("Device name").fill("Kobo Libra")
    page.get_by_label("Your PIN or password, to make a key").fill("correct horse battery")
    page.get_by_role("button", name="Make a sync key").click()
    expect(page.locator("#sync-key-key")).to_be_visible()
    username, key = page.locator("#sync-key-username").inner_text(), page.locator("#sync-key-key").inner_text()
    order = page.request.get(f"{base}/books/{book_id}/manifest.json").json()["readingOrder"]
    section = len(order) // 2
    check(section >= 1, "the open-access book has too few sections to tell places apart")
    koreader = {"x-auth-user": username, "x-auth-key": hashlib.md5(key.encode()).hexdigest(),
                "Accept": "application/vnd.koreader.v1+json", "Content-Type": "application/json"}
    body = {"document": digest, "progress": f"/body/DocFragment[{section + 1}]/body/p[1]/text().0",
            "percentage": round((section + 0.5) / len(order), 4), "device": "Kobo Libra", "device_id": "KOBO1"}
    saved = page.request.put(f"{base}/kosync/syncs/progress", headers=koreader, data=json.dumps(body))
    check(saved.status == 200, f"KOReader's progress was refused: {saved.status} {saved.text()}")
    wrong = dict(koreader, **{"x-auth-key": hashlib.md5(b"not the key").hexdigest()})
    check(page.request.get(f"{base}/kosync/users/auth", headers=wrong).status == 401, "a wrong key is accepted")
    page.goto(f"{base}/#/read/{book_id}")
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    expect(page.locator("#reader-position")).to_contain_text(f"section {section + 1} of {len(order)}")
    patron.context.close()


def wait_until(page, expression, timeout=30.0):
    """Polls `expression` in the page (`wait_for_function` evaluates a string, which the app's CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        check(time.monotonic() < deadline, f"timed out waiting for {expression}")
        if time.monotonic() >= deadline:
            raise TimeoutError(expression)
        page.wait_for_timeout(100)


def offline_reading(browser, base, title, viewport):
    """Download a borrowed book, go offline, reload, read three pages and add a bookmark; back online the server has
    the bookmark and the position; My Books shows the copy, and returning the loan removes it."""
    patron = Watched(browser, "offline", viewport)
    page = patron.page
    sign_up(page, base, f"offline{uuid.uuid4().hex[:8]}")
    search_result(page, title.split()[0], title).click()
    page.get_by_role("button", name=f"Borrow: {title}").click()
    page.get_by_role("button", name=f"Download for offline: {title}").click()
    expect(page.locator("#offline-state")).to_be_visible(timeout=60_000)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    page.get_by_role("link", name=f"Read {title}").click()
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    book_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate("JSON.parse(localStorage.getItem('bookmobile.session')).access")
    auth = {"Authorization": f"Bearer {token}"}

    patron.offline = True
    patron.context.set_offline(True)
    page.reload()
    expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    places = [reader_position(page)]
    for _ in range(3):
        page.get_by_role("button", name="Next page").click()
        expect(page.locator("#reader-position")).not_to_have_text(places[-1])
        places.append(reader_position(page))
    page.get_by_role("button", name="Add bookmark").click()
    expect(page.locator("#status")).to_contain_text("Bookmark added")
    page.wait_for_timeout(700)  # the position is saved 0.4 s after the last turn
    queued = page.evaluate("JSON.parse(localStorage.getItem('bookmobile.outbox') || '[]').map((item) => item.method + ' ' + item.path)")
    check(any(item.endswith("/position") for item in queued) and any(item.endswith("/bookmarks") for item in queued),
          f"offline writes were not queued: {queued}")

    patron.back_online()
    page.evaluate("window.dispatchEvent(new Event('online'))")
    wait_until(page, "!localStorage.getItem('bookmobile.outbox')")
    bookmarks = page.request.get(f"{base}/me/books/{book_id}/bookmarks", headers=auth).json()["bookmarks"]
    check(len(bookmarks) == 1, f"the server has {len(bookmarks)} bookmarks, not the one made offline")
    position = page.request.get(f"{base}/me/books/{book_id}/position", headers=auth)
    check(position.status == 200 and position.json()["device"] == "web", f"the offline position did not reach the server: {position.status}")

    page.get_by_role("link", name="Close book").click()
    page.get_by_role("link", name=re.compile("^My Books")).click()
    expect(page.locator(".offline-copy")).to_have_text("On this device")
    patron.audit("my books with an offline copy")
    # A live event draws My Books again (live.js): a keyboard user's focus stays on the control it was on.
    link = page.locator(".shelf-item h3 a").first
    link.focus()
    title = link.text_content()
    page.evaluate("document.querySelector('#main h1').dataset.before = 'yes'")
    page.evaluate("document.dispatchEvent(new CustomEvent('patron-event', { detail: { kind: 'ready', data: {} } }))")
    wait_until(page, "!document.querySelector('#main h1')?.dataset.before")
    focused = page.evaluate("document.activeElement.closest('.shelf-item') ? document.activeElement.textContent : document.activeElement.tagName")
    check(focused == title, f"a live event's redraw of My Books moved the focus from \"{title}\" to {focused!r}")
    page.get_by_role("button", name=f"Return: {title}").click()
    expect(page.get_by_role("button", name=f"Return: {title}")).to_have_count(0)
    wait_until(page, f"!JSON.parse(localStorage.getItem('bookmobile.offline-books') || '{{}}')['{book_id}']")
    check(not page.evaluate(f"caches.has('bookmobile-book-{book_id}')"), "the returned book's offline copy is still on the device")
    patron.context.close()


def shared_computer(browser, base, book_id, viewport):
    """A library's shared computer: a page other than the app's (a mail link, with its token) is never kept on the
    device; a patron who leaves without signing out is forgotten when the next one signs in, and their waiting writes
    are never sent with the next patron's token."""
    patron = Watched(browser, "shared computer", viewport)
    page = patron.page
    sign_up(page, base, f"shared{uuid.uuid4().hex[:8]}")
    wait_until(page, "navigator.serviceWorker.controller !== null")
    page.goto(f"{base}/admin/?token=a-link-with-a-secret")
    page.goto(f"{base}/")
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()
    kept = page.evaluate("caches.open('bookmobile-shell').then((c) => c.keys()).then((keys) => keys.map((r) => r.url))")
    check(not any("token=" in url for url in kept), f"a page with a token in its link was kept on the device: {kept}")

    # The first patron's rating waits in the outbox (made offline) when the next patron signs in over the open session.
    card = page.request.post(f"{base}/auth/signup", data={"pin": "1357"}).json()["patron"]["barcode"]
    first = page.evaluate("JSON.parse(localStorage.getItem('bookmobile.session')).access")
    page.evaluate(f"""localStorage.setItem('bookmobile.outbox', JSON.stringify([{{ method: 'PUT',
        path: '/me/books/{book_id}/rating', body: {{ stars: 1 }}, key: crypto.randomUUID() }}]))""")
    page.goto(f"{base}/#/signin")
    page.get_by_label("Library card number or username").fill(card)
    page.get_by_label("PIN or password").fill("1357")
    page.get_by_role("button", name="Sign in").click()
    # The first patron's "Account" link shows already: the sign-in is over once the device holds another session
    # (under load it took longer than the second this step used to allow).
    wait_until(page, f"JSON.parse(localStorage.getItem('bookmobile.session'))?.access !== '{first}'")
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_timeout(1_000)
    second = page.evaluate("JSON.parse(localStorage.getItem('bookmobile.session')).access")
    check(second != first, "the second patron did not get a session of their own")
    check(not page.evaluate("localStorage.getItem('bookmobile.outbox')"), "the first patron's waiting write is still on the device")
    rating = page.request.get(f"{base}/me/books/{book_id}/rating", headers={"Authorization": f"Bearer {second}"})
    check(rating.status == 404, f"the first patron's waiting rating was sent as the second patron's: {rating.status} {rating.text()}")
    cached = page.evaluate("""caches.open('bookmobile-me').then((c) => c.match('/me')).then((r) => r ? r.json() : null)""")
    check(cached is None or cached.get("barcode") == card, f"the first patron's answers are still on the device: {cached}")
    patron.context.close()


def screenshots(browser, base, token, title, directory):
    """docs/USING.md's pictures: home, book detail, the reader in its three themes, the console; phone and desktop."""
    for label, viewport in (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
        shots = Watched(browser, f"screenshots {label}", viewport)
        page = shots.page
        sign_up(page, base, f"shots{uuid.uuid4().hex[:8]}")
        page.goto(f"{base}/#/")
        page.wait_for_timeout(800)
        page.screenshot(path=f"{directory}/home-{label}.png")
        search_result(page, title.split()[0], title).click()
        expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
        page.wait_for_timeout(800)
        page.screenshot(path=f"{directory}/book-{label}.png")
        page.get_by_role("link", name=f"Read {title}").click()
        expect(page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
        page.get_by_role("button", name="Next page").click()
        page.get_by_role("button", name="Next page").click()
        for theme in ("Day", "Sepia", "Night"):
            page.get_by_role("button", name="Reading settings").click()
            page.get_by_role("radio", name=theme).check()
            page.get_by_role("button", name="Close panel").click()
            page.wait_for_timeout(500)
            page.screenshot(path=f"{directory}/reader-{theme.lower()}-{label}.png")
        page.get_by_role("button", name="Reading settings").click()
        page.get_by_role("radio", name="Day").check()
        shots.context.close()
        console = Watched(browser, f"console screenshots {label}", viewport)
        console.page.goto(f"{base}/admin/")
        console.page.get_by_label("Admin token").fill(token)
        console.page.get_by_role("button", name="Open the console").click()
        expect(console.page.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
        console.page.wait_for_timeout(500)
        console.page.screenshot(path=f"{directory}/console-{label}.png")
        console.page.get_by_role("link", name="Books").click()
        expect(console.page.get_by_role("heading", name="Books", level=1)).to_be_visible()
        console.page.screenshot(path=f"{directory}/console-books-{label}.png")
        console.page.get_by_role("link", name="Mail", exact=True).click()
        expect(console.page.get_by_role("heading", name="Mail", level=1)).to_be_visible()
        console.page.screenshot(path=f"{directory}/console-mail-{label}.png")
        console.page.get_by_role("link", name="Reports").click()
        expect(console.page.get_by_role("heading", name="Reports", level=1)).to_be_visible()
        console.page.wait_for_timeout(300)
        console.page.screenshot(path=f"{directory}/console-reports-{label}.png", full_page=True)
        console.page.get_by_role("link", name="Lists", exact=True).click()
        expect(console.page.get_by_role("heading", name="Lists and lanes", level=1)).to_be_visible()
        console.page.screenshot(path=f"{directory}/console-lists-{label}.png", full_page=True)
        console.context.close()
        account = Watched(browser, f"account screenshots {label}", viewport)
        sign_up(account.page, base, f"shots{uuid.uuid4().hex[:8]}")
        account.page.get_by_role("link", name="Account").click()
        expect(account.page.get_by_role("heading", name="Email", level=2)).to_be_visible()
        account.page.wait_for_timeout(500)
        account.page.screenshot(path=f"{directory}/account-{label}.png", full_page=True)
        account.context.close()


def staff_help_a_patron(browser, base, token, lent_id, lent_title, spare_id, spare_title, viewport, screenshots=None):
    """An operator finds a patron by card number, blocks them (their borrow is refused with the reason), unblocks them,
    gives them a new PIN (the old one is refused, the new one signs in), ends their loan (the next patron in the queue
    gets the offer) and announces a closure, which the web app shows."""
    api = browser.new_context().request
    def new_patron():
        reply = api.post(f"{base}/auth/signup", data={"pin": "2468"})
        check(reply.status == 201, f"sign-up: {reply.status}")
        body = reply.json()
        return body["patron"]["barcode"], {"Authorization": "Bearer " + body["tokens"]["access_token"]}
    card, reader = new_patron()
    _, waiting = new_patron()
    check(api.post(f"{base}/me/books/{lent_id}/borrow", headers=reader).status == 201, "the patron could not borrow")
    check(api.post(f"{base}/me/books/{lent_id}/hold", headers=waiting).status == 201, "the second patron could not hold")

    operator = Watched(browser, "console, patrons", viewport)
    page = operator.page
    page.goto(f"{base}/admin/")
    page.get_by_label("Admin token").fill(token)
    page.get_by_role("button", name="Open the console").click()
    page.get_by_role("link", name="Patrons").click()
    page.get_by_role("searchbox", name="Find by card number, username or email").fill(card)
    page.get_by_role("button", name="Find").click()
    page.get_by_role("link", name=card).click()
    expect(page.get_by_role("heading", name=f"Patron {card}", level=1)).to_be_visible()
    expect(page.get_by_role("button", name=f"End loan: {lent_title}")).to_be_visible()
    operator.audit("patron")
    page.get_by_label("Reason").fill("Card reported lost")
    page.get_by_role("button", name="Block").click()
    expect(page.locator("#patron-status")).to_contain_text("Card reported lost")

    # The patron, signed in with card and PIN in the web app, is refused a borrow with the reason.
    patron = Watched(browser, "blocked patron", viewport)
    patron.page.goto(f"{base}/#/signin")
    patron.page.get_by_label("Library card number or username").fill(card)
    patron.page.get_by_label("PIN or password").fill("2468")
    patron.page.get_by_role("button", name="Sign in").click()
    # Exact: the sign-in page's "Create an account" would match too.
    expect(patron.page.get_by_role("link", name="Account", exact=True)).to_be_visible()
    patron.page.goto(f"{base}/#/book/{spare_id}")
    patron.page.get_by_role("button", name=f"Borrow: {spare_title}").click()
    expect(patron.page.get_by_role("alert")).to_contain_text("Card reported lost")

    page.get_by_role("button", name="Unblock").click()
    expect(page.locator("#patron-status")).to_have_text("Active")
    patron.page.reload()
    patron.page.get_by_role("button", name=f"Borrow: {spare_title}").click()
    expect(patron.page.locator("#book-state")).to_contain_text("On loan until")

    # A new PIN: the old one no longer signs in, the new one does.
    page.get_by_label("New PIN (4 to 8 digits) or password").fill("97531")
    page.get_by_role("button", name="Set it").click()
    expect(page.locator("#patron-message")).to_contain_text("signed out everywhere")
    basic = lambda pin: {"Authorization": "Basic " + base64.b64encode(f"{card}:{pin}".encode()).decode()}
    check(api.post(f"{base}/auth/token", headers=basic("2468")).status == 401, "the old PIN still signs in")
    check(api.post(f"{base}/auth/token", headers=basic("97531")).status == 200, "the new PIN does not sign in")

    # The loan ended for the patron: the next one in the queue is offered the copy.
    page.get_by_role("button", name=f"End loan: {lent_title}").click()
    expect(page.get_by_role("button", name=f"End loan: {lent_title}")).to_have_count(0)
    state = api.get(f"{base}/me/books/{lent_id}", headers=waiting).json()["state"]
    check(state == "loan_offered", f"the next patron's state is {state}, not loan_offered")
    expect(page.get_by_role("cell", name="block", exact=True)).to_be_visible()
    expect(page.get_by_role("cell", name="end return", exact=True)).to_be_visible()

    # A patron type: a teen's limits, said on the page and in the patron's own account.
    page.get_by_label("Type", exact=True).select_option("teen")
    page.get_by_role("button", name="Set type").click()
    expect(page.locator("#patron-type")).to_contain_text("teen: at most")
    me = api.get(f"{base}/me", headers=basic("97531")).json()
    check(me.get("patronType") == "teen", f"the patron's type is {me.get('patronType')}, not teen")
    expect(page.get_by_role("cell", name="patron type", exact=True)).to_be_visible()
    if screenshots:
        page.screenshot(path=f"{screenshots}/console-patron-{'phone' if viewport['width'] < 600 else 'desktop'}.png", full_page=True)
    operator.audit("patron after staff actions")

    # Reports: two more holds on the one copy (offered to the patron who waited) put the book in the holds report; the
    # chart's table and the CSV downloads say what the API says.
    for _ in range(2):
        _, more = new_patron()
        check(api.post(f"{base}/me/books/{lent_id}/hold", headers=more).status == 201, "a further hold failed")
    staff = {"Authorization": f"Bearer {token}"}
    today = api.get(f"{base}/admin/reports/circulation", headers=staff).json()["days"][-1]
    page.get_by_role("link", name="Reports").click()
    expect(page.get_by_role("heading", name="Reports", level=1)).to_be_visible()
    day_row = page.locator("#report-days tbody tr").first
    expect(day_row).to_contain_text(today["day"])
    cells = day_row.locator("td").all_inner_texts()
    check(cells[:2] == [str(today["loans"]), str(today["holds"])], f"the day's row says {cells}, the API {today}")
    check(today["loans"] >= 2 and today["holds"] >= 3, f"the test's own loans and holds are not counted: {today}")
    held = page.locator("#report-held tbody tr", has_text=lent_title)
    expect(held).to_contain_text("2")
    operator.audit("reports")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the holds report (CSV)").click()
    holds_csv = open(download.value.path(), encoding="utf-8").read()
    check(lent_title in holds_csv and ",1,2," in holds_csv, f"the holds CSV does not list the book: {holds_csv[:300]}")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download loans and holds per day (CSV)").click()
    last = open(download.value.path(), encoding="utf-8").read().strip().splitlines()[-1]
    check(last == f"{today['day']},{today['loans']},{today['holds']},{today['returns']}", f"the CSV's last day is {last!r}, the API's {today}")
    print("ok: reports", flush=True)

    # MARC records of the collection, downloaded from the console.
    page.get_by_role("link", name="MARC").click()
    expect(page.get_by_role("heading", name="MARC records", level=1)).to_be_visible()
    operator.audit("marc")
    page.get_by_label("Format").select_option(label="ISO 2709 (.mrc)")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download now").click()
    marc = open(download.value.path(), "rb").read()
    check(download.value.suggested_filename == "bookmobile-collection.mrc", f"the file is named {download.value.suggested_filename}")
    check(marc[:5].isdigit() and marc.endswith(b"\x1d") and lent_title.encode() in marc, "the MARC file is not ISO 2709 with the book")
    # The same as a file built in the background and kept: its progress, then its download.
    page.get_by_role("button", name="Build a file to keep").click()
    expect(page.locator("#marc-files .marc-status").first).to_contain_text("Ready", timeout=30_000)
    with page.expect_download() as download:
        page.locator("#marc-files").get_by_role("button", name="Download").first.click()
    kept = open(download.value.path(), "rb").read()
    check(kept == marc, "the kept file differs from the one downloaded at once")

    # A staff list: made, filled by searching, reordered with the buttons and the keyboard, featured; the home page's
    # lanes arranged (a lane hidden); a visitor's home page shows the list's lane first, its books in the list's order.
    page.get_by_role("link", name="Lists", exact=True).click()
    expect(page.get_by_role("heading", name="Lists and lanes", level=1)).to_be_visible()
    operator.audit("lists and lanes")
    page.get_by_label("Title").fill("Winter reads")
    page.get_by_label("Featured on the home page").check()
    page.get_by_role("button", name="Make the list").click()
    expect(page.get_by_role("heading", name="Winter reads", level=1)).to_be_visible()
    for title in (spare_title, lent_title):
        page.get_by_role("searchbox", name="Find books to add").fill(title)
        page.get_by_role("button", name="Find", exact=True).click()
        page.get_by_role("button", name=f"Add: {title}").click()
        expect(page.locator("#list-order li", has_text=title)).to_have_count(1)
    order = lambda: [text.split("\n")[0].strip() for text in page.locator("#list-order li .lane-title").all_inner_texts()]
    check(order() == [spare_title, lent_title], f"the list's order is {order()}")
    page.get_by_role("button", name=f"Move up: {lent_title}").click()
    expect(page.locator("#list-order li").first).to_contain_text(lent_title)
    # The keyboard: the focus stays on the moved book's button, Enter moves it again.
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    check(focused == f"Move down: {lent_title}" or focused == f"Move up: {lent_title}" or focused is None, f"the focus went to {focused}")
    page.get_by_role("button", name=f"Move down: {lent_title}").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#list-order li").first).to_contain_text(spare_title)
    page.get_by_role("button", name=f"Move up: {lent_title}").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#list-order li").first).to_contain_text(lent_title)
    operator.audit("a staff list")
    page.get_by_role("link", name="Lists", exact=True).click()
    lane = page.locator(".lane-order li", has_text="Available now")
    lane.get_by_label("Shown").uncheck()
    page.get_by_role("button", name="Save lane order").click()
    expect(page.get_by_text("Lane order saved.")).to_be_visible()
    home = Watched(browser, "home with a staff list", viewport)
    home.page.goto(f"{base}/")
    first_lane = home.page.locator("section.lane").first
    expect(first_lane.get_by_role("heading", level=2)).to_have_text("Winter reads")
    cards = first_lane.locator(".cards li").all_inner_texts()
    check(len(cards) == 2 and lent_title in cards[0] and spare_title in cards[1], f"the list's lane shows {cards}")
    check(home.page.get_by_role("heading", name="Available now", level=2).count() == 0, "a hidden lane is on the home page")
    home.context.close()
    print("ok: staff list", flush=True)

    # An announcement shows in the web app's header while current.
    page.get_by_role("link", name="Announcements").click()
    page.get_by_label("Announcement", exact=True).fill("Closed on Monday for stocktaking")
    page.get_by_role("button", name="Announce").click()
    expect(page.get_by_role("button", name="Withdraw: Closed on Monday for stocktaking")).to_be_visible()
    operator.audit("announcements")
    visitor = Watched(browser, "announcement", viewport)
    visitor.page.goto(f"{base}/")
    expect(visitor.page.get_by_role("region", name="Announcements from the library")).to_contain_text("Closed on Monday for stocktaking")
    visitor.audit("home with an announcement")
    page.get_by_role("button", name="Withdraw: Closed on Monday for stocktaking").click()
    expect(page.get_by_text("No announcements.")).to_be_visible()
    for watched in (visitor, patron, operator):
        watched.context.close()


def listen_across_devices(browser, base, book_id, title, pdf_id, pdf_title, viewport):
    """A patron borrows an audiobook, plays it from chapter 3 in the player, changes the speed and leaves at 12:34;
    on a second device (another browser context, signed in anew) the player opens at 12:34 in chapter 3. A borrowed
    PDF opens in the reader at its first page, with its outline, and keeps its page the same way."""
    first = Watched(browser, "listen", viewport)
    page = first.page
    username = f"listen{uuid.uuid4().hex[:8]}"
    sign_up(page, base, username)
    page.goto(f"{base}/#/book/{book_id}")
    expect(page.get_by_text("Audiobook", exact=True)).to_be_visible()
    page.get_by_role("button", name=f"Borrow: {title}").click()
    page.get_by_role("link", name=f"Listen to {title}").click()
    # Ready once it shows where the listener is (the track's metadata loaded); the router focuses the heading then, so
    # the audit's Tabs start from where a patron's would.
    expect(page.locator("#listen-position")).to_contain_text("of 15:00", timeout=60_000)
    first.audit("player")
    page.get_by_role("button", name=re.compile(r"^Chapter 3 ")).click()
    wait_until(page, "document.querySelector('#player').currentTime > 600.2 && !document.querySelector('#player').paused")
    expect(page.locator("#listen-chapter")).to_have_text("Chapter 3")
    # Streamed: the service worker gave the track's requests (ranges) the patron's token; no whole-track download.
    check(page.evaluate("() => document.querySelector('.player').dataset.streamed") == "true", "the track was not streamed")
    page.get_by_label("Speed").select_option("1.5")
    check(page.evaluate("() => document.querySelector('#player').playbackRate") == 1.5, "the speed did not change")
    page.get_by_role("button", name="Back 30 seconds").click()
    wait_until(page, "document.querySelector('#player').currentTime < 600")
    expect(page.locator("#listen-chapter")).to_have_text("Chapter 2")
    # The sleep timer at the end of the chapter: playing from 9:57, it pauses as chapter 3 begins.
    page.evaluate("() => { document.querySelector('#player').currentTime = 597; }")
    page.get_by_label("Sleep timer").select_option("-1")
    wait_until(page, "document.querySelector('#player').paused")
    stopped = page.evaluate("() => document.querySelector('#player').currentTime")
    check(598.5 < stopped < 601.5, f"the sleep timer paused at {stopped} s, not at the end of chapter 2 (600 s)")
    # Leaves at 12:34 (754 s into the one-track book), paused.
    page.evaluate("() => { const audio = document.querySelector('#player'); audio.currentTime = 754; audio.pause(); }")
    wait_until(page, "document.querySelector('.player')?.dataset.savedPosition === 'track-001.m4a|t=754'")

    second = Watched(browser, "listen elsewhere", viewport)
    other = second.page
    other.goto(f"{base}/#/signin")
    other.get_by_label("Library card number or username").fill(username)
    other.get_by_label("PIN or password").fill("correct horse battery")
    other.get_by_role("button", name="Sign in").click()
    # Exact: the sign-in page's "Create an account" matches "Account" too, and the player would open before the
    # sign-in ended (anonymously, at 0:00).
    expect(other.get_by_role("link", name="Account", exact=True)).to_be_visible()
    other.goto(f"{base}/#/read/{book_id}")
    expect(other.locator("#listen-position")).to_contain_text("12:34 of 15:00", timeout=60_000)
    expect(other.locator("#listen-chapter")).to_have_text("Chapter 3")
    check(abs(other.evaluate("() => document.querySelector('#player').currentTime") - 754) < 1, "the second device is not at 12:34")

    # The PDF: borrowed, opened at page 1 with its outline; the outline's third entry turns to page 3, which is kept.
    other.goto(f"{base}/#/book/{pdf_id}")
    other.get_by_role("button", name=f"Borrow: {pdf_title}").click()
    other.get_by_role("link", name=f"Read {pdf_title}").click()
    expect(other.locator("#pdf-page")).to_have_attribute("alt", f"Page 1 of {pdf_title}")
    second.audit("pdf reader")
    other.get_by_role("button", name="Section 3 (page 3)").click()
    expect(other.locator("#pdf-page")).to_have_attribute("alt", f"Page 3 of {pdf_title}")
    wait_until(other, "document.querySelector('.pdf-reader')?.dataset.savedPosition === 'page=3'")
    check(other.evaluate("() => document.querySelector('#pdf-page').naturalWidth") > 100, "the page was not drawn")
    page.goto(f"{base}/#/read/{pdf_id}")
    expect(page.locator("#pdf-page")).to_have_attribute("alt", f"Page 3 of {pdf_title}")

    # Offline: the audiobook downloaded like an ebook plays from the device's copy with the network gone.
    page.goto(f"{base}/#/book/{book_id}")
    page.get_by_role("button", name=f"Download for offline: {title}").click()
    expect(page.locator("#offline-state")).to_be_visible(timeout=60_000)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    first.offline = True
    first.context.set_offline(True)
    page.reload()
    page.get_by_role("link", name=f"Listen to {title}").click()
    expect(page.locator("#listen-position")).to_contain_text("of 15:00")
    wait_until(page, "document.querySelector('#player').readyState >= 1 && document.querySelector('#player').duration > 899")
    first.back_online()
    first.context.close()
    second.context.close()


def media_screenshots(browser, base, book_id, title, pdf_id, pdf_title, directory):
    """The audiobook's page, the player and the PDF reader, phone and desktop (looked at before a change lands)."""
    for label, viewport in (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
        shots = Watched(browser, f"media screenshots {label}", viewport)
        page = shots.page
        sign_up(page, base, f"mshots{uuid.uuid4().hex[:8]}")
        page.goto(f"{base}/#/book/{book_id}")
        page.get_by_role("button", name=f"Borrow: {title}").click()
        expect(page.get_by_role("link", name=f"Listen to {title}")).to_be_visible()
        page.wait_for_timeout(500)
        page.screenshot(path=f"{directory}/audiobook-{label}.png", full_page=True)
        page.get_by_role("link", name=f"Listen to {title}").click()
        expect(page.locator("#listen-position")).to_contain_text("of 15:00", timeout=60_000)
        page.get_by_role("button", name=re.compile(r"^Chapter 2 ")).click()
        page.wait_for_timeout(1500)
        page.evaluate("() => document.querySelector('#player').pause()")
        page.screenshot(path=f"{directory}/player-{label}.png", full_page=True)
        page.goto(f"{base}/#/book/{pdf_id}")
        page.get_by_role("button", name=f"Borrow: {pdf_title}").click()
        page.get_by_role("link", name=f"Read {pdf_title}").click()
        expect(page.locator("#pdf-page")).to_have_attribute("alt", f"Page 1 of {pdf_title}")
        page.wait_for_timeout(800)
        page.screenshot(path=f"{directory}/pdf-{label}.png", full_page=True)
        shots.context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--upload", nargs="+", required=True, help="EPUB files the operator uploads")
    parser.add_argument("--lent-title", required=True, help="title of a one-copy book the patrons borrow and hold")
    parser.add_argument("--open-title", required=True, help="title of an open-access book (the screenshots' reader)")
    parser.add_argument("--offline-title", required=True, help="title of a book a patron borrows and reads offline")
    parser.add_argument("--open-id", required=True, help="the open-access book's id")
    parser.add_argument("--open-digest", required=True, help="KOReader's partial MD5 of the open-access book's file")
    parser.add_argument("--staff-lent", nargs=2, required=True, metavar=("ID", "TITLE"), help="a one-copy book staff end a loan of")
    parser.add_argument("--staff-spare", nargs=2, required=True, metavar=("ID", "TITLE"), help="a book a blocked patron tries to borrow")
    parser.add_argument("--audiobook", nargs=2, required=True, metavar=("ID", "TITLE"), help="a 15-minute audiobook of three chapters")
    parser.add_argument("--pdf", nargs=2, required=True, metavar=("ID", "TITLE"), help="a PDF with an outline")
    parser.add_argument("--screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--artifacts", default="/tmp", help="where a failed step's screenshots go")
    args = parser.parse_args()
    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        uploaded = []
        steps = [
            ("operator uploads", lambda: uploaded.extend(operator_uploads(browser, args.base, args.admin_token, args.upload, {"width": 1280, "height": 800}))),
            ("read to the end", lambda: read_to_the_end(browser, args.base, uploaded[0], {"width": 1024, "height": 768})),
            ("patron reads and returns", lambda: patron_reads_and_returns(browser, args.base, args.lent_title, {"width": 1280, "height": 800}, True)),
            ("phone-width audit", lambda: phone_audit(browser, args.base, args.open_title)),
            ("account", lambda: patron_account(browser, args.base, args.lent_title, {"width": 1024, "height": 768})),
            ("hostile links", lambda: hostile_links(browser, args.base)),
            ("offline reading", lambda: offline_reading(browser, args.base, args.offline_title, {"width": 1024, "height": 768})),
            ("shared computer", lambda: shared_computer(browser, args.base, args.open_id, {"width": 1024, "height": 768})),
            ("koreader place", lambda: koreader_place_opens_the_reader(
                browser, args.base, args.open_id, args.open_digest, {"width": 1024, "height": 768})),
            ("listen across devices", lambda: listen_across_devices(
                browser, args.base, *args.audiobook, *args.pdf, {"width": 1024, "height": 768})),
            ("staff help a patron", lambda: staff_help_a_patron(
                browser, args.base, args.admin_token, *args.staff_lent, *args.staff_spare, {"width": 1280, "height": 800}, args.screenshots)),
        ]
        if args.screenshots:
            steps.append(("screenshots", lambda: screenshots(browser, args.base, args.admin_token, args.open_title, args.screenshots)))
            steps.append(("media screenshots", lambda: media_screenshots(browser, args.base, *args.audiobook, *args.pdf, args.screenshots)))
        for name, step in steps:
            try:
                step()
                print(f"ok: {name}", flush=True)
            except Exception as error:  # a step that cannot go on is one failure; the next step still runs
                failures.append(f"{name}: {type(error).__name__}: {error}")
                print(f"FAIL: {name}: {error}", flush=True)
                for index, page in enumerate(p for context in browser.contexts for p in context.pages):
                    slug = re.sub(r"\W+", "-", name)
                    path = os.path.join(args.artifacts, f"failure-{slug}-{index}.png")
                    try:
                        page.screenshot(path=path)
                        print(f"  screenshot: {path} ({page.url})", flush=True)
                    except Exception:
                        pass
                for context in browser.contexts:
                    context.close()
        browser.close()
    print(f"{len(failures)} failures in {time.monotonic() - started:.0f} s", flush=True)
    for failure in failures:
        print(f"- {failure}")
    sys.exit(1 if failures else 0)


def hostile_links(browser, base):
    """The web app's own guards, in the page: a feed link to another origin is not followed with the token, and a
    chapter's `java&#9;script:` link is a script URL (docs/SECURITY.md, "The web app's pages")."""
    watched = Watched(browser, "hostile links", {"width": 1024, "height": 768})
    page = watched.page
    page.goto(base + "/")
    results = page.evaluate(
        """async () => {
            const api = await import('/web/js/api.js');
            const chapter = await import('/web/js/reader/chapter.js');
            const doc = new DOMParser().parseFromString('<a href="java&#9;script:alert(1)">x</a><a href="ch2.xhtml">y</a>', 'text/html');
            return {
                paths: ['//evil.example/x', '/' + String.fromCharCode(92) + 'evil.example/x', 'https://evil.example/opds', '/opds/lanes/new'].map(api.sameOriginPath),
                scripts: [...doc.querySelectorAll('a')].map((a) => chapter.isScriptURL(a.getAttribute('href'))),
            };
        }"""
    )
    check(results["paths"] == [None, None, None, "/opds/lanes/new"], f"in-app paths: {results['paths']}")
    check(results["scripts"] == [True, False], f"script URLs: {results['scripts']}")
    page.goto(base + "/#/feed?href=" + "%2F%2Fevil.example%2Fopds")
    page.wait_for_timeout(500)
    check(page.url.startswith(base + "/"), f"the app stays on its origin: {page.url}")
    check(page.get_by_text("That feed is on another site, so it was not opened.").count() > 0, "a feed of another origin is not loaded")
    watched.context.close()


def phone_audit(browser, base, open_title):
    """The home, search and sign-in pages and the reader at a phone's width: the same checks, no sideways scrolling."""
    phone = Watched(browser, "phone", {"width": 390, "height": 844})
    phone.page.goto(f"{base}/#/search?q={open_title.split()[0]}")
    phone.page.get_by_role("list", name="Search results").get_by_role("link", name=re.compile(re.escape(open_title))).click()
    phone.page.get_by_role("link", name=f"Read {open_title}").click()
    expect(phone.page.locator(".reader[data-ready='true']")).to_be_attached(timeout=30_000)
    phone.page.get_by_role("button", name="Next page").click()
    phone.audit("reader at phone width", focus=False)
    overflow = phone.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    check(overflow <= 1, f"phone / reader: the page scrolls sideways by {overflow} px")
    frame_width = phone.page.evaluate("document.querySelector('iframe.reader-frame').getBoundingClientRect().width")
    check(frame_width <= 390, f"phone / reader: the book's frame is {frame_width} px wide in a 390 px window")
    for route, what in (("/#/", "home"), ("/#/search", "search"), ("/#/signin", "sign-in")):
        phone.page.goto(f"{base}{route}")
        expect(phone.page.get_by_role("heading", level=1)).to_be_visible()
        phone.page.wait_for_timeout(300)
        phone.audit(f"{what} at phone width")
        overflow = phone.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        check(overflow <= 1, f"phone / {what}: the page scrolls sideways by {overflow} px")
    phone.context.close()


if __name__ == "__main__":
    main()
