import Foundation

/// One message as the relay receives it (RFC 5322, MIME multipart/alternative: plain text and HTML, UTF-8, quoted-
/// printable free: base64 bodies keep every line short). Its `Message-ID` is the queue row's, so a message sent again
/// after a crash between the relay's acceptance and the row's commit can be recognised as the same one.
struct MailMessage {
    var id: UUID
    var from: String
    var fromName: String
    var to: String
    var language: String
    var text: MailTemplates.Text
    var link: String
    /// The one-click unsubscribe address (RFC 8058), for the kinds a patron can turn off.
    var unsubscribe: String?
    var date = Date()

    var data: Data {
        let boundary = "bookmobile-\(id.uuidString.lowercased())"
        var headers = [
            "From: \(Self.encoded(fromName)) <\(from)>",
            "To: <\(to)>",
            "Subject: \(Self.encoded(text.subject))",
            "Date: \(Self.rfc5322(date))",
            "Message-ID: <\(id.uuidString.lowercased())@bookmobile>",
            "Content-Language: \(language)",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "Auto-Submitted: auto-generated",
        ]
        if let unsubscribe {
            headers += ["List-Unsubscribe: <\(unsubscribe)>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
        }
        var plain = text.lines.joined(separator: "\r\n\r\n") + "\r\n\r\n\(text.action): \(link)\r\n"
        if let unsubscribe { plain += "\r\n-- \r\n\(language == "fr" ? "Ne plus recevoir ces messages" : "Stop these messages"): \(unsubscribe)\r\n" }
        let html = """
            <!doctype html><html lang="\(language)"><body>\
            \(text.lines.map { "<p>\(Self.escaped($0))</p>" }.joined())\
            <p><a href="\(Self.escaped(link))">\(Self.escaped(text.action))</a></p>\
            \(unsubscribe.map { "<p><small><a href=\"\(Self.escaped($0))\">\(language == "fr" ? "Ne plus recevoir ces messages" : "Stop these messages")</a></small></p>" } ?? "")\
            </body></html>
            """
        let parts = [("text/plain", plain), ("text/html", html)].map { type, body in
            "--\(boundary)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Data(body.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
                + "\r\n"
        }
        return Data((headers.joined(separator: "\r\n") + "\r\n\r\n" + parts.joined() + "--\(boundary)--\r\n").utf8)
    }

    /// An RFC 2047 encoded word when the text is not plain ASCII.
    static func encoded(_ text: String) -> String {
        let clean = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard clean.unicodeScalars.contains(where: { !$0.isASCII }) else { return clean }
        return "=?UTF-8?B?\(Data(clean.utf8).base64EncodedString())?="
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
