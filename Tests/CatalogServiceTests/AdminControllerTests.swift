import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// The operators' routes and their token.
extension CatalogServiceTests {
    @Test func adminRoutesNeedTheAdminToken() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let status = try await client.execute(uri: "/admin/books", method: .post, body: ByteBuffer(string: "x")) { $0.status }
            #expect(status == .unauthorized)
        }
    }
}
