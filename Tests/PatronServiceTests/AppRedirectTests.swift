import Testing

@testable import PatronService

/// Where single sign-on may send an app its tokens: this library's own address or an allowed app prefix, nothing else.
@Suite struct AppRedirectTests {
    let library = "https://library.example.org"
    let apps = ["org.example.reader:/oauth"]

    func allowed(_ url: String) -> Bool { AppRedirect(url, publicURL: library, allowedPrefixes: apps) != nil }

    @Test func theLibrarysOwnAddressAndAllowedAppsAreTaken() {
        #expect(allowed("https://library.example.org/"))
        #expect(allowed("https://LIBRARY.example.org/app?x=1"))
        #expect(allowed("org.example.reader:/oauth/callback"))
    }

    @Test func everyOtherPlaceIsRefused() {
        #expect(!allowed("https://evil.example/"))
        #expect(!allowed("http://library.example.org/"), "another scheme")
        #expect(!allowed("https://library.example.org:8443/"), "another port")
        #expect(!allowed("https://library.example.org.evil.example/"))
        #expect(!allowed("https://user@library.example.org/"))
        #expect(!allowed("https://library.example.org/#already"))
        #expect(!allowed("https://library.example.org\\@evil.example/"))
        #expect(!allowed("https://library.example.org/ x"))
        #expect(!allowed("org.example.other:/oauth"))
        #expect(!allowed("javascript:alert(1)"))
        #expect(!allowed(""))
    }

    @Test func fieldsGoInTheFragmentEncoded() {
        let app = AppRedirect("org.example.reader:/oauth?x=1", publicURL: library, allowedPrefixes: apps)
        #expect(
            app?.with([("access_token", "a.b_c-d"), ("state", "one two&three")])
                == "org.example.reader:/oauth?x=1#access_token=a.b_c-d&state=one%20two%26three"
        )
    }
}
