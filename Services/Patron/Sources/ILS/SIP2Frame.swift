import Foundation

/// SIP2's wire format (3M Standard Interchange Protocol 2.00): a message is a two-digit command, fixed-length fields,
/// then variable fields each named by two letters and ended by `|`, optionally the error-detection trailer
/// (`AY` sequence number, `AZ` checksum), and a carriage return.
enum SIP2Frame {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// A request's bytes. `sequence` adds the error-detection trailer: `AY<n>AZ<checksum>`.
    static func encode(
        command: String,
        fixed: String,
        fields: [(code: String, value: String)],
        sequence: Int?,
        encoding: SIP2Encoding
    ) -> [UInt8] {
        // A `|` or carriage return inside a value would end the field or the message early.
        let text = command + fixed + fields.map { $0.code + clean($0.value) + "|" }.joined()
        var bytes = encoding.encode(text)
        if let sequence {
            bytes += Array("AY\(sequence % 10)AZ".utf8)
            bytes += Array(checksum(bytes).utf8)
        }
        return bytes + [UInt8(ascii: "\r")]
    }

    /// The two's complement of the low 16 bits of the bytes' sum, as four upper-case hex digits.
    static func checksum(_ bytes: [UInt8]) -> String {
        let sum = bytes.reduce(UInt16(0)) { $0 &+ UInt16($1) }
        let value = ~sum &+ 1
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }

    private static func clean(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "|" && $0 != "\r" && $0 != "\n" && $0.value != 0 }.map(Character.init))
    }

    /// A reply: its command, its fixed part (`fixedLength` characters after the command) and its variable fields in
    /// order (a field may repeat: screen messages, items). A checksum, when the reply has one, must hold.
    struct Reply: Sendable, Equatable {
        let command: String
        let fixed: String
        let fields: [Field]

        struct Field: Sendable, Equatable {
            let code: String
            let value: String
        }

        /// The first value of a field.
        subscript(code: String) -> String? { fields.first { $0.code == code }?.value }
        /// Every value of a repeatable field.
        func all(_ code: String) -> [String] { fields.filter { $0.code == code }.map(\.value) }

        /// The fixed field at `offset` (after the command) of `length` characters.
        func fixed(_ offset: Int, _ length: Int) -> String {
            let characters = Array(fixed)
            guard offset >= 0, offset + length <= characters.count else { return "" }
            return String(characters[offset..<(offset + length)])
        }
    }

    /// Parses a reply (with or without its carriage return) whose fixed part is `fixedLength` characters long.
    static func parse(_ frame: [UInt8], fixedLength: Int, encoding: SIP2Encoding) throws -> Reply {
        var bytes = frame
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") { bytes.removeLast() }
        // The trailer: `AY<digit>AZ<4 hex>` at the very end.
        if bytes.count >= 9, bytes[bytes.count - 6] == UInt8(ascii: "A"), bytes[bytes.count - 5] == UInt8(ascii: "Z") {
            let sent = String(decoding: bytes.suffix(4), as: UTF8.self)
            let counted = checksum(Array(bytes.dropLast(4)))
            guard sent.uppercased() == counted else { throw Malformed(description: "checksum \(sent) does not match \(counted)") }
            let trailer = bytes.count - 9
            guard bytes[trailer] == UInt8(ascii: "A"), bytes[trailer + 1] == UInt8(ascii: "Y") else {
                throw Malformed(description: "a checksum without its sequence number")
            }
            bytes.removeLast(9)
        }
        let text = encoding.decode(bytes)
        guard text.count >= 2 + fixedLength else { throw Malformed(description: "a reply of \(text.count) characters is too short") }
        let command = String(text.prefix(2))
        guard command.allSatisfy(\.isASCII), command.allSatisfy(\.isNumber) else {
            throw Malformed(description: "no command at the reply's start")
        }
        let fixed = String(text.dropFirst(2).prefix(fixedLength))
        var fields: [Reply.Field] = []
        for piece in text.dropFirst(2 + fixedLength).split(separator: "|", omittingEmptySubsequences: true) {
            guard piece.count >= 2 else { continue }
            fields.append(Reply.Field(code: String(piece.prefix(2)), value: String(piece.dropFirst(2))))
        }
        return Reply(command: command, fixed: fixed, fields: fields)
    }
}
