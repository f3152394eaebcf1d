import Foundation
import TestSupport
import Testing

/// Mail to patrons against a real SMTP server on loopback (`Tests/tools/smtp_sink.py`, aiosmtpd) and the three real
/// executables, patron twice: an address verified through the mailed link; a kind turned off sends nothing; a hold's offer mailed
/// exactly once although the relay was away when it was made; the due-soon reminder once; RFC 8058's one-click
/// unsubscribe; the console's queue.
@Suite(.serialized) struct MailTests {
    /// The SMTP server: its folder of received messages (one JSON file each) and port.
    final class Relay: @unchecked Sendable {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bookmobile-mail-\(UUID().uuidString.prefix(8))")
        var process: ChildProcess?
        var port = 0

        func start() async throws {
            let output = folder.appendingPathExtension("log")
            try? FileManager.default.removeItem(at: output)
            process = try ChildProcess(
                TestTools.python,
                [TestTools.directory.appendingPathComponent("smtp_sink.py").path, folder.path, "\(port)"],
                environment: ProcessInfo.processInfo.environment,
                output: output
            )
            try await eventually("the SMTP server did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")") {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                guard let first = text.split(separator: "\n").first, let number = Int(first) else { return false }
                port = number
                return true
            }
        }

        func stop() async {
            process?.signal(SIGTERM)
            _ = await process?.wait()
        }

        /// Every message received so far, oldest first.
        func messages() -> [[String: Any]] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            return names.compactMap { name in
                (try? Data(contentsOf: folder.appendingPathComponent(name))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            }
        }

