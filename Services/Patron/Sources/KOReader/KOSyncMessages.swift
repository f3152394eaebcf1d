import Foundation
import Shared

/// KOReader's sync plugin's messages, as koreader-sync-server reads and answers them.
enum KOSync {
    /// koreader-sync-server refuses a document name with a colon (its store's key separator); so does this one, so
    /// that a client behaves the same against both. Names are partial MD5s (32 hex digits) or MD5s of file names.
    static let maxDocumentLength = 128

    static func isValidDocument(_ document: String) -> Bool {
        !document.isEmpty && document.count <= maxDocumentLength && !document.contains(":") && !document.contains("/")
    }

    /// `PUT /syncs/progress`: `percentage` a number (or a string of one), `progress` a string (a page number for a
    /// PDF may come as a number), `device` a string; `document` required, `device_id` optional. Read leniently, as
    /// koreader-sync-server does (Lua's `tonumber` and strings): a field of another type counts as missing.
    struct ProgressUpdate: Decodable, Sendable {
        var document: String?
        var progress: String?
        var percentage: Double?
        var device: String?
        var deviceID: String?

        enum CodingKeys: String, CodingKey {
            case document, progress, percentage, device
            case deviceID = "device_id"
        }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) -> String? {
                if let value = try? fields.decodeIfPresent(String.self, forKey: key) { return value }
                guard let number = try? fields.decodeIfPresent(Double.self, forKey: key), number.isFinite else { return nil }
                return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            }
            document = text(.document)
            progress = text(.progress)
            percentage = text(.percentage).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
            device = text(.device)
            deviceID = text(.deviceID)
        }
    }

    /// `GET /syncs/progress/{document}`'s answer: every field, or `{}` when nothing is kept for the document.
    struct ProgressRecord: Sendable, JSONWritable {
        var document: String
        var percentage: Double
        var progress: String
        var device: String
        var deviceID: String?
        /// Seconds since 1970, as koreader-sync-server's `os.time()`.
        var timestamp: Int

        init(document: String, percentage: Double, progress: String, device: String, deviceID: String?, timestamp: Int) {
            (self.document, self.percentage, self.progress, self.device, self.deviceID, self.timestamp) =
                (document, percentage, progress, device, deviceID, timestamp)
        }

        /// What KOReader sent for a file the library does not know as the patron's book, as it is answered.
        init(document: String, kept: KOReaderDocumentPostgresRepository.Progress) {
            self.init(
                document: document,
                percentage: kept.percentage,
                progress: kept.progress,
                device: kept.device,
                deviceID: kept.deviceID,
                timestamp: Int(kept.writtenAt.timeIntervalSince1970)
            )
        }

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("device", device)
            json.field("device_id", deviceID)
            json.field("document", document)
            json.field("percentage", percentage)
            json.field("progress", progress)
            json.field("timestamp", timestamp)
            json.endObject()
        }
    }

    /// `PUT /syncs/progress`'s answer.
    struct Saved: Sendable, JSONWritable {
        var document: String
        var timestamp: Int

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("document", document)
            json.field("timestamp", timestamp)
            json.endObject()
        }
    }

    /// `{"state": "OK"}` (the health check) or `{"authorized": "OK"}` (the sign-in check).
    struct OK: Sendable, JSONWritable {
        var key: StaticString

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field(key, "OK")
            json.endObject()
        }
    }

    /// `{}`: nothing kept for the document.
    struct Nothing: Sendable, JSONWritable {
        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.endObject()
        }
    }
}
