import Foundation
import Logging
import NIOCore

/// Asks the library's ILS about a card and PIN over SIP2. Connections are kept open and reused (`SIP2_CONNECTIONS` at
/// most; a caller past that waits for one), each logged in (`93`) once when opened. A kept connection the ILS has
/// closed meanwhile is replaced and the question asked again once. Anything else (no connection, a timeout, a refused
/// terminal login, a reply that makes no sense) is `ILSUnavailable`. Logs every exchange without the PIN.
actor SIP2Client {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    let settings: SIP2Settings
    private var idle: [SIP2Connection] = []
    private var opened = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var sequence = 0

    init(settings: SIP2Settings) { self.settings = settings }

    /// What the ILS says of `card` and `pin`.
    func patron(card: String, pin: String, logger: Logger) async throws -> ILSPatron {
        let message = request(card: card, pin: pin)
        let started = ContinuousClock.now
        let shown = Self.masked(card)
        do {
            let reply = try await exchange(message, fixedLength: settings.patronMessage == .patronInformation ? 59 : 35, logger: logger)
            guard reply.command == (settings.patronMessage == .patronInformation ? "64" : "24") else {
                throw Unavailable(description: "the ILS answered \(reply.command)")
            }
            let patron = ILSPatron(reply: reply)
            logger.info(
                "SIP2 patron check",
                metadata: [
                    "sip2.card": "\(shown)", "sip2.valid_patron": "\(patron.validPatron)", "sip2.valid_pin": "\(patron.validPIN)",
                    "sip2.blocked": "\(patron.blockReason != nil)", "duration_ms": "\(Self.milliseconds(since: started))",
                ]
            )
            return patron
        } catch {
            logger.warning(
                "SIP2 patron check failed",
                metadata: ["sip2.card": "\(shown)", "error": "\(error)", "duration_ms": "\(Self.milliseconds(since: started))"]
            )
            throw error as? Unavailable ?? Unavailable(description: "\(error)")
        }
    }

    private func request(card: String, pin: String) -> [(code: String, value: String)] {
        [("AO", settings.institution), ("AA", card), ("AC", settings.terminalPassword), ("AD", pin)]
    }

    private func exchange(_ fields: [(code: String, value: String)], fixedLength: Int, logger: Logger) async throws -> SIP2Frame.Reply {
        let (command, fixed) =
            settings.patronMessage == .patronInformation
            ? ("63", "000" + Self.transactionDate() + String(repeating: " ", count: 10)) : ("23", "000" + Self.transactionDate())
        // A kept connection may have been closed by the ILS since (idle timeouts): then once more on a new one.
        for attempt in 0..<2 {
            let (connection, reused) = try await take(logger: logger)
            do {
                let bytes = try await connection.exchange(frame(command, fixed, fields), timeout: .seconds(Int64(settings.timeout)))
                let reply = try SIP2Frame.parse(bytes, fixedLength: fixedLength, encoding: settings.encoding)
                give(back: connection)
                return reply
            } catch let failure as SIP2Connection.Failure where failure == .closed && reused && attempt == 0 {
                discard(connection)
            } catch {
                discard(connection)
                throw error
            }
        }
        throw Unavailable(description: "the ILS closed two connections in a row")
    }

    private func frame(_ command: String, _ fixed: String, _ fields: [(code: String, value: String)]) -> [UInt8] {
        sequence = (sequence + 1) % 10
        return SIP2Frame.encode(
            command: command,
            fixed: fixed,
            fields: fields,
            sequence: settings.checksums ? sequence : nil,
            encoding: settings.encoding
        )
    }

    /// A connection: a kept one, a new one (logged in) while fewer than `connections` are open, else the next given back.
    private func take(logger: Logger) async throws -> (SIP2Connection, reused: Bool) {
        while true {
            while let kept = idle.popLast() {
                if kept.isActive { return (kept, true) }
                discard(kept)
            }
            if opened < settings.connections {
                opened += 1
                do {
                    return (try await openLoggedIn(logger: logger), false)
                } catch {
                    opened -= 1
                    wakeOne()
                    throw error
                }
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    private func openLoggedIn(logger: Logger) async throws -> SIP2Connection {
        let timeout = TimeAmount.seconds(Int64(settings.timeout))
        let connection = try await SIP2Connection.open(host: settings.host, port: settings.port, tls: settings.tls, timeout: timeout)
        guard let login = settings.login else { return connection }
        do {
            let fields: [(code: String, value: String)] = [("CN", login), ("CO", settings.password), ("CP", settings.locationCode)]
            let bytes = try await connection.exchange(frame("93", "00", fields), timeout: timeout)
            let reply = try SIP2Frame.parse(bytes, fixedLength: 1, encoding: settings.encoding)
            guard reply.command == "94", reply.fixed == "1" else {
                logger.error("The ILS refused the SIP2 terminal login", metadata: ["sip2.login": "\(login)"])
                throw Unavailable(description: "the ILS refused the terminal login \(login) (SIP2_LOGIN, SIP2_PASSWORD)")
            }
            return connection
        } catch {
            connection.close()
            throw error
        }
    }

    private func give(back connection: SIP2Connection) {
        idle.append(connection)
        wakeOne()
    }

    private func discard(_ connection: SIP2Connection) {
        connection.close()
        opened -= 1
        wakeOne()
    }

    private func wakeOne() {
        if !waiting.isEmpty { waiting.removeFirst().resume() }
    }

    /// `YYYYMMDDZZZZHHMMSS`: the local date, four spaces for the zone, the time.
    private static func transactionDate() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd'    'HHmmss"
        return formatter.string(from: Date())
    }

    /// A card number as logs show it: its last four digits.
    static func masked(_ card: String) -> String { "…" + String(card.suffix(4)) }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
