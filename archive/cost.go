package archive

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a search's words (Filter.Text): each word is a full-text
// phrase and a scan of every tag of every game the index finds, so a
// query of thousands of words costs seconds of CPU per request.
const (
	// MaxSearchWords is how many different words a search may have.
	MaxSearchWords = 8
	// MaxSearchWordLen is the longest word, in characters.
	MaxSearchWordLen = 64
)

// searchWords is the words a search looks for: each once (compared as the
// search compares, case-insensitively), in the order first given, and
// blank ones dropped. More than MaxSearchWords different words, or a word
// longer than MaxSearchWordLen characters, is an error that says so.
func searchWords(words []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			continue
		}
		if n := utf8.RuneCountInString(w); n > MaxSearchWordLen {
			return nil, fmt.Errorf("archive: search word %.20q... has %d characters; expected at most %d", w, n, MaxSearchWordLen)
		}
		k := strings.ToLower(w)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, w)
	}
	if len(out) > MaxSearchWords {
		return nil, fmt.Errorf("archive: search of %d different words; expected at most %d", len(out), MaxSearchWords)
	}
	return out, nil
}

// Stamp sums up what the store holds for its readers (the web pages): it
// changes with every write of a game, a seat, a player, a tournament (its
// players, games, byes and rounds), and with every game archived, by this
// process or any other. Pages computed from the whole archive (crosstables,
// ratings) are kept while the stamp stays the same.
type Stamp struct {
	// Archive is the last archive id (the archive is only appended to).
	Archive int64
	// Changes counts the writes of the other tables the pages read: the
	// triggers of stampSchema raise it in the writing transaction.
	Changes int64
}

// stampTables are the tables whose every write moves the stamp. The
// archive is not among them: it is only appended to, and its last id is
// read from its primary key.
var stampTables = []string{"games", "seats", "players", "observers",
	"tournaments", "tournament_players", "tournament_games", "tournament_byes", "tournament_rounds"}

// stampSchema keeps one counter row that a trigger on each of stampTables
// raises by one per statement kind and row, so that reading the stamp
// costs two lookups, not a scan of every game (36 ms at 20,000 games when
// it summed their versions).
var stampSchema = func() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE stamp (id INTEGER PRIMARY KEY CHECK (id = 1), changes INTEGER NOT NULL);\n")
	b.WriteString("INSERT INTO stamp (id, changes) VALUES (1, 0);\n")
	for _, t := range stampTables {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			fmt.Fprintf(&b, "CREATE TRIGGER stamp_%s_%s AFTER %s ON %s BEGIN UPDATE stamp SET changes = changes + 1 WHERE id = 1; END;\n",
				t, strings.ToLower(op), op, t)
		}
	}
	return b.String()
}()

// pgStampSchema is stampSchema on PostgreSQL: the triggers call one
// function, per row as SQLite's do.
var pgStampSchema = func() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE stamp (id BIGINT PRIMARY KEY CHECK (id = 1), changes BIGINT NOT NULL);\n")
	b.WriteString("INSERT INTO stamp (id, changes) VALUES (1, 0);\n")
	b.WriteString("CREATE FUNCTION stamp_raise() RETURNS trigger LANGUAGE plpgsql AS $$\n" +
		"BEGIN\n\tUPDATE stamp SET changes = changes + 1 WHERE id = 1;\n\tRETURN NULL;\nEND $$;\n")
	for _, t := range stampTables {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			fmt.Fprintf(&b, "CREATE TRIGGER stamp_%s_%s AFTER %s ON %s FOR EACH ROW EXECUTE FUNCTION stamp_raise();\n",
				t, strings.ToLower(op), op, t)
		}
	}
	return b.String()
}()

// Stamp reads the store's stamp: two lookups by primary key.
func (s *Store) Stamp(ctx context.Context) (Stamp, error) {
	var st Stamp
	err := s.db.QueryRowContext(ctx, `SELECT
	(SELECT COALESCE(MAX(id), 0) FROM archive),
	(SELECT changes FROM stamp WHERE id = 1)`).
		Scan(&st.Archive, &st.Changes)
	if err != nil {
		return Stamp{}, fmt.Errorf("archive: stamp: %w", err)
	}
	return st, nil
}
