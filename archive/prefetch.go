package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Prefetched is what a batch of requests reads before it is decided:
// which of its Message-IDs are processed, the players, rate-limit
// windows, active games, blocked state and main addresses of its
// senders, and the players and notes of those games, as the store held
// them when Prefetch read them. A later commit's checks (the processed
// Message-ID, the versions of games and players) catch a change made
// since.
type Prefetched struct {
	Seen    map[string]bool    // every Message-ID asked; true if processed
	Players map[string]*Player // by lower-case address; a zero Player for one not stored
	Senders map[string]*Sender // by lower-case address or window key; a zero window for one never seen
	// Active are the invited and playing games with a seat or an
	// observer of each address asked (lower case), by id.
	Active map[string][]*Game
	// People are the players (as Player answers) of the seats and
	// observers of the Active games who are not among the addresses
	// asked (Players), by lower-case address.
	People map[string]*Player
	// Notes are every player's notes on each of the Active games, by
	// game id, oldest first; a game without notes has a nil entry.
	Notes map[int64][]*Note
	// Blocked and Main answer Blocked and MainAddress for each address
	// asked (lower case, trimmed).
	Blocked map[string]bool
	Main    map[string]string
}

// NotesOf are the notes of addr (case-insensitive) on the game, as Notes
// answers, and whether the prefetch read the game's notes.
func (p *Prefetched) NotesOf(gameID int64, addr string) ([]*Note, bool) {
	ns, ok := p.Notes[gameID]
	if !ok {
		return nil, false
	}
	a := strings.ToLower(addr)
	var out []*Note
	for _, n := range ns {
		if n.Addr == a {
			c := *n
			out = append(out, &c)
		}
	}
	return out, true
}

// prefetchRead is one query of a prefetch and what is done with each row.
type prefetchRead struct {
	query string
	args  []any
	row   func(scan func(dest ...any) error) error
}

