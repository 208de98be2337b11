package archive

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Prefetched is what a batch of requests reads before it is decided:
// which of its Message-IDs are processed, and the players, rate-limit
// windows and active games of its senders, as the store held them when
// Prefetch read them. A later commit's checks (the processed Message-ID,
// the versions of games and players) catch a change made since.
type Prefetched struct {
	Seen    map[string]bool    // every Message-ID asked; true if processed
	Players map[string]*Player // by lower-case address; a zero Player for one not stored
	Senders map[string]*Sender // by lower-case address or window key; a zero window for one never seen
	// Active are the invited and playing games with a seat or an
	// observer of each address asked (lower case), by id.
	Active map[string][]*Game
}

// Prefetch reads, in four queries whatever the number of keys (texts not
// prepared, since they vary with the number of keys), what Seen answers
// for each of the Message-IDs, Player, Sender and ActiveGamesOf for each
// of the addresses, and Sender for each of the other window keys: a
// batch's reads in a few round trips instead of several per request.
func (s *Store) Prefetch(ctx context.Context, messageIDs, addrs, windows []string) (*Prefetched, error) {
	p := &Prefetched{Seen: map[string]bool{}, Players: map[string]*Player{},
		Senders: map[string]*Sender{}, Active: map[string][]*Game{}}
	var ids []any
	for _, id := range messageIDs {
		if _, ok := p.Seen[id]; !ok {
			p.Seen[id] = false
			ids = append(ids, id)
		}
	}
	var as []any
	for _, a := range addrs {
		a = strings.ToLower(a)
		if _, ok := p.Players[a]; !ok {
			p.Players[a] = &Player{Address: Address{Addr: a}}
			p.Senders[a] = &Sender{Addr: a}
			p.Active[a] = nil
			as = append(as, a)
		}
	}
	if len(ids) > 0 {
		err := s.rows(ctx, `SELECT message_id FROM processed WHERE message_id IN (`+marks(len(ids))+`)`, ids, func(r *sql.Rows) error {
			var id string
			if err := r.Scan(&id); err != nil {
				return err
			}
			p.Seen[id] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("archive: prefetch: %w", err)
		}
	}
	ws := slices.Clone(as)
	for _, w := range windows {
		w = strings.ToLower(w)
		if _, ok := p.Senders[w]; !ok {
			p.Senders[w] = &Sender{Addr: w}
			ws = append(ws, w)
		}
	}
	if len(ws) > 0 {
		err := s.rows(ctx, `SELECT address, window_start, count, warned FROM senders WHERE address IN (`+marks(len(ws))+`)`, ws, func(r *sql.Rows) error {
			sd := &Sender{}
			var start int64
			if err := r.Scan(&sd.Addr, &start, &sd.Count, &sd.Warned); err != nil {
				return err
			}
			sd.WindowStart = fromUnix(start)
			p.Senders[sd.Addr] = sd
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("archive: prefetch: %w", err)
		}
	}
	if len(as) == 0 {
		return p, nil
	}
	in := marks(len(as))
	err := s.rows(ctx, `SELECT address, name, vacation_until, vacation_year, vacation_days, mail, tz, calendar, digest, digest_sent, version FROM players WHERE address IN (`+in+`)`, as,
		func(r *sql.Rows) error {
			var a string
			var until int64
			pl := &Player{}
			if err := r.Scan(&a, &pl.Address.Name, &until, &pl.VacationYear, &pl.VacationDays, &pl.Mail, &pl.TZ, &pl.Calendar, &pl.Digest, &pl.DigestSent, &pl.Version); err != nil {
				return err
			}
			pl.Address.Addr = a
			pl.VacationUntil = fromUnix(until)
			p.Players[a] = pl
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("archive: prefetch: %w", err)
	}
	gs, err := s.games(ctx, s.db, `SELECT `+gameColumns+` FROM games
WHERE status IN ('invited', 'playing') AND (
	id IN (SELECT game_id FROM seats WHERE address IN (`+in+`)) OR
	id IN (SELECT game_id FROM observers WHERE address IN (`+in+`)))
ORDER BY id`, append(as, as...)...)
	if err != nil {
		return nil, fmt.Errorf("archive: prefetch: %w", err)
	}
	for _, g := range gs {
		for a := range p.Active {
			if involves(g, a) {
				p.Active[a] = append(p.Active[a], g)
			}
		}
	}
	return p, nil
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
