import PostgresSupport

extension CatalogFunction {
    /// As migration 16 ("Catalogue words for typo correction") last wrote it; why it is so is said there.
    static let bookWords = DatabaseFunction(
        name: "book_words",
        sql: """
            CREATE OR REPLACE FUNCTION book_words(title text, subtitle text, authors text[], series text, subjects text[]) RETURNS SETOF text
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT lexeme FROM unnest(to_tsvector('simple', immutable_unaccent(coalesce(title, '') || ' ' || coalesce(subtitle, '')
                    || ' ' || immutable_join(authors) || ' ' || coalesce(series, '') || ' ' || immutable_join(subjects))))
                WHERE length(lexeme) BETWEEN 3 AND 64 AND lexeme ~ '^[[:alpha:]][[:alnum:]]*$'
                $$;
            """
    )
}
