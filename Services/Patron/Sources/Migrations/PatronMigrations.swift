import PostgresSupport

/// The patron database: one migration per schema change (`Migration<version><name>.swift`), then the functions and
/// triggers its SQL calls (`Functions/`), each in its current version.
enum PatronMigration {}
enum PatronFunction {}

let patronSchema = Schema(
    migrations: [
        PatronMigration.patronsAndSessions, PatronMigration.circulation, PatronMigration.reading, PatronMigration.coversOnMyBooks,
        PatronMigration.signInThrottlingByLoginPairAndAddress,
        PatronMigration.shelfChangesForCatalogsCopy, PatronMigration.signUpsPerAddress, PatronMigration.shelfVersionsFromASequence,
        PatronMigration.loanHistoryByPatron, PatronMigration.holdSuspension,
        PatronMigration.loanHistoryByBook, PatronMigration.figuresWorkedOutAfterTheChange, PatronMigration.idempotencyKeys,
        PatronMigration.koreaderSync, PatronMigration.mail, PatronMigration.liveEvents, PatronMigration.staffSide, PatronMigration.circulationEvents,
        PatronMigration.emailUniqueOnceConfirmed, PatronMigration.loanHistoryMayLoseItsPatron, PatronMigration.patronsOfTheLibrarysILS,
        PatronMigration.singleSignOn, PatronMigration.bookAudiences, PatronMigration.purchaseSuggestions,
        PatronMigration.syncKeysThroughSingleSignOn,
    ],
    functions: [PatronFunction.shelfChangesFollow, PatronFunction.shelfChangesOfPatron, PatronFunction.patronEventsRecorded],
    squashedThrough: 12
)