// Prefetch reads what Seen answers for each of the Message-IDs; Player,
// Sender, ActiveGamesOf, Blocked and MainAddress for each of the
// addresses; Sender for each of the other window keys; and Player and
// Notes for the seats and observers of those active games: a batch's
// reads at once instead of several per request. On PostgreSQL its
// queries go to the server as one pipelined batch (one round trip), in
// one read-only transaction (one snapshot), with texts that do not vary
// with the number of keys (= ANY of an array), so that each stays
// prepared; on SQLite they run in turn.
func (s *Store) Prefetch(ctx context.Context, messageIDs, addrs, windows []string) (*Prefetched, error) {
	p := &Prefetched{Seen: map[string]bool{}, Players: map[string]*Player{},
		Senders: map[string]*Sender{}, Active: map[string][]*Game{}, People: map[string]*Player{},
		Notes: map[int64][]*Note{}, Blocked: map[string]bool{}, Main: map[string]string{}}
	var ids []string
	for _, id := range messageIDs {
		if _, ok := p.Seen[id]; !ok {
			p.Seen[id] = false
			ids = append(ids, id)
		}
	}
	var as, ws, ts, pats []string
	for _, a := range addrs {
		a = strings.ToLower(a)
		if _, ok := p.Players[a]; !ok {
			p.Players[a] = &Player{Address: Address{Addr: a}}
			p.Senders[a] = &Sender{Addr: a}
			p.Active[a] = nil
			as = append(as, a)
			ws = append(ws, a)
		}
		t := strings.TrimSpace(a)
		if _, ok := p.Main[t]; !ok {
			p.Main[t] = t
			p.Blocked[t] = false
			ts = append(ts, t)
			_, domain, _ := strings.Cut(t, "@")
			pats = append(pats, t, "@"+domain)
		}
	}
	for _, w := range windows {
		w = strings.ToLower(w)
		if _, ok := p.Senders[w]; !ok {
			p.Senders[w] = &Sender{Addr: w}
			ws = append(ws, w)
		}
	}
	var reads []prefetchRead
	if len(ids) > 0 {
		cond, args := s.inList("message_id", ids)
		reads = append(reads, prefetchRead{`SELECT message_id FROM processed WHERE ` + cond, args,
			func(scan func(...any) error) error {
				var id string
				if err := scan(&id); err != nil {
					return err
				}
				p.Seen[id] = true
				return nil
			}})
	}
	if len(ws) > 0 {
		cond, args := s.inList("address", ws)
		reads = append(reads, prefetchRead{`SELECT address, window_start, count, warned FROM senders WHERE ` + cond, args,
			func(scan func(...any) error) error {
				sd := &Sender{}
				var start, warned int64
				if err := scan(&sd.Addr, &start, &sd.Count, &warned); err != nil {
					return err
				}
				sd.WindowStart = fromUnix(start)
				sd.Warned = warned != 0
				p.Senders[sd.Addr] = sd
				return nil
			}})
	}
	if len(as) == 0 {
		if err := s.prefetch(ctx, reads, nil, nil); err != nil {
			return nil, err
		}
		return p, nil
	}
	const playerColumns = `address, name, vacation_until, vacation_year, vacation_days, mail, tz, calendar, digest, digest_sent, version`
	player := func(into map[string]*Player) func(scan func(...any) error) error {
		return func(scan func(...any) error) error {
			var until int64
			pl := &Player{}
			if err := scan(&pl.Address.Addr, &pl.Address.Name, &until, &pl.VacationYear, &pl.VacationDays, &pl.Mail, &pl.TZ, &pl.Calendar, &pl.Digest, &pl.DigestSent, &pl.Version); err != nil {
				return err
			}
			pl.VacationUntil = fromUnix(until)
			into[pl.Address.Addr] = pl
			return nil
		}
	}
	cond, args := s.inList("address", as)
	reads = append(reads, prefetchRead{`SELECT ` + playerColumns + ` FROM players WHERE ` + cond, args, player(p.Players)})

	// The active games of the addresses (as ActiveGamesOf finds them),
	// and what is read of them.
	seatsIn, seatsArgs := s.inList("address", as)
	obsIn, obsArgs := s.inList("address", as)
	activeCond := `status IN ('invited', 'playing') AND
	id IN (SELECT game_id FROM seats WHERE ` + seatsIn + ` UNION SELECT game_id FROM observers WHERE ` + obsIn + `)`
	activeArgs := append(seatsArgs, obsArgs...)
	with := `WITH active(id) AS (SELECT id FROM games WHERE ` + activeCond + `) `
	others := map[string]*Player{}
	reads = append(reads, prefetchRead{with + `SELECT ` + playerColumns + ` FROM players WHERE
	address IN (SELECT lower(address) FROM seats WHERE game_id IN (SELECT id FROM active)) OR
	address IN (SELECT lower(address) FROM observers WHERE game_id IN (SELECT id FROM active))`, activeArgs, player(others)})
	notes := map[int64][]*Note{}
	reads = append(reads, prefetchRead{with + `SELECT game_id, address, at, ply, text FROM notes WHERE game_id IN (SELECT id FROM active) ORDER BY id`, activeArgs,
		func(scan func(...any) error) error {
			n := &Note{}
			var at int64
			if err := scan(&n.GameID, &n.Addr, &at, &n.Ply, &n.Text); err != nil {
				return err
			}
			n.At = fromUnix(at)
			notes[n.GameID] = append(notes[n.GameID], n)
			return nil
		}})
	cond, args = s.inList("pattern", pats)
	reads = append(reads, prefetchRead{`SELECT pattern FROM blocked WHERE ` + cond, args,
		func(scan func(...any) error) error {
			var pat string
			if err := scan(&pat); err != nil {
				return err
			}
			for _, t := range ts {
				if _, domain, _ := strings.Cut(t, "@"); t == pat || "@"+domain == pat {
					p.Blocked[t] = true
				}
			}
			return nil
		}})
	cond, args = s.inList("address", ts)
	reads = append(reads, prefetchRead{`SELECT address, player FROM player_addresses WHERE ` + cond, args,
		func(scan func(...any) error) error {
			var a, main string
			if err := scan(&a, &main); err != nil {
				return err
			}
			p.Main[a] = main
			return nil
		}})
	var gs []*Game
	games := &prefetchRead{`SELECT ` + gameColumns + ` FROM games WHERE ` + activeCond + ` ORDER BY id`, activeArgs, nil}
	if err := s.prefetch(ctx, reads, games, &gs); err != nil {
		return nil, err
	}
	for _, g := range gs {
		for a := range p.Active {
			if involves(g, a) {
				p.Active[a] = append(p.Active[a], g)
			}
		}
		p.Notes[g.ID] = notes[g.ID]
		people := make([]string, 0, len(g.Seats)+len(g.Observers))
		for _, st := range g.Seats {
			people = append(people, st.Player.Addr)
		}
		for _, o := range g.Observers {
			people = append(people, o.Addr)
		}
		for _, a := range people {
			a = strings.ToLower(a)
			if _, asked := p.Players[a]; asked {
				continue
			}
			if pl, ok := others[a]; ok {
				p.People[a] = pl
			} else {
				p.People[a] = &Player{Address: Address{Addr: a}}
			}
		}
	}
	return p, nil
}

