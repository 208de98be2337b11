package archive

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"pbem/notation"
)

// RecentGames returns up to limit games whose status is one of statuses,
// the most recently changed first, of the games anyone may see (Shown):
// for the web pages' lists.
func (s *Store) RecentGames(ctx context.Context, statuses []string, limit int) ([]*Game, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = 100
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(statuses)), ", ")
	args := make([]any, 0, len(statuses)+1)
	for _, st := range statuses {
		args = append(args, st)
	}
	args = append(args, limit)
	return s.games(ctx, s.db, `SELECT `+gameColumns+` FROM games
WHERE status IN (`+marks+`) AND `+s.shownGame()+` ORDER BY updated DESC, id DESC LIMIT ?`, args...)
}

// shownGame is the SQL condition of Shown on a row of games.
func (s *Store) shownGame() string {
	return notPrivate(s.pg, "games.options") + `
AND NOT EXISTS (SELECT 1 FROM seats st WHERE st.game_id = games.id AND st.joined = 0
	AND lower(trim(st.address)) = lower(trim(COALESCE(` + jsonText(s.pg, "games.options", "inviter") + `, ''))))`
}

// jsonText is the SQL of the text value of a key of a JSON object column
// (NULL when it has none); json_extract on SQLite, ->> on PostgreSQL,
// comparing by bytes as the text columns do.
func jsonText(pg bool, column, key string) string {
	if pg {
		return "((" + column + "::jsonb ->> '" + key + "') COLLATE \"C\")"
	}
	return "json_extract(" + column + ", '$." + key + "')"
}

// jsonText is the package's jsonText on the store's backend.
func (s *Store) jsonText(column, key string) string { return jsonText(s.pg, column, key) }

// notPrivate is the SQL condition that the options column of a game do
// not make it private. SQLite's json_extract gives JSON's true as 1.
func notPrivate(pg bool, column string) string {
	if pg {
		return "COALESCE((" + column + "::jsonb -> 'private') = 'true'::jsonb, false) = false"
	}
	return "COALESCE(json_extract(" + column + ", '$.private'), 0) = 0"
}

// Shown reports whether anyone may see a referee game (on the web): a
// game created private is seen by its players and confirmed watchers
// only, and a request its inviter has not confirmed by token by no one
// (nobody but the inviter has heard of it).
func Shown(g *Game) bool {
	if g.Options.Private {
		return false
	}
	if g.Options.Inviter == "" {
		return true
	}
	for _, st := range g.Seats {
		if strings.EqualFold(strings.TrimSpace(st.Player.Addr), strings.TrimSpace(g.Options.Inviter)) {
			return st.Joined
		}
	}
	return true
}

// publicEntry is the SQL condition of Filter.Public on an archive row a:
// an imported game, or a referee game not created private.
func publicEntry(pg bool) string {
	return `NOT EXISTS (SELECT 1 FROM games g WHERE g.id = a.game_id
	AND NOT (` + notPrivate(pg, "g.options") + `))`
}

// ShownTournamentsNamed is TournamentsNamed for the web: the tournaments
// of the name that their director has confirmed by token, those taking
// entries (Entering), running or finished. One only asked for (by anyone,
// under any name) is not shown beside an event's real games.
func (s *Store) ShownTournamentsNamed(ctx context.Context, event string) ([]*Tournament, error) {
	ts, err := s.TournamentsNamed(ctx, event)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ts, func(t *Tournament) bool {
		return t.Status != Entering && t.Status != Running && t.Status != Finished
	}), nil
}

