import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

/// `PostgresCell.strings()` reads a `text[]` from PostgreSQL's binary format itself: for every shape PostgreSQL sends,
/// the same strings as PostgresNIO's own decoding, or that decoding's own answer for what it does not read.
@Suite struct PostgresCellStringsTests {
    @Test func aTextArrayReadsAsPostgresNIOReadsIt() async throws {
        let url = try await TestDatabase.create(prefix: "cells")
        let arrays = [
            "'{}'::text[]", "ARRAY['one']", "ARRAY['', 'two words', 'Ünïcödé ✓', 'quote \" and \\ backslash']",
            "ARRAY(SELECT 'word ' || g FROM generate_series(1, 300) g)", "'{x,y}'::varchar[]",
        ]
        let rows = try await TestDatabase.withClient(url) { client, logger in
            var rows: [([String], [String])] = []
            for array in arrays {
                for try await row in try await client.query(PostgresQuery(unsafeSQL: "SELECT \(array), \(array)"), logger: logger) {
                    let cells = row.makeRandomAccess()
                    rows.append((try cells[0].strings(), try cells[1].decode([String].self)))
                }
            }
            return rows
        }
        #expect(rows.count == arrays.count)
        for (read, expected) in rows { #expect(read == expected) }
        #expect(rows[3].0.count == 300 && rows[2].0[2] == "Ünïcödé ✓")
    }

    /// A two-dimensional array, one with a NULL or one that does not start at 1 is left to PostgresNIO (which refuses them).
    @Test func whatItDoesNotReadIsPostgresNIOsToAnswer() async throws {
        let url = try await TestDatabase.create(prefix: "cells")
        let outcomes = try await TestDatabase.withClient(url) { client, logger in
            var outcomes: [Bool] = []
            for array in ["'{{a,b},{c,d}}'::text[]", "ARRAY['a', NULL]", "'[0:1]={a,b}'::text[]"] {
                for try await row in try await client.query(PostgresQuery(unsafeSQL: "SELECT \(array)"), logger: logger) {
                    let cell = row.makeRandomAccess()[0]
                    outcomes.append((try? cell.strings()) == (try? cell.decode([String].self)))
                }
            }
            return outcomes
        }
        #expect(outcomes == [true, true, true])
    }
}
