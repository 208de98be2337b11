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
// changes with every write of a game, of a tournament, and with every game
// archived, by this process or any other. Pages computed from the whole
// archive (crosstables, ratings) are kept while the stamp stays the same.
type Stamp struct {
	// Archive is the last archive id (the archive is only appended to).
	Archive int64
	// Games and Tournaments count the rows; their versions sum the
	// versions, which every write of a row raises.
	Games, GameVersions             int64
	Tournaments, TournamentVersions int64
}

// Stamp reads the store's stamp: a few aggregates, no record is decoded.
func (s *Store) Stamp(ctx context.Context) (Stamp, error) {
	var st Stamp
	err := s.db.QueryRowContext(ctx, `SELECT
	(SELECT COALESCE(MAX(id), 0) FROM archive),
	(SELECT COUNT(*) FROM games), (SELECT COALESCE(SUM(version), 0) FROM games),
	(SELECT COUNT(*) FROM tournaments), (SELECT COALESCE(SUM(version), 0) FROM tournaments)`).
		Scan(&st.Archive, &st.Games, &st.GameVersions, &st.Tournaments, &st.TournamentVersions)
	if err != nil {
		return Stamp{}, fmt.Errorf("archive: stamp: %w", err)
	}
	return st, nil
}
