import PostgresSupport

/// The catalog database: one migration per schema change (`Migration<version><name>.swift`), then the functions and
/// triggers its SQL calls (`Functions/`), each in its current version, the lane pages' written from `Lane.fixed`,
/// `SortKey` and `AccessibilityFacet` (`LanePageFunctions`).
enum CatalogMigration {}
enum CatalogFunction {}

let catalogSchema = Schema(
    migrations: [
        CatalogMigration.books, CatalogMigration.indexesForEveryLaneSort, CatalogMigration.coverThumbnails,
        CatalogMigration.searchVectorStoredInTheRow, CatalogMigration.booksPerGenre,
        CatalogMigration.rasterCoversOnly, CatalogMigration.copiesOfPatronsShelves, CatalogMigration.whereCoversComeFrom,
        CatalogMigration.accessibilityAndPageCount, CatalogMigration.readerVersionOfEachBook,
        CatalogMigration.bookLists, CatalogMigration.rumSearchIndexWhereAvailable, CatalogMigration.ginSearchIndexAgainWithoutRUM,
        CatalogMigration.genreLanesInTitleOrderByIndex,
        CatalogMigration.popularityApartFromCheckoutsFiguresUpdatedInPlace, CatalogMigration.catalogueWordsForTypoCorrection,
        CatalogMigration.booksByCoverAndThumbnail,
        CatalogMigration.booksByWordInPopularityOrder, CatalogMigration.booksPerSearchWord,
        CatalogMigration.keptSearchEntriesInTheOrderOfAOneWordSearch,
        CatalogMigration.booksPerSearchWordInStripes, CatalogMigration.aBooksDescriptionKeptInItsRow,
        CatalogMigration.booksWithEachAccessibilityFacetIndexed,
        CatalogMigration.genreLanesInEveryOrderByIndex, CatalogMigration.featuredStaffPicksAndAccessibilityFacetsIndexedInEveryLaneOrder,
        CatalogMigration.genreLanesWithAnAccessibilityFacetInEveryOrderByIndex, CatalogMigration.functionsNoLongerCalled,
        CatalogMigration.koreaderDigestOfEachFile, CatalogMigration.laneArrangement, CatalogMigration.opdsImport, CatalogMigration.marcExports,
        CatalogMigration.bookFormatsAndDurations,
        CatalogMigration.bookAudiences,
    ],
    // In the order they were first written: a function some other calls comes first.
    functions: [
        CatalogFunction.genreCountsFollow, CatalogFunction.bookWords, CatalogFunction.rememberBookWords, CatalogFunction.searchPostingsOf,
        CatalogFunction.keepSearchPostings,
        CatalogFunction.keepSearchWordCounts, CatalogFunction.searchPostingsPage, CatalogFunction.searchKeptEntriesPage,
        CatalogFunction.searchWordPage, CatalogFunction.searchCorrectedPage,
        CatalogFunction.genreLaneBooksOf, CatalogFunction.keepGenreLaneBooks, CatalogFunction.genreLanePage, CatalogFunction.fixedLanePage,
        CatalogFunction.hiddenMatches,
    ],
    squashedThrough: 32
)