// prefetch runs the reads of Prefetch, and games (when not nil) into gs.
func (s *Store) prefetch(ctx context.Context, reads []prefetchRead, games *prefetchRead, gs *[]*Game) error {
	if len(reads) == 0 && games == nil {
		return nil
	}
	if !s.pg {
		for _, r := range reads {
			if err := s.rows(ctx, r.query, r.args, func(rows *sql.Rows) error { return r.row(rows.Scan) }); err != nil {
				return fmt.Errorf("archive: prefetch: %w", err)
			}
		}
		if games != nil {
			g, err := s.games(ctx, s.db, games.query, games.args...)
			if err != nil {
				return fmt.Errorf("archive: prefetch: %w", err)
			}
			*gs = g
		}
		return nil
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY").Fn = execOnly
	queue := func(query string, args []any, row func(scan func(...any) error) error) {
		b.Queue(pgQuery(query), args...).Fn = func(br pgx.BatchResults) error {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := row(rows.Scan); err != nil {
					return err
				}
			}
			return rows.Err()
		}
	}
	for _, r := range reads {
		queue(r.query, r.args, r.row)
	}
	if games != nil {
		q := strings.Replace(games.query, gameColumns+` FROM games`, gameColumns+pgPeople+` FROM games`, 1)
		queue(q, games.args, func(scan func(...any) error) error {
			g, err := scanGame(scan, true)
			if err != nil {
				return err
			}
			*gs = append(*gs, g)
			return nil
		})
	}
	b.Queue("COMMIT").Fn = execOnly
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("archive: prefetch: %w", err)
	}
	defer conn.Close()
	var result error
	err = conn.Raw(func(dc any) error {
		c := dc.(*pgConn).Conn.Conn()
		if err := c.SendBatch(ctx, b).Close(); err != nil {
			result = err
		}
		if c.PgConn().TxStatus() != 'I' {
			if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
				c.Close(ctx)
				return driver.ErrBadConn // not back into the pool mid-transaction
			}
		}
		return nil
	})
	if result == nil {
		result = err
	}
	if result != nil {
		return fmt.Errorf("archive: prefetch: %w", result)
	}
	return nil
}

// inList is the SQL condition that col is one of keys, and its arguments:
// an IN list on SQLite, = ANY of one array on PostgreSQL (a text that
// does not vary with the number of keys).
func (s *Store) inList(col string, keys []string) (string, []any) {
	if s.pg {
		return col + ` = ANY(?)`, []any{keys}
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	return col + ` IN (` + marks(len(keys)) + `)`, args
}

// rows runs a query and calls fn for each row. The query is not prepared
// (Store.stmt): its text varies with the number of keys.
func (s *Store) rows(ctx context.Context, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// marks is n placeholders separated by commas.
func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// involves reports whether addr (lower case) has a seat in g or watches it.
func involves(g *Game, addr string) bool {
	for _, st := range g.Seats {
		if strings.ToLower(st.Player.Addr) == addr {
			return true
		}
	}
	for _, o := range g.Observers {
		if strings.ToLower(o.Addr) == addr {
			return true
		}
	}
	return false
}
