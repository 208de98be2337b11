package archive

import (
	"strings"
	"unicode/utf8"
)

// searchSchema (migration 6): archive.canonical marks a record an import
// stored as it checked it (its canonical form), which export writes as
// stored; archive_search is a trigram index of the lower-cased tag values
// and player keys of every archived game (its rowid the archive id), which
// search and --player read instead of every row; archive_index_day serves
// --since. Every row is indexed again (archive_unindexed) to fill the new
// index.
const searchSchema = `
ALTER TABLE archive ADD COLUMN canonical INTEGER NOT NULL DEFAULT 0;
CREATE VIRTUAL TABLE archive_search USING fts5(tags, players, tokenize = 'trigram case_sensitive 1');
CREATE INDEX archive_index_day ON archive_index(day) WHERE day != '';
INSERT OR IGNORE INTO archive_unindexed (entry_id) SELECT id FROM archive;
`

// pgSearchSchema is migration 6 on PostgreSQL, which has no fts5:
// archive_search is a table (its rowid column the archive id) that search
// reads with LIKE, indexed by pg_trgm's trigram GIN indexes when the
// extension can be had (it is in PostgreSQL's contrib, and trusted: a
// database owner may create it). Without it search reads every row of the
// table, and finds the same games.
const pgSearchSchema = `
ALTER TABLE archive ADD COLUMN canonical BIGINT NOT NULL DEFAULT 0;
CREATE TABLE archive_search (
	rowid   BIGINT PRIMARY KEY,
	tags    TEXT COLLATE "C" NOT NULL,
	players TEXT COLLATE "C" NOT NULL
);
DO $$
BEGIN
	CREATE EXTENSION IF NOT EXISTS pg_trgm;
	CREATE INDEX archive_search_tags ON archive_search USING gin (tags gin_trgm_ops);
	CREATE INDEX archive_search_players ON archive_search USING gin (players gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE 'pbem: no trigram index for search (%); search reads every row', SQLERRM;
END $$;
CREATE INDEX archive_index_day ON archive_index(day) WHERE day != '';
INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive ON CONFLICT DO NOTHING;
`

// searchTags is what archive_search holds of a game's tags: the values
// lower-cased as matchText compares them, one a line.
func searchTags(tags []Tag) string {
	var b strings.Builder
	for _, t := range tags {
		b.WriteString(strings.ToLower(t.Value))
		b.WriteByte('\n')
	}
	return b.String()
}

// searchPlayers is what archive_search holds of a game's sides: the
// lower-cased player tags the Player filter compares, one a line.
func searchPlayers(sides []Side) string {
	var b strings.Builder
	for _, sd := range sides {
		b.WriteString(strings.ToLower(sd.Player))
		b.WriteByte('\n')
	}
	return b.String()
}

// matchTerm is one condition of a search on archive_search: the column
// holds the (lower-cased) word.
type matchTerm struct {
	column, word string
}

// matchQuery is the term that finds every game with the (lower-cased) word
// in the column, by the trigram index. Words shorter than three characters
// make no trigram: they are left to the exact comparison (ok false).
func matchQuery(column, word string) (matchTerm, bool) {
	if utf8.RuneCountInString(word) < 3 {
		return matchTerm{}, false
	}
	return matchTerm{column, word}, true
}

// matchSQL is the condition on archive_search f that selects the games
// holding every term, and its arguments: on SQLite one fts5 query of
// trigram phrases, which select the texts that hold the words; on
// PostgreSQL a LIKE '%word%' per term, which the trigram indexes serve.
func (s *Store) matchSQL(terms []matchTerm) (string, []any) {
	if !s.pg {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = "{" + t.column + "} : \"" + strings.ReplaceAll(t.word, `"`, `""`) + "\""
		}
		return "archive_search MATCH ?", []any{strings.Join(q, " AND ")}
	}
	conds := make([]string, len(terms))
	args := make([]any, len(terms))
	for i, t := range terms {
		conds[i] = "f." + t.column + " LIKE ?" // escaped by \, LIKE's default
		args[i] = "%" + likeEscaper.Replace(t.word) + "%"
	}
	return strings.Join(conds, " AND "), args
}

// likeEscaper escapes the characters LIKE gives a meaning.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
