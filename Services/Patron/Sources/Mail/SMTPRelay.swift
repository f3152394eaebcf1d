import CCurl
import Foundation
import ServiceSupport

/// The library's SMTP relay (`SMTP_URL`), spoken through libcurl: `smtp://` with STARTTLS whenever the server offers it
/// (required with `SMTP_REQUIRE_TLS=true`), `smtps://` for TLS from the first byte; user and password from the URL.
struct SMTPRelay: Sendable {
    /// What became of one message.
    enum Outcome: Sendable, Equatable {
        case sent
        /// The relay refused the address for good (a 5xx to the recipient): no more mail goes to it.
        case refused(String)
        /// The relay cannot take it now (unreachable, a 4xx, a timeout): tried again later.
        case unavailable(String)
    }

    let url: String
    let username: String?
    let password: String?
    let requireTLS: Bool
    let from: String
    let timeout: Int

    /// nil when `SMTP_URL` is unset: mail is off.
    init?(url smtpURL: String?, from: String, requireTLS: Bool, timeout: Int = 30) throws {
        guard let smtpURL, !smtpURL.isEmpty else { return nil }
        guard var parts = URLComponents(string: smtpURL), let scheme = parts.scheme, ["smtp", "smtps"].contains(scheme), parts.host != nil else {
            throw ServiceConfig.Invalid(description: "SMTP_URL must be smtp://[user:password@]host[:port] or smtps://...")
        }
        username = parts.user?.removingPercentEncoding
        password = parts.password?.removingPercentEncoding
        parts.user = nil
        parts.password = nil
        parts.path = ""
        url = parts.string ?? smtpURL
        self.from = from
        self.requireTLS = requireTLS
        self.timeout = timeout
    }

    /// Sends `message` (a whole RFC 5322 message, CRLF line ends) to `recipient`. Blocks: call it off the event loops.
    func send(_ message: Data, to recipient: String) -> Outcome {
        guard let curl = curl_easy_init() else { return .unavailable("libcurl could not start") }
        defer { curl_easy_cleanup(curl) }
        let payload = Payload(message)
        let recipients = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        bookmobile_curl_set_string(curl, CURLOPT_URL, url)
        bookmobile_curl_set_string(curl, CURLOPT_MAIL_FROM, "<\(from)>")
        bookmobile_curl_set_pointer(curl, CURLOPT_MAIL_RCPT, recipients)
        if let username { bookmobile_curl_set_string(curl, CURLOPT_USERNAME, username) }
        if let password { bookmobile_curl_set_string(curl, CURLOPT_PASSWORD, password) }
        bookmobile_curl_set_long(curl, CURLOPT_USE_SSL, Int(requireTLS ? CURLUSESSL_ALL.rawValue : CURLUSESSL_TRY.rawValue))
        bookmobile_curl_set_long(curl, CURLOPT_UPLOAD, 1)
        bookmobile_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
        bookmobile_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, 10)
        bookmobile_curl_set_long(curl, CURLOPT_TIMEOUT, timeout)
        bookmobile_curl_set_read_function(curl) { buffer, size, count, context in
            guard let buffer, let context else { return 0 }
            return Unmanaged<Payload>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: size * count)
        }
        bookmobile_curl_set_pointer(curl, CURLOPT_READDATA, Unmanaged.passUnretained(payload).toOpaque())
        let result = withExtendedLifetime(payload) { curl_easy_perform(curl) }
        if result == CURLE_OK { return .sent }
        var code = 0
        bookmobile_curl_response_code(curl, &code)
        let reason = "\(String(cString: curl_easy_strerror(result)))\(code > 0 ? " (SMTP \(code))" : "")"
        // A 5xx to the recipient (550 no such user, 553 bad address) is the address's; any other failure the relay's.
        if code >= 500, result == CURLE_SEND_ERROR || result == CURLE_RECV_ERROR { return .refused(reason) }
        return .unavailable(reason)
    }

    /// The message's bytes, handed to libcurl a buffer at a time.
    private final class Payload {
        let bytes: [UInt8]
        var offset = 0

        init(_ data: Data) { bytes = [UInt8](data) }

        func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
            let count = min(max, bytes.count - offset)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBufferPointer { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        }
    }
}
