package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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

// Committed is what a commit at at makes of g: its version one higher,
// updated at at, and created at at when it is new. A batch that holds
// changes before it commits them (the referee's view) keeps its copies
// the same way.
func (g *Game) Committed(at time.Time) {
	g.Version++
	g.Updated = at
	if g.Created.IsZero() {
		g.Created = at
	}
}

// Committed is what a commit makes of p: its version one higher.
func (p *Player) Committed() { p.Version++ }

// applied updates a committed change: versions, times and ids.
func applied(c *Change, d *stored) {
	at := d.at
	for _, g := range c.Games {
		g.Committed(at)
		g.keepStored()
	}
	for _, p := range c.Players {
		p.Committed()
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
		if g.peopleUnchanged() {
			return nil // most commits of a game are a move: nobody joined or left
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
