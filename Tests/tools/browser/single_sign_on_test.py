"""Single sign-on in the web app, in a real Chromium (Debian's, driven by Playwright for Python).

Run by `SingleSignOnBrowserTests` (Tests/EndToEndTests) against the three real executables and a real OpenID Connect
provider on loopback:
    python single_sign_on_test.py --base http://127.0.0.1:PORT --subject oidc-ann --book ID TITLE --chromium PATH
The patron presses the sign-in page's single sign-on button, picks their account at the provider, comes back signed
in (the tokens gone from the address bar), borrows the book and finds it in My Books; their account page shows the
name the provider gave, and makes a KOReader sync key through the provider (no PIN asked); a return this tab did not start begins no session. Prints `ok: <step>` for each step; exits 0 when every check passed.
"""
import argparse
import os
import re
import sys

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import a11y  # noqa: E402

expect.set_options(timeout=20_000)


def shoot(page, folder, name):
    """The page at desktop and phone width, into `folder` (nothing without one)."""
    if not folder:
        return
    desktop = page.viewport_size
    page.screenshot(path=os.path.join(folder, f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(folder, f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(desktop)


def audit(page, what):
    """The page's accessibility checks (names, labels, contrast, focus order); any problem fails the test."""
    page.wait_for_timeout(200)
    problems = a11y.static_problems(page) + a11y.focus_problems(page)
    if problems:
        raise AssertionError(f"{what}: {problems}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--subject", required=True, help="the provider's user the patron picks")
    parser.add_argument("--book", nargs=2, required=True, metavar=("ID", "TITLE"), help="a book the patron borrows")
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--artifacts", default="/tmp")
    parser.add_argument("--screenshots", help="a folder for the changed pages' pictures, desktop and phone width")
    args = parser.parse_args()
    book_id, title = args.book
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            page.goto(f"{args.base}/#/signin")
            # The page renders once the auth document has come (under load, after the first paint).
            expect(page.get_by_role("link", name="Sign in with your library account")).to_be_visible()
            audit(page, "sign-in page with single sign-on")
            shoot(page, args.screenshots, "signin-sso")
            page.get_by_role("link", name="Sign in with your library account").click()
            # The provider's own page: the patron picks their account.
            expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
            page.get_by_role("button", name=args.subject, exact=True).click()
            expect(page.get_by_role("link", name="Account", exact=True)).to_be_visible()
            if "access_token" in page.url or "refresh_token" in page.url:
                raise AssertionError(f"the tokens stayed in the address: {page.url}")
            history = page.evaluate("history.length")
            print("ok: signed in through the provider", flush=True)

            page.goto(f"{args.base}/#/book/{book_id}")
            expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
            page.get_by_role("button", name=f"Borrow: {title}").click()
            expect(page.locator("#book-state")).to_contain_text("On loan until")
            page.get_by_role("link", name=re.compile("^My Books")).click()
            expect(page.get_by_role("heading", name="My Books", level=1)).to_be_visible()
            expect(page.get_by_role("link", name=title).first).to_be_visible()
            print("ok: borrowed", flush=True)

            page.get_by_role("link", name="Account", exact=True).click()
            expect(page.get_by_text("Ann Single").first).to_be_visible()
            print("ok: account", flush=True)

            # A KOReader sync key: no PIN to type, the provider confirms the patron, and the key is shown once back here.
            if page.get_by_label("Your PIN or password, to make a key").count():
                raise AssertionError("a patron of the provider was asked for a PIN")
            page.get_by_label("Device name").fill("Kobo Clara")
            page.get_by_role("button", name="Make a sync key at the sign-in service").click()
            expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
            page.get_by_role("button", name=args.subject, exact=True).click()
            expect(page.locator("#sync-key-key")).to_have_text(re.compile(r"^[a-z0-9]{16}$", re.IGNORECASE))
            expect(page.locator("#sync-keys")).to_contain_text("Kobo Clara")
            expect(page.locator("#sync-key-key")).to_be_in_viewport()
            if "sync_key" in page.url or not page.url.endswith("#/account"):
                raise AssertionError(f"the key stayed in the address, or the page is not the account: {page.url}")
            audit(page, "account with a sync key made through the provider")
            shoot(page, args.screenshots, "account-sync-key-sso")
            print("ok: sync key through the provider", flush=True)

            # A search that finds nothing: the patron asks the library to buy the title.
            wanted = "Moonlit Orchard of Tomorrow"
            page.goto(f"{args.base}/#/search?q={wanted.replace(' ', '%20')}")
            expect(page.locator("#result-count")).to_have_text("No books found.")
            page.get_by_role("button", name=f"Ask the library to buy “{wanted}”").click()
            expect(page.get_by_text("the library has your suggestion")).to_be_visible()
            audit(page, "search with a suggestion made")
            shoot(page, args.screenshots, "search-suggested")
            # Staff answer it in the console.
            console = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            console.goto(f"{args.base}/admin/")
            console.get_by_label("Admin token").fill(args.admin_token)
            console.get_by_role("button", name="Open the console").click()
            expect(console.get_by_role("heading", name="Dashboard", level=1)).to_be_visible()
            console.get_by_role("link", name="Suggestions").click()
            expect(console.get_by_role("heading", name="Suggestions", level=1)).to_be_visible()
            expect(console.get_by_role("row", name=re.compile(wanted))).to_be_visible()
            # The row's controls stand in one line (the actions' own margin once pushed theirs down).
            tops = [console.get_by_label(label, exact=True).bounding_box()["y"] for label in (f"Answer for {wanted}", f"Merge {wanted} into")]
            if abs(tops[0] - tops[1]) > 2:
                raise AssertionError(f"the suggestion's controls are not in line: {tops}")
            audit(console, "console suggestions")
            shoot(console, args.screenshots, "console-suggestions")
            console.get_by_label(f"Answer for {wanted}", exact=True).select_option("ordered")
            console.get_by_label(f"Note to the patrons for {wanted}").fill("On order: due in a month")
            console.get_by_role("button", name=f"Save the answer for {wanted}").click()
            expect(console.get_by_label(f"Answer for {wanted}", exact=True)).to_have_value("ordered")
            console.context.close()
            page.get_by_role("link", name="Account", exact=True).click()
            expect(page.get_by_text(f"{wanted} — Ordered: On order: due in a month")).to_be_visible()
            page.get_by_role("heading", name="Your suggestions").scroll_into_view_if_needed()
            shoot(page, args.screenshots, "account-suggestions")
            print("ok: suggestion answered", flush=True)

            # A return whose state this tab did not make (a link someone sent) begins no session.
            context = browser.new_context()
            stranger = context.new_page()
            stranger.goto(f"{args.base}/#access_token=forged&token_type=bearer&state=not-mine")
            expect(stranger.get_by_role("alert")).to_contain_text("not started here")
            if stranger.evaluate("localStorage.getItem('bookmobile.session')"):
                raise AssertionError("a forged return began a session")
            context.close()
            print("ok: forged return refused", flush=True)
            if errors:
                raise AssertionError(f"console errors: {errors}")
        except Exception as error:
            page.screenshot(path=f"{args.artifacts}/failure-single-sign-on.png")
            print(f"FAIL: {error} ({page.url}; history {locals().get('history')})", flush=True)
            sys.exit(1)
        browser.close()


if __name__ == "__main__":
    main()
