import PostgresNIO

extension PostgresClient {
    /// `body`'s result while the client's pool runs beside it, stopped after: the frame of a one-off command (a bulk
    /// ingest, a backup, a restore), which has no service group to run it.
    public func whileRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
