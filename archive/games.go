package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Seen reports whether a message id was processed.
func (s *Store) Seen(ctx context.Context, messageID string) (bool, error) {
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM processed WHERE message_id = ?`, messageID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("archive: seen: %w", err)
	}
	return n > 0, nil
}

// NewGameID reserves a new game id. Ids increase and are never reused,
// even when the game that reserved one is never stored.
func (s *Store) NewGameID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `INSERT INTO game_ids DEFAULT VALUES RETURNING id`).Scan(&id); err != nil {
		return 0, fmt.Errorf("archive: new game id: %w", err)
	}
	return id, nil
}

const gameColumns = `id, game, status, options, offers, conditions, record, turn_start, deadline, reminded, due, thread, created, updated, version`

// Game returns the game with the id, or ErrNotFound.
func (s *Store) Game(ctx context.Context, id int64) (*Game, error) {
	gs, err := s.games(ctx, s.q(nil), `SELECT `+gameColumns+` FROM games WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(gs) == 0 {
		return nil, ErrNotFound
	}
	return gs[0], nil
}

// ActiveGamesOf returns the invited and playing games in which addr
// (case-insensitive) has a seat or watches, by id.
func (s *Store) ActiveGamesOf(ctx context.Context, addr string) ([]*Game, error) {
	a := strings.ToLower(addr)
	return s.games(ctx, s.q(nil), `SELECT `+gameColumns+` FROM games
WHERE status IN ('invited', 'playing') AND (
	id IN (SELECT game_id FROM seats WHERE address = ?) OR
	id IN (SELECT game_id FROM observers WHERE address = ?))
ORDER BY id`, a, a)
}

// DueGames returns the invited and playing games whose Due time is set and
// not after now, by due time.
func (s *Store) DueGames(ctx context.Context, now time.Time) ([]*Game, error) {
	return s.games(ctx, s.db, `SELECT `+gameColumns+` FROM games
WHERE due > 0 AND due <= ? AND status IN ('invited', 'playing')
ORDER BY due, id`, unix(now))
}

// pgPeople are the seats and observers of each game as two JSON arrays,
// read on PostgreSQL with the game's row: one round trip for the games of
// a query, where reading them apart (people) costs two more per game.
const pgPeople = `,
	COALESCE((SELECT json_agg(json_build_array(side, address, name, token, joined) ORDER BY seat)
		FROM seats WHERE seats.game_id = games.id), '[]'),
	COALESCE((SELECT json_agg(json_build_array(address, name, token, confirmed) ORDER BY rowid)
		FROM observers WHERE observers.game_id = games.id), '[]')`

