import Foundation
import TestSupport
import Testing

@testable import PatronService

/// The pure parts of mail: the signed links' tokens, the message as the relay receives it, the relay's URL, the texts.
@Suite struct MailMessageTests {
    let signer = MailToken.Signer(secret: "a secret of the tests, long enough to be one")
    let patron = UUID()

    @Test func aTokenOpensOnlyForItsPurposeUnchangedAndInTime() throws {
        let now = Date()
        let text = signer.sign(.verify(patron: patron, address: "a@example.org", now: now))
        #expect(signer.open(text, as: .verify, now: now)?.subject == "a@example.org")
        #expect(signer.open(text, as: .unsubscribe, now: now) == nil, "a verification link is not an unsubscribe link")
        #expect(signer.open(text, as: .verify, now: now.addingTimeInterval(3 * 86_400)) == nil, "two days, not three")
        #expect(MailToken.Signer(secret: "another secret").open(text, as: .verify, now: now) == nil)
        let parts = text.split(separator: ".")
        let forged = Data(#"{"purpose":"verify","patron":"\#(patron)","subject":"b@example.org","expires":9999999999}"#.utf8)
            .base64URLEncodedString()
        #expect(signer.open(forged + "." + parts[1], as: .verify) == nil, "another body under the first signature")
        #expect(signer.open("not a token", as: .verify) == nil)
    }

    @Test func aMessageCarriesBothPartsTheUnsubscribeHeadersAndEncodedWords() throws {
        let text = MailTemplates.text(
            kind: "loan_offered",
            language: "fr",
            facts: .init(
                library: "Médiathèque",
                title: "L'Étranger",
                deadline: Date(timeIntervalSince1970: 1_800_000_000),
                link: "https://l.example/#/book/1"
            )
        )
        #expect(text.subject == "Votre réservation est disponible : L'Étranger")
        #expect(text.lines[1].contains("15 janvier 2027"), "\(text.lines)")
        let message = MailMessage(
            id: UUID(),
            from: "library@example.org",
            fromName: "Médiathèque",
            to: "p@example.org",
            language: "fr",
            text: text,
            link: "https://l.example/#/book/1",
            unsubscribe: "https://l.example/mail/unsubscribe?token=t"
        )
        let raw = String(decoding: message.data, as: UTF8.self)
        #expect(raw.contains("\r\nList-Unsubscribe: <https://l.example/mail/unsubscribe?token=t>\r\n"))
        #expect(raw.contains("\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"))
        #expect(raw.contains("Subject: =?UTF-8?B?"), "a subject with accents is an encoded word")
        #expect(raw.contains("From: =?UTF-8?B?\(Data("Médiathèque".utf8).base64EncodedString())?= <library@example.org>"))
        #expect(raw.contains("Content-Type: text/plain; charset=utf-8") && raw.contains("Content-Type: text/html; charset=utf-8"))
        #expect(raw.split(separator: "\r\n").allSatisfy { $0.count <= 998 }, "no line past SMTP's limit")
        #expect(MailMessage.encoded("Line\r\nBcc: x@example.org") == "Line  Bcc: x@example.org", "no header can be injected")
    }

    @Test func theRelaysURLGivesItsCredentialsApartAndRefusesOtherSchemes() throws {
        let relay = try #require(try SMTPRelay(url: "smtp://mailer:p%40ss@relay.example:587", from: "l@example.org", requireTLS: true))
        #expect(relay.url == "smtp://relay.example:587" && relay.username == "mailer" && relay.password == "p@ss" && relay.requireTLS)
        #expect(try SMTPRelay(url: nil, from: "l@example.org", requireTLS: false) == nil, "no SMTP_URL: mail is off")
        #expect(throws: (any Error).self) { try SMTPRelay(url: "http://relay.example", from: "l@example.org", requireTLS: false) }
    }

    @Test func tlsIsRequiredOfTheRelayOutsideDevelopment() throws {
        let base = ["PATRON_DATABASE_URL": "postgres://x@127.0.0.1/x", "SMTP_URL": "smtp://relay.example:587"]
        #expect(try PatronSettings(config: TestConfig.base(base)).smtpRelay?.requireTLS == true)
        #expect(try PatronSettings(config: TestConfig.base(base.merging(["BOOKMOBILE_ENV": "development"]) { $1 })).smtpRelay?.requireTLS == false)
        #expect(try PatronSettings(config: TestConfig.base(base.merging(["SMTP_REQUIRE_TLS": "false"]) { $1 })).smtpRelay?.requireTLS == false)
    }

    @Test func aRelayThatIsNotThereIsUnavailableNotARefusal() throws {
        let relay = try #require(try SMTPRelay(url: "smtp://127.0.0.1:1", from: "l@example.org", requireTLS: false, timeout: 5))
        guard case .unavailable = relay.send(Data("Subject: x\r\n\r\nx\r\n".utf8), to: "p@example.org") else {
            Issue.record("a relay that cannot be reached is tried again later")
            return
        }
    }
}
