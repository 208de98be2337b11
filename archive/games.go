package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
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
// (case-insensitive) has a seat or watches, by id. The games are found
// from the address's seats and observers (their indexes), one UNION:
// PostgreSQL plans two IN conditions joined by OR as a scan of every
// game.
func (s *Store) ActiveGamesOf(ctx context.Context, addr string) ([]*Game, error) {
	a := strings.ToLower(addr)
	return s.games(ctx, s.q(nil), `SELECT `+gameColumns+` FROM games
WHERE status IN ('invited', 'playing') AND
	id IN (SELECT game_id FROM seats WHERE address = ? UNION SELECT game_id FROM observers WHERE address = ?)
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
		g, err := scanGame(rows.Scan, joined)
		if err != nil {
			rows.Close()
			return nil, err
		}
		gs = append(gs, g)
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
		g.keepStored()
	}
	return gs, nil
}

// keepStored notes g's seats and observers as those the store holds at
// g's version.
func (g *Game) keepStored() { g.stored = storedPeople{g.Version, peopleHash(g)} }

// peopleUnchanged reports whether the store holds g's seats and observers
// as they are: read at g's version and not changed since.
func (g *Game) peopleUnchanged() bool {
	return g.stored.version != 0 && g.stored.version == g.Version && g.stored.hash == peopleHash(g)
}

// peopleHash hashes every field of g's seats and observers that the store
// writes (addresses as written, in lower case).
func peopleHash(g *Game) uint64 {
	h := fnv.New64a()
	var b []byte
	field := func(s string) {
		b = strconv.AppendInt(b[:0], int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
		h.Write(b)
	}
	flag := func(v bool) {
		if v {
			field("1")
		} else {
			field("0")
		}
	}
	field(strconv.Itoa(len(g.Seats)))
	for _, st := range g.Seats {
		field(st.Side)
		field(strings.ToLower(st.Player.Addr))
		field(st.Player.Name)
		field(st.Token)
		flag(st.Joined)
	}
	field(strconv.Itoa(len(g.Observers)))
	for _, o := range g.Observers {
		field(strings.ToLower(o.Addr))
		field(o.Name)
		field(o.Token)
		flag(o.Confirmed)
	}
	return h.Sum64()
}

// scanGame reads a row of gameColumns (and, when joined, pgPeople's two
// arrays) with scan.
func scanGame(scan func(dest ...any) error, joined bool) (*Game, error) {
	var g Game
	var opts, offers, conds string
	var turnStart, deadline, due, created, updated int64
	dest := []any{&g.ID, &g.Game, &g.Status, &opts, &offers, &conds, &g.Record, &turnStart, &deadline,
		&g.Reminded, &due, &g.Thread, &created, &updated, &g.Version}
	var seats, observers string
	if joined {
		dest = append(dest, &seats, &observers)
	}
	if err := scan(dest...); err != nil {
		return nil, fmt.Errorf("archive: games: %w", err)
	}
	if joined {
		if err := g.unmarshalPeople(seats, observers); err != nil {
			return nil, fmt.Errorf("archive: game %d: %w", g.ID, err)
		}
		g.keepStored()
	}
	if err := json.Unmarshal([]byte(opts), &g.Options); err != nil {
		return nil, fmt.Errorf("archive: game %d options: %w", g.ID, err)
	}
	if err := json.Unmarshal([]byte(offers), &g.Offers); err != nil {
		return nil, fmt.Errorf("archive: game %d offers: %w", g.ID, err)
	}
	if len(g.Offers) == 0 {
		g.Offers = nil
	}
	if conds != "" {
		if err := json.Unmarshal([]byte(conds), &g.Conditions); err != nil {
			return nil, fmt.Errorf("archive: game %d conditions: %w", g.ID, err)
		}
	}
	g.TurnStart, g.Deadline, g.Due = fromUnix(turnStart), fromUnix(deadline), fromUnix(due)
	g.Created, g.Updated = fromUnix(created), fromUnix(updated)
	return &g, nil
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
