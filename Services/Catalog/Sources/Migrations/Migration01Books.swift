import PostgresSupport

extension CatalogMigration {
    static let books = Migration(
        version: 1,
        name: "books",
        sql: """
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            CREATE EXTENSION IF NOT EXISTS unaccent;
            CREATE FUNCTION immutable_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
                AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
            CREATE FUNCTION immutable_join(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
                AS $$ SELECT array_to_string($1, ' ') $$;
            CREATE TABLE books (
                id uuid PRIMARY KEY,
                title text NOT NULL,
                subtitle text,
                sort_title text NOT NULL,
                sort_author text NOT NULL DEFAULT '',
                authors text[] NOT NULL DEFAULT '{}',
                contributors jsonb NOT NULL DEFAULT '[]',
                languages text[] NOT NULL DEFAULT '{}',
                publisher text,
                published text,
                description text,
                subjects text[] NOT NULL DEFAULT '{}',
                genres text[] NOT NULL DEFAULT '{}',
                isbn text UNIQUE,
                identifiers text[] NOT NULL DEFAULT '{}',
                series text,
                series_position double precision,
                page_progression text,
                fixed_layout boolean NOT NULL DEFAULT false,
                word_count integer NOT NULL DEFAULT 0,
                reading_minutes integer NOT NULL DEFAULT 0,
                epub_sha256 text NOT NULL UNIQUE,
                epub_size bigint NOT NULL,
                cover_sha256 text,
                cover_type text,
                toc jsonb NOT NULL DEFAULT '[]',
                page_list jsonb NOT NULL DEFAULT '[]',
                landmarks jsonb NOT NULL DEFAULT '[]',
                reading_order jsonb NOT NULL DEFAULT '[]',
                resources jsonb NOT NULL DEFAULT '[]',
                warnings text[] NOT NULL DEFAULT '{}',
                open_access boolean NOT NULL DEFAULT false,
                featured boolean NOT NULL DEFAULT false,
                staff_pick boolean NOT NULL DEFAULT false,
                copies integer NOT NULL DEFAULT 1 CHECK (copies >= 0),
                copies_available integer NOT NULL DEFAULT 1,
                holds integer NOT NULL DEFAULT 0,
                checkouts integer NOT NULL DEFAULT 0,
                rating_average double precision,
                rating_count integer NOT NULL DEFAULT 0,
                figures_version bigint NOT NULL DEFAULT 0,
                license_version bigint NOT NULL DEFAULT 1,
                edition integer NOT NULL DEFAULT 1,
                added_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                withdrawn_at timestamptz,
                search tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', immutable_unaccent(coalesce(title, '') || ' ' || coalesce(subtitle, ''))), 'A') ||
                    setweight(to_tsvector('simple', immutable_unaccent(immutable_join(authors) || ' ' || coalesce(series, ''))), 'B') ||
                    setweight(to_tsvector('simple', immutable_unaccent(immutable_join(subjects))), 'C') ||
                    setweight(to_tsvector('simple', immutable_unaccent(coalesce(description, ''))), 'D')) STORED
            );
            CREATE INDEX books_search ON books USING gin (search);
            CREATE INDEX books_title_trgm ON books USING gin (immutable_unaccent(lower(title)) gin_trgm_ops);
            CREATE INDEX books_added ON books (added_at DESC, id);
            CREATE INDEX books_sort_title ON books (sort_title, id);
            CREATE INDEX books_genres ON books USING gin (genres);
            """ + "\n" + OutboxPostgresRepository.migrationSQL
    )
}