// PublicName is how the web names a player from a seat's name or a tag
// value: the display name of "Name <addr>", never an address. A value that
// is only an address, or a name that holds one, gives the address's local
// part ("carol"), as the referee's mails to non-players do; no name at all
// gives "anonymous". The name is normalised first (NameForm), so that
// names that look alike are one name.
func PublicName(v string) string {
	v = NameForm(v)
	addr := ""
	if i := strings.LastIndexByte(v, '<'); i >= 0 && strings.HasSuffix(v, ">") {
		addr = strings.Trim(v[i:], "<>")
		v = strings.Trim(strings.TrimSpace(v[:i]), `"`)
	}
	v = strings.Join(strings.Fields(v), " ")
	switch {
	case strings.Contains(v, "@") && !strings.ContainsAny(v, " "):
		addr, v = v, ""
	case strings.Contains(v, "@"):
		v = ""
	}
	if v == "" || v == "?" || v == "-" {
		if local, _, ok := strings.Cut(addr, "@"); ok && local != "" {
			return local
		}
		return "anonymous"
	}
	return v
}

// PublicTag is a tag value as a stranger may see it (NameForm): a mailbox
// (a player) gives its public name (PublicName), and any other address in
// the text its local part (PublicText).
func PublicTag(v string) string {
	v = NameForm(v)
	if !strings.Contains(v, "@") {
		return v
	}
	if strings.HasSuffix(v, ">") || !strings.Contains(v, " ") {
		return PublicName(v)
	}
	return PublicText(v)
}

// mailboxRE finds what PublicText replaces: "<addr>" (with the spaces
// before it) and bare addresses.
var mailboxRE = regexp.MustCompile(`\s*<[^<>\s]*@[^<>\s]*>|[^\s<>{}()\[\]"',;:@]+@[^\s<>{}()\[\]"',;:]*[^\s<>{}()\[\]"',;:.!?]`)

// PublicText is a free text (a comment, a tag) as a stranger may see it
// (NameForm) with its addresses replaced: "Name <addr>" keeps the name, a
// bare address gives its local part, as PublicName names a player.
func PublicText(s string) string {
	s = NameForm(s)
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range mailboxRE.FindAllStringIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		t := strings.TrimSpace(s[m[0]:m[1]])
		if strings.HasPrefix(t, "<") {
			if strings.TrimSpace(s[:m[0]]) != "" {
				continue // "Name <addr>": the name stays
			}
			t = strings.Trim(t, "<>")
		}
		local, _, _ := strings.Cut(t, "@")
		if local == "" {
			local = "anonymous"
		}
		if m[0] > 0 && strings.TrimSpace(s[m[0]:m[1]]) != s[m[0]:m[1]] {
			b.WriteByte(' ')
		}
		b.WriteString(local)
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchPublicText is matchText over the tags as a stranger sees them
// (PublicTag): Filter.Public searches no address.
func matchPublicText(fd *Found, words []string) bool {
	if len(words) == 0 {
		return true
	}
	vals := make([]string, len(fd.Tags))
	for i, t := range fd.Tags {
		vals[i] = strings.ToLower(PublicTag(t.Value))
	}
	for _, w := range words {
		w = strings.ToLower(NameForm(w))
		found := false
		for _, v := range vals {
			if strings.Contains(v, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// NameForm normalises a name as written: white space becomes a space,
// control and format characters (bidirectional controls, zero-width
// marks) are dropped, and the rest takes its NFKC form (full-width and
// other compatibility letters become the plain ones).
func NameForm(v string) string {
	plain := true // printable ASCII is its own NFKC form
	for i := 0; i < len(v) && plain; i++ {
		plain = v[i] >= ' ' && v[i] <= '~'
	}
	if plain {
		return strings.TrimSpace(v)
	}
	v = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Bidi_Control, r):
			return -1
		}
		return r
	}, v)
	return strings.TrimSpace(norm.NFKC.String(v))
}

// GameStamp is a game's id and version at a moment (Changed).
type GameStamp struct {
	ID      int64
	Version int64
	Updated time.Time
}

// Changed returns the id and version of every game changed at or after
// since, by time of change: a poller that remembers the versions it saw
// learns of every commit.
func (s *Store) Changed(ctx context.Context, since time.Time) ([]GameStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, version, updated FROM games WHERE updated >= ? ORDER BY updated, id`, unix(since))
	if err != nil {
		return nil, fmt.Errorf("archive: changed: %w", err)
	}
	defer rows.Close()
	var out []GameStamp
	for rows.Next() {
		var st GameStamp
		var updated int64
		if err := rows.Scan(&st.ID, &st.Version, &updated); err != nil {
			return nil, fmt.Errorf("archive: changed: %w", err)
		}
		st.Updated = fromUnix(updated)
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: changed: %w", err)
	}
	return out, nil
}

// Entry returns the archived game with the archive id, or ErrNotFound.
func (s *Store) Entry(ctx context.Context, id int64) (Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM archive WHERE id = ?`, id)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Entry{}, fmt.Errorf("archive: entry: %w", err)
		}
		return Entry{}, ErrNotFound
	}
	e, err := scanEntry(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	return e, nil
}