        func messages(to address: String, subjectStartingWith prefix: String) -> [[String: Any]] {
            messages().filter {
                ($0["to"] as? [String])?.contains(address) == true && (($0["headers"] as? [String: String])?["Subject"] ?? "").hasPrefix(prefix)
            }
        }
    }

    @Test func patronsAreMailedOnceWhatTheyAskedForThroughARelayThatCameAndWent() async throws {
        let relay = Relay()
        try await relay.start()
        do {
            try await mailedOnce(through: relay)
        } catch {
            await relay.stop()
            throw error
        }
        // Stopped before the test ends: a `defer`'s task may never run, and the server would outlive the test run.
        await relay.stop()
    }

    func mailedOnce(through relay: Relay) async throws {
        let settings = [
            "SMTP_URL": "smtp://127.0.0.1:\(relay.port)", "MAIL_FROM": "library@example.org", "LIBRARY_NAME": "Test Library",
            "MAIL_INTERVAL": "0.2", "EXPIRY_INTERVAL": "1", "LOAN_REMINDER_BEFORE": "30d",
            // The test relay offers no STARTTLS, which is required by default outside development.
            "SMTP_REQUIRE_TLS": "false",
        ]
        // Two patron replicas, each running the expiry job and the mail sender: every message still goes once.
        try await Stack.run(settings, patronReplicas: 2) { stack in
            let api = stack.gateway
            let files = await TestTools.generatedBooks(count: 2, seed: 51)
            let (wanted, other) = (try await stack.ingest(files[0]), try await stack.ingest(files[1]))
            let first = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            let readerToken = try await stack.signUp().token
            let reader = GatewayClient.Credentials.bearer(readerToken)
            let address = "reader@example.org"
            try await stack.waitForLicence(wanted, token: readerToken)
            try await stack.waitForLicence(other, token: readerToken)

            // The address is verified through the link mailed to it; nothing else is mailed before.
            #expect(try await api.call(.PATCH, "/me", as: reader, json: #"{"email": "\#(address)"}"#).status == 200)
            #expect(try await api.call(.GET, "/me/mail", as: reader).json["verified"] as? Bool == false)
            #expect(try await api.call(.POST, "/me/mail/verification", as: reader).status == 202)
            try await eventually("no verification mail") { !relay.messages(to: address, subjectStartingWith: "Confirm your email").isEmpty }
            let verification = relay.messages(to: address, subjectStartingWith: "Confirm your email")[0]
            let link = try #require((verification["text"] as? String)?.split(separator: " ").first { $0.contains("/mail/verify?token=") })
            let verifyPath = String(link.trimmingCharacters(in: .whitespacesAndNewlines)).replacingOccurrences(of: api.base, with: "")
            #expect(try await api.call(.GET, verifyPath).status == 200, "the link opens a page with a button")
            #expect(try await api.call(.GET, "/me/mail", as: reader).json["verified"] as? Bool == false, "opening the link is not confirming")
            #expect(try await api.call(.POST, verifyPath).status == 200)
            #expect(try await api.call(.GET, "/me/mail", as: reader).json["verified"] as? Bool == true)
            #expect(try await api.call(.POST, verifyPath.replacingOccurrences(of: "token=", with: "token=x")).status == 400)

            // A kind turned off sends nothing: the reminder of a loan borrowed with it off never comes.
            let off = try await api.call(.PUT, "/me/mail", as: reader, json: #"{"kinds": {"loan_due_soon": false}, "language": "en"}"#)
            #expect(off.status == 200 && (off.json["kinds"] as? [String: Bool])?["loan_due_soon"] == false, "\(off.text)")
            #expect(try await api.call(.POST, "/me/books/\(other)/borrow", as: reader).status == 201)
            try await eventually("the other loan's reminder was never recorded") {
                let listed = try await api.call(.GET, "/me/notifications", as: reader).json["notifications"] as? [[String: Any]] ?? []
                return listed.contains { $0["kind"] as? String == "loan_due_soon" && ($0["bookId"] as? String)?.lowercased() == other.lowercased() }
            }

            // The offer of a hold made while the relay is away is mailed once, when it is back.
            #expect(try await api.call(.POST, "/me/books/\(wanted)/borrow", as: first).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(wanted)/hold", as: reader).status == 201)
            await relay.stop()
            #expect(try await api.call(.POST, "/me/books/\(wanted)/return", as: first).status == 200)
            try await eventually("the queue never showed the relay away") {
                let queue = try await api.call(.GET, "/admin/mail?status=waiting", as: .bearer(Stack.adminToken)).json
                return ((queue["messages"] as? [[String: Any]]) ?? []).contains { ($0["lastError"] as? String) != nil }
            }
            try await relay.start()
            try await eventually(timeout: .seconds(90), "the offer was not mailed once the relay was back") {
                !relay.messages(to: address, subjectStartingWith: "Your hold is ready").isEmpty
            }
            let offer = relay.messages(to: address, subjectStartingWith: "Your hold is ready")[0]
            let headers = try #require(offer["headers"] as? [String: String])
            let text = try #require(offer["text"] as? String)
            #expect(text.contains("\(api.base)/#/book/\(wanted)"), "\(text)")
            #expect(text.contains("The offer is kept for you until"), "\(text)")
            #expect(headers["From"]?.contains("Test Library") == true && headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click")

            // Turned on again, then accepted: this loan's reminder comes once; the other loan's, recorded while the
            // kind was off, never.
            let on = try await api.call(.PUT, "/me/mail", as: reader, json: #"{"kinds": {"loan_due_soon": true}}"#)
            #expect(
                (on.json["kinds"] as? [String: Bool]) == [
                    "loan_offered": true, "offer_expiring": true, "loan_due_soon": true, "loan_expired": true, "hold_resumed": true,
                    "suggestion_arrived": true,
                ]
            )
            #expect(try await api.call(.POST, "/me/books/\(wanted)/accept", as: reader).status == 200)
            try await eventually("no due-soon reminder") { !relay.messages(to: address, subjectStartingWith: "").filter { isDueSoon($0) }.isEmpty }
            try await Task.sleep(for: .seconds(3))
            let reminders = relay.messages(to: address, subjectStartingWith: "").filter { isDueSoon($0) }
            let subjects = reminders.map { ($0["headers"] as? [String: String])?["Subject"] ?? "" }
            #expect(reminders.count == 1, "\(subjects)")
            #expect(relay.messages(to: address, subjectStartingWith: "Your hold is ready").count == 1, "the offer was mailed once")

            // One-click unsubscribe (RFC 8058) from the offer's List-Unsubscribe address.
            let unsubscribe = try #require(headers["List-Unsubscribe"]?.trimmingCharacters(in: CharacterSet(charactersIn: "<>")))
            let path = unsubscribe.replacingOccurrences(of: api.base, with: "")
            let done = try await api.call(
                .POST,
                path,
                body: Data("List-Unsubscribe=One-Click".utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(done.status == 200, "\(done.text)")
            #expect((try await api.call(.GET, "/me/mail", as: reader).json["kinds"] as? [String: Bool])?["loan_offered"] == false)

            // An address the relay refuses for good (550) is marked, and shown to its patron.
            let refusedPatron = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            #expect(try await api.call(.PATCH, "/me", as: refusedPatron, json: #"{"email": "refused@example.org"}"#).status == 200)
            try await eventually("the refused address was never marked") {
                try await api.call(.GET, "/me/mail", as: refusedPatron).json["refused"] as? String != nil
            }

            let queue = try await api.call(.GET, "/admin/mail", as: .bearer(Stack.adminToken))
            #expect(queue.status == 200 && (queue.json["counts"] as? [String: Int]) == ["sent": 3, "waiting": 0, "failed": 1], "\(queue.text)")
            #expect(try await api.call(.GET, "/admin/mail").status == 401, "the queue is the console's")
        }
        await relay.stop()
    }

    private func isDueSoon(_ message: [String: Any]) -> Bool {
        ((message["headers"] as? [String: String])?["Subject"] ?? "").hasSuffix("is due soon")
    }
}
