import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The lanes' arrangement (migration 35): read by the root and grouped feeds, replaced whole by staff.
struct LaneArrangementPostgresRepository: Sendable {
    let client: PostgresClient

    func current(logger: Logger) async throws -> LaneArrangement {
        let rows = try await client.query("SELECT slug, hidden FROM lane_arrangement ORDER BY position", logger: logger)
        var placements: [LaneArrangement.Placement] = []
        for try await (slug, hidden) in rows.decode((String, Bool).self) { placements.append(.init(slug: slug, hidden: hidden)) }
        return LaneArrangement(placements: placements)
    }

    /// Replaces the arrangement in one transaction: readers see the old one or the new one.
    func replace(with arrangement: LaneArrangement, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("DELETE FROM lane_arrangement", logger: logger)
            let slugs = arrangement.placements.map(\.slug)
            let hidden = arrangement.placements.map(\.hidden)
            try await connection.query(
                """
                INSERT INTO lane_arrangement (slug, position, hidden)
                SELECT slug, position::int, hidden FROM unnest(\(slugs)::text[], \(hidden)::bool[]) WITH ORDINALITY AS a(slug, hidden, position)
                """,
                logger: logger
            )
        }
    }
}