// RatingPoint is a player's rating after one rated game.
type RatingPoint struct {
	// EntryID is the archived game; Date its Date tag.
	EntryID int64
	Date    string
	Rating  float64
}

// RatingHistory is how one player's rating in one game moved.
type RatingHistory struct {
	Game string
	// Name and Key as in Rating.
	Name, Key string
	// Points in the order Ratings applies the games.
	Points []RatingPoint
}

// RatingHistories computes, as Ratings does, every player's rating after
// each of their rated games, per game id, from the games f selects (the
// web's: f.Public): by game id, then player name.
func (s *Store) RatingHistories(ctx context.Context, lookup notation.Lookup, f Filter) ([]*RatingHistory, error) {
	byGame := map[string][]ratedGame{}
	dates := map[int64]string{}
	nms := map[string]*names{}
	err := s.Query(ctx, lookup, f, func(fd *Found) error {
		if !fd.Rated {
			return nil
		}
		ps := pairings(fd)
		if len(ps) == 0 {
			return nil
		}
		rg := ratedGame{id: fd.ID, day: day(fd.Date), pairs: ps}
		for _, p := range ps {
			for _, k := range []string{p.A, p.B} {
				if !slices.Contains(rg.seats, k) {
					rg.seats = append(rg.seats, k)
				}
			}
		}
		byGame[fd.Game] = append(byGame[fd.Game], rg)
		dates[fd.ID] = fd.Date
		if nms[fd.Game] == nil {
			nms[fd.Game] = &names{}
		}
		nms[fd.Game].see(fd)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*RatingHistory
	for id, games := range byGame {
		slices.SortStableFunc(games, func(a, b ratedGame) int {
			if c := strings.Compare(a.day, b.day); c != 0 {
				return c
			}
			return int(a.id - b.id)
		})
		display := nms[id].resolve()
		players := map[string]*Rating{}
		hist := map[string]*RatingHistory{}
		for _, g := range games {
			rate(players, g)
			for _, k := range g.seats {
				h := hist[k]
				if h == nil {
					h = &RatingHistory{Game: id, Name: display[k], Key: k}
					hist[k] = h
					out = append(out, h)
				}
				h.Points = append(h.Points, RatingPoint{EntryID: g.id, Date: dates[g.id], Rating: players[k].Rating})
			}
		}
	}
	slices.SortFunc(out, func(a, b *RatingHistory) int {
		if c := strings.Compare(a.Game, b.Game); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, nil
}

// nameKey is a name as Filter.Name compares it.
func nameKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(NameForm(name)), " "))
}

// namedSide reports whether the public name of one side of fd starts with
// k, a name as nameKey gives it (Filter.Name).
func namedSide(fd *Found, k string) bool {
	for _, sd := range fd.Sides {
		if strings.HasPrefix(strings.ToLower(PublicName(sd.Player)), k) {
			return true
		}
	}
	return false
}

// nameQuery is the full-text query that finds a superset of the games
// Filter.Name selects, for a name of plain letters, digits and single
// spaces, which a tag holds as written; none for another name (namedSide
// then reads every game).
func nameQuery(name string) (matchTerm, bool) {
	k := nameKey(name)
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == ' ' || r == '.' || r == '-' || r == '_' || r == '\'') {
			return matchTerm{}, false
		}
	}
	return matchQuery("players", k)
}
