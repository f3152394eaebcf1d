import Foundation
import Logging
import Metrics
import Prometheus

/// Writes one logfmt line per message to standard error: `ts=… level=info msg="Loan opened" request.id=… book.id=…`.
public struct LogfmtLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var line = "ts=\(Date().formatted(.iso8601)) level=\(event.level) msg=\(Self.quote(event.message.description))"
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quote(merged[key]!.description))"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func quote(_ value: String) -> String {
        if !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || "-._:/@".contains($0) }) { return value }
        return "\""
            + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
