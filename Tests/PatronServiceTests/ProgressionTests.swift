import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// OPDS Progression's refusals against PostgreSQL (a kept progression, and the same position read by the web reader
/// and KOReader, are in `KOReaderSyncTests` with the three services).
@Suite struct ProgressionTests {
    @Test func aProgressionIsCheckedBeforeAnythingIsKept() async throws {
        try await KOSyncTests.app("progression").testRouter { client in
            let api = PatronTestClient(client: client)
            let (lent, other) = (UUID(), UUID())
            try await api.license(lent, copies: 1)
            try await api.license(other, copies: 1)
            let ann = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(lent)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.get, "/me/books/\(lent)/progression", patron: ann).status == .noContent)
            func put(_ book: UUID, _ json: String) async throws -> PatronTestClient.Reply {
                try await api.call(.put, "/me/books/\(book)/progression", patron: ann, json: json)
            }
            let good =
                #"{"modified": "2026-01-27T11:00:00Z", "device": {"id": "urn:uuid:019c0047-cc8d-7ec4-a3c3-938ccadc020a", "name": "Reader"}, "progression": 0.25}"#
            #expect(try await put(lent, good.replacingOccurrences(of: "0.25", with: "1.5")).status == .badRequest)
            #expect(
                try await put(lent, good.replacingOccurrences(of: "urn:uuid:019c0047-cc8d-7ec4-a3c3-938ccadc020a", with: "phone")).status
                    == .badRequest
            )
            #expect(try await put(lent, good.replacingOccurrences(of: "2026-01-27", with: "2099-01-27")).status == .badRequest, "a clock far ahead")
            #expect(try await put(lent, #"{"progression": 0.25}"#).status == .badRequest)
            #expect(try await put(other, good).status == .forbidden, "not borrowed")
            let away = try await put(lent, good)
            #expect(away.status == .serviceUnavailable && away.headers[.retryAfter] != nil, "no catalog to read the reading order from")
            #expect(try await api.call(.get, "/me/books/\(lent)/progression", patron: ann).status == .noContent, "nothing kept")
            #expect(try await api.call(.get, "/me/books/\(lent)/progression").status == .unauthorized)
        }
    }
}
