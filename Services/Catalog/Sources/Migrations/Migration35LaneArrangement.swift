import PostgresSupport

extension CatalogMigration {
    // The order of the root and grouped feeds' lanes as staff arrange them, and the lanes they hide: the fixed lanes,
    // the genres (`genre-<slug>`) and the featured staff lists (`list-<id>`). A lane not named here keeps its place
    // after the named ones, in the default order.
    static let laneArrangement = Migration(
        version: 35,
        name: "lane arrangement",
        sql: """
            CREATE TABLE lane_arrangement (
                slug text PRIMARY KEY,
                position integer NOT NULL,
                hidden boolean NOT NULL DEFAULT false
            );
            """
    )
}