func (s *Store) games(ctx context.Context, q querier, query string, args ...any) ([]*Game, error) {
	const from = gameColumns + ` FROM games`
	joined := s.pg && strings.Contains(query, from)
	if joined {
		query = strings.Replace(query, from, gameColumns+pgPeople+` FROM games`, 1)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("archive: games: %w", err)
	}
	var gs []*Game
	for rows.Next() {
		var g Game
		var opts, offers, conds string
		var turnStart, deadline, due, created, updated int64
		dest := []any{&g.ID, &g.Game, &g.Status, &opts, &offers, &conds, &g.Record, &turnStart, &deadline,
			&g.Reminded, &due, &g.Thread, &created, &updated, &g.Version}
		var seats, observers string
		if joined {
			dest = append(dest, &seats, &observers)
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: games: %w", err)
		}
		if joined {
			if err := g.unmarshalPeople(seats, observers); err != nil {
				rows.Close()
				return nil, fmt.Errorf("archive: game %d: %w", g.ID, err)
			}
		}
		if err := json.Unmarshal([]byte(opts), &g.Options); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: game %d options: %w", g.ID, err)
		}
		if err := json.Unmarshal([]byte(offers), &g.Offers); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: game %d offers: %w", g.ID, err)
		}
		if len(g.Offers) == 0 {
			g.Offers = nil
		}
		if conds != "" {
			if err := json.Unmarshal([]byte(conds), &g.Conditions); err != nil {
				rows.Close()
				return nil, fmt.Errorf("archive: game %d conditions: %w", g.ID, err)
			}
		}
		g.TurnStart, g.Deadline, g.Due = fromUnix(turnStart), fromUnix(deadline), fromUnix(due)
		g.Created, g.Updated = fromUnix(created), fromUnix(updated)
		gs = append(gs, &g)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("archive: games: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: games: %w", err)
	}
	if joined {
		return gs, nil
	}
	for _, g := range gs {
		if err := s.people(ctx, q, g); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// unmarshalPeople sets the seats and observers of g from the JSON arrays
// of pgPeople: [side, address, name, token, joined] and [address, name,
// token, confirmed], booleans as 0 and 1.
func (g *Game) unmarshalPeople(seats, observers string) error {
	var ss []struct {
		Side, Addr, Name, Token string
		Joined                  int
	}
	if err := unmarshalRows([]byte(seats), &ss, func(i int) []any {
		return []any{&ss[i].Side, &ss[i].Addr, &ss[i].Name, &ss[i].Token, &ss[i].Joined}
	}); err != nil {
		return fmt.Errorf("seats: %w", err)
	}
	for _, st := range ss {
		g.Seats = append(g.Seats, Seat{Side: st.Side, Player: Address{Name: st.Name, Addr: st.Addr}, Token: st.Token, Joined: st.Joined != 0})
	}
	var os []struct {
		Addr, Name, Token string
		Confirmed         int
	}
	if err := unmarshalRows([]byte(observers), &os, func(i int) []any {
		return []any{&os[i].Addr, &os[i].Name, &os[i].Token, &os[i].Confirmed}
	}); err != nil {
		return fmt.Errorf("observers: %w", err)
	}
	for _, o := range os {
		g.Observers = append(g.Observers, Observer{Address: Address{Name: o.Name, Addr: o.Addr}, Token: o.Token, Confirmed: o.Confirmed != 0})
	}
	return nil
}

// unmarshalRows decodes a JSON array of arrays into *out, a slice of
// structs, each inner array's values into the fields that dest gives for
// the element i.
func unmarshalRows[T any](data []byte, out *[]T, dest func(i int) []any) error {
	var rows [][]json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil {
		return err
	}
	*out = make([]T, len(rows))
	for i, r := range rows {
		d := dest(i)
		if len(r) != len(d) {
			return fmt.Errorf("%d values, expected %d", len(r), len(d))
		}
		for j := range r {
			if err := json.Unmarshal(r[j], d[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// people loads the seats and observers of g.
func (s *Store) people(ctx context.Context, q querier, g *Game) error {
	rows, err := q.QueryContext(ctx, `SELECT side, address, name, token, joined FROM seats WHERE game_id = ? ORDER BY seat`, g.ID)
	if err != nil {
		return fmt.Errorf("archive: seats of game %d: %w", g.ID, err)
	}
	for rows.Next() {
		var st Seat
		if err := rows.Scan(&st.Side, &st.Player.Addr, &st.Player.Name, &st.Token, &st.Joined); err != nil {
			rows.Close()
			return fmt.Errorf("archive: seats of game %d: %w", g.ID, err)
		}
		g.Seats = append(g.Seats, st)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("archive: seats of game %d: %w", g.ID, err)
	}
	rows, err = q.QueryContext(ctx, `SELECT address, name, token, confirmed FROM observers WHERE game_id = ? ORDER BY rowid`, g.ID)
	if err != nil {
		return fmt.Errorf("archive: observers of game %d: %w", g.ID, err)
	}
	for rows.Next() {
		var a Observer
		if err := rows.Scan(&a.Addr, &a.Name, &a.Token, &a.Confirmed); err != nil {
			rows.Close()
			return fmt.Errorf("archive: observers of game %d: %w", g.ID, err)
		}
		g.Observers = append(g.Observers, a)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("archive: observers of game %d: %w", g.ID, err)
	}
	return rows.Err()
}

// Player returns what is kept about an address (case-insensitive). A player
// not stored yet is returned with Version 0 and the address lower-cased.
func (s *Store) Player(ctx context.Context, addr string) (*Player, error) {
	p := &Player{Address: Address{Addr: strings.ToLower(addr)}}
	var until int64
	err := s.q(nil).QueryRowContext(ctx, `SELECT name, vacation_until, vacation_year, vacation_days, mail, tz, calendar, digest, digest_sent, version FROM players WHERE address = ?`,
		p.Address.Addr).Scan(&p.Address.Name, &until, &p.VacationYear, &p.VacationDays, &p.Mail, &p.TZ, &p.Calendar, &p.Digest, &p.DigestSent, &p.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archive: player: %w", err)
	}
	p.VacationUntil = fromUnix(until)
	return p, nil
}

// Sender returns the rate-limit window of an address (case-insensitive); a
// zero window for an address never seen.
func (s *Store) Sender(ctx context.Context, addr string) (*Sender, error) {
	r := &Sender{Addr: strings.ToLower(addr)}
	var start int64
	err := s.q(nil).QueryRowContext(ctx, `SELECT window_start, count, warned FROM senders WHERE address = ?`, r.Addr).
		Scan(&start, &r.Count, &r.Warned)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archive: sender: %w", err)
	}
	r.WindowStart = fromUnix(start)
	return r, nil
}

// Commit stores everything c changes in one transaction: the message id as
// processed, the games (new ones inserted with their reserved id, others
// updated if their Version is still the stored one), players, rate-limit
// windows, outbox rows and archive entries. On success the Versions of the
// games and players are incremented and the ids of the outbox rows and
// entries set; on any error nothing is stored. An entry whose record is
// already archived (same hash) is skipped.
func (s *Store) Commit(ctx context.Context, c *Change) error {
	return s.CommitBatch(ctx, []*Change{c})
}

// CommitBatch stores several changes in one transaction, so with one sync
// to disk: as if Commit stored each, in order, but all of them or none. The
// version checks see the changes before in the batch: a game (or player,
// or tournament) that two changes hold must be given to the second with
// the Version the first leaves it (one more than it had), as a later
// Commit would need. On success every change is updated as Commit updates
// it. On any error nothing is stored; an ErrDuplicate or ErrConflict of one
// change fails the whole batch, wrapped with the change's index.
func (s *Store) CommitBatch(ctx context.Context, cs []*Change) error {
	err := s.commit(ctx, cs)
	if err != nil && !errors.Is(err, ErrDuplicate) && !errors.Is(err, ErrConflict) {
		err = fmt.Errorf("archive: commit: %w", err)
	}
	return err
}

// stored is what the database assigned to one change: its time and the ids
// of its outbox rows and entries.
type stored struct {
	at       time.Time
	outIDs   []string
	entryIDs []int64
}

func (s *Store) commit(ctx context.Context, cs []*Change) error {
	if len(cs) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	done := make([]stored, len(cs))
	err := s.write(ctx, txWrite, func(w *wtx) error {
		for i, c := range cs {
			done[i].at = c.At
			if done[i].at.IsZero() {
				done[i].at = s.now()
			}
			wrap := func(err error) error { return changeErr(i, len(cs), err) }
			if w.b != nil {
				w.wrap = wrap // the statements' errors, read after the batch
			}
			if err := s.put(ctx, w, c, &done[i]); err != nil {
				return wrap(err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, c := range cs {
		applied(c, &done[i])
	}
	return nil
}

// changeErr is the error of change i of a batch of n.
func changeErr(i, n int, err error) error {
	if badText(err) {
		err = fmt.Errorf("%w: text the PostgreSQL store cannot hold (a NUL character or bytes that are not UTF-8): %w", ErrInvalidChange, err)
	}
	if n > 1 {
		return fmt.Errorf("change %d of %d: %w", i+1, n, err)
	}
	return err
}

// badText reports whether err is PostgreSQL's refusal of a text it cannot
// hold (a NUL character, or bytes that are not UTF-8), which SQLite
// stores as given: committing the change again fails the same way.
func badText(err error) bool {
	switch pgCode(err) {
	case "22021", "22P05": // character_not_in_repertoire, untranslatable_character
		return true
	}
	return false
}

// put writes one change with w: its statements, and the checks of their
// results (a processed Message-ID, the versions), which on PostgreSQL run
// once the batch's results are read (wtx).
func (s *Store) put(ctx context.Context, w *wtx, c *Change, d *stored) error {
	at := d.at
	step := func(name string) error {
		f := s.failAt
		if f == nil {
			return nil
		}
		return w.after(func() error { return f(name) })
	}
	if c.MessageID != "" {
		err := w.exec(ctx, `INSERT INTO processed (message_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING`, []any{c.MessageID, unix(at)},
			func(n int64, err error) error {
				if err == nil && n == 0 {
					return ErrDuplicate
				}
				return err
			})
		if err != nil {
			return err
		}
	}
	if err := step("processed"); err != nil {
		return err
	}
	for _, g := range c.Games {
		if err := putGame(ctx, w, g, at); err != nil {
			return err
		}
		if err := step("game " + strconv.FormatInt(g.ID, 10)); err != nil {
			return err
		}
	}
	for _, n := range c.Notes {
		if err := putNote(ctx, w, n, at); err != nil {
			return err
		}
	}
	for _, a := range c.Analyses {
		if err := putAnalysis(ctx, w, a, at); err != nil {
			return err
		}
	}
	for _, t := range c.Tournaments {
		if err := putTournament(ctx, w, t, at); err != nil {
			return err
		}
	}
	for _, p := range c.Players {
		if err := putPlayer(ctx, w, p); err != nil {
			return err
		}
	}
	for _, r := range c.Senders {
		err := w.exec(ctx, `INSERT INTO senders (address, window_start, count, warned) VALUES (?, ?, ?, ?)
ON CONFLICT (address) DO UPDATE SET window_start = excluded.window_start, count = excluded.count, warned = excluded.warned`,
			[]any{strings.ToLower(r.Addr), unix(r.WindowStart), r.Count, r.Warned}, nil)
		if err != nil {
			return err
		}
	}
	if err := putAddresses(ctx, w, c.Addresses, at); err != nil {
		return err
	}
	for _, u := range c.Resubscribe {
		if err := w.exec(ctx, `DELETE FROM unsubscriptions WHERE address = ? AND kind = ?`, []any{strings.ToLower(strings.TrimSpace(u.Addr)), u.Kind}, nil); err != nil {
			return err
		}
	}
	for _, u := range c.Unsubscribe {
		if err := putUnsubscription(ctx, w, u, at); err != nil {
			return err
		}
	}
	if err := step("players"); err != nil {
		return err
	}
	d.outIDs = make([]string, len(c.Outbox))
	for i, o := range c.Outbox {
		if err := putOutgoing(ctx, w, o, at, &d.outIDs[i]); err != nil {
			return err
		}
		if err := step("outbox"); err != nil {
			return err
		}
	}
	d.entryIDs = make([]int64, len(c.Entries))
	for i, e := range c.Entries {
		if err := putEntry(ctx, w, e, at, &d.entryIDs[i]); err != nil {
			return err
		}
	}
	if err := putOperators(ctx, w, c, at); err != nil {
		return err
	}
	return step("entries")
}

// applied updates a committed change: versions, times and ids.
func applied(c *Change, d *stored) {
	at := d.at
	for _, g := range c.Games {
		g.Version++
		g.Updated = at
		if g.Created.IsZero() {
			g.Created = at
		}
	}
	for _, p := range c.Players {
		p.Version++
	}
	for _, t := range c.Tournaments {
		t.Version++
		if t.Created.IsZero() {
			t.Created = at
		}
	}
	for i, o := range c.Outbox {
		o.ID = d.outIDs[i]
		if o.Status == "" {
			o.Status = Pending
		}
	}
	for i, e := range c.Entries {
		e.ID = d.entryIDs[i]
		if e.Hash == "" {
			e.Hash = Hash(e.Record)
		}
		if e.Created.IsZero() {
			e.Created = at
		}
	}
}

func putGame(ctx context.Context, w *wtx, g *Game, at time.Time) error {
	if g.ID <= 0 {
		return fmt.Errorf("game without an id (reserve one with NewGameID)")
	}
	opts, err := json.Marshal(g.Options)
	if err != nil {
		return err
	}
	offers := []byte("[]")
	if len(g.Offers) > 0 {
		if offers, err = json.Marshal(g.Offers); err != nil {
			return err
		}
	}
	conds := ""
	if len(g.Conditions) > 0 {
		b, err := json.Marshal(g.Conditions)
		if err != nil {
			return err
		}
		conds = string(b)
	}
	created := g.Created
	if created.IsZero() {
		created = at
	}
	if g.Version == 0 {
		err = w.exec(ctx, `INSERT INTO games (`+gameColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
			[]any{g.ID, g.Game, g.Status, string(opts), string(offers), conds, g.Record, unix(g.TurnStart), unix(g.Deadline),
				g.Reminded, unix(g.Due), g.Thread, unix(created), unix(at)},
			func(_ int64, err error) error {
				if uniqueViolation(err) {
					return fmt.Errorf("%w: game %d exists", ErrConflict, g.ID)
				}
				return err
			})
		if err != nil {
			return err
		}
	} else {
		err := w.exec(ctx, `UPDATE games SET game = ?, status = ?, options = ?, offers = ?, conditions = ?, record = ?,
	turn_start = ?, deadline = ?, reminded = ?, due = ?, thread = ?, updated = ?, version = version + 1
WHERE id = ? AND version = ?`,
			[]any{g.Game, g.Status, string(opts), string(offers), conds, g.Record, unix(g.TurnStart), unix(g.Deadline),
				g.Reminded, unix(g.Due), g.Thread, unix(at), g.ID, g.Version},
			func(n int64, err error) error {
				if err == nil && n == 0 {
					return fmt.Errorf("%w: game %d", ErrConflict, g.ID)
				}
				return err
			})
		if err != nil {
			return err
		}
		if err := w.exec(ctx, `DELETE FROM seats WHERE game_id = ?`, []any{g.ID}, nil); err != nil {
			return err
		}
		if err := w.exec(ctx, `DELETE FROM observers WHERE game_id = ?`, []any{g.ID}, nil); err != nil {
			return err
		}
	}
	for i, st := range g.Seats {
		err := w.exec(ctx, `INSERT INTO seats (game_id, seat, side, address, name, token, joined) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			[]any{g.ID, i, st.Side, strings.ToLower(st.Player.Addr), st.Player.Name, st.Token, st.Joined}, nil)
		if err != nil {
			return err
		}
	}
	for _, a := range g.Observers {
		err := w.exec(ctx, `INSERT INTO observers (game_id, address, name, token, confirmed) VALUES (?, ?, ?, ?, ?)`,
			[]any{g.ID, strings.ToLower(a.Addr), a.Name, a.Token, a.Confirmed}, nil)
		if err != nil {
			return err
		}
	}
	return nil
}

func putPlayer(ctx context.Context, w *wtx, p *Player) error {
	addr := strings.ToLower(p.Address.Addr)
	if p.Version == 0 {
		return w.exec(ctx, `INSERT INTO players (address, name, vacation_until, vacation_year, vacation_days, mail, tz, calendar, digest, digest_sent, version)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`, []any{addr, p.Address.Name, unix(p.VacationUntil), p.VacationYear, p.VacationDays, p.Mail, p.TZ, p.Calendar, p.Digest, p.DigestSent},
			func(_ int64, err error) error {
				if uniqueViolation(err) {
					return fmt.Errorf("%w: player %s", ErrConflict, addr)
				}
				return err
			})
	}
	return w.exec(ctx, `UPDATE players SET name = ?, vacation_until = ?, vacation_year = ?, vacation_days = ?, mail = ?, tz = ?,
	calendar = ?, digest = ?, digest_sent = ?, version = version + 1 WHERE address = ? AND version = ?`,
		[]any{p.Address.Name, unix(p.VacationUntil), p.VacationYear, p.VacationDays, p.Mail, p.TZ, p.Calendar, p.Digest, p.DigestSent, addr, p.Version},
		func(n int64, err error) error {
			if err == nil && n == 0 {
				return fmt.Errorf("%w: player %s", ErrConflict, addr)
			}
			return err
		})
}
