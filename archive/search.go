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

// matchQuery is the full-text query that finds every game with the
// (lower-cased) word in the column: a trigram phrase, which selects the
// texts that hold the word. Words shorter than three characters make no
// trigram: they are left to the exact comparison (ok false).
func matchQuery(column, word string) (string, bool) {
	if utf8.RuneCountInString(word) < 3 {
		return "", false
	}
	return "{" + column + "} : \"" + strings.ReplaceAll(word, `"`, `""`) + "\"", true
}
