package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// addressesSchema is migration 24: the addresses a player added to their
// own (mail from any of them is the player's), and the changes of address
// waiting for the new address's confirmation.
const addressesSchema = `
CREATE TABLE player_addresses (
	address TEXT PRIMARY KEY,
	player  TEXT NOT NULL
);
CREATE INDEX player_addresses_player ON player_addresses(player);
CREATE TABLE address_pending (
	code    TEXT    PRIMARY KEY,
	player  TEXT    NOT NULL,
	address TEXT    NOT NULL,
	action  TEXT    NOT NULL,
	expires INTEGER NOT NULL
);
CREATE INDEX address_pending_player ON address_pending(player);
`

// AddressPending.Action values.
const (
	AddressMove = "move" // the player's address becomes the new one
	AddressAdd  = "add"  // the new address is added to the player's
)

// AddressPending is a change of a player's address waiting for the new
// address to confirm it with Code.
type AddressPending struct {
	Code    string
	Player  string // the player's address when asked
	Address string // the new address
	Action  string // AddressMove or AddressAdd
	Expires time.Time
}

// PlayerAddress is an address added to a player's (Player, the main one).
type PlayerAddress struct {
	Address, Player string
}

// AddressChange is what a Change does to players' addresses: pending
// confirmations asked (Pending) and done or dropped (Done, by code),
// addresses added and removed, and moves of everything of a player from
// one address to another (Move).
type AddressChange struct {
	Pending []*AddressPending
	Done    []string
	Add     []PlayerAddress
	Remove  []string
	Move    []PlayerAddress // Address: the old one; Player: the new one
}

func lowerAddr(a string) string { return strings.ToLower(strings.TrimSpace(a)) }

// MainAddress is the address of the player whose added address addr is,
// or addr (lower case) itself.
func (s *Store) MainAddress(ctx context.Context, addr string) (string, error) {
	var p string
	err := s.q(nil).QueryRowContext(ctx, `SELECT player FROM player_addresses WHERE address = ?`, lowerAddr(addr)).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return lowerAddr(addr), nil
	}
	if err != nil {
		return "", fmt.Errorf("archive: main address: %w", err)
	}
	return p, nil
}

// AddedAddresses are the addresses added to the player at addr, sorted.
func (s *Store) AddedAddresses(ctx context.Context, addr string) ([]string, error) {
	rows, err := s.q(nil).QueryContext(ctx, `SELECT address FROM player_addresses WHERE player = ? ORDER BY address`, lowerAddr(addr))
	if err != nil {
		return nil, fmt.Errorf("archive: added addresses: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, fmt.Errorf("archive: added addresses: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AddressKnown reports whether addr is in use: a player's (kept, or
// sitting in a game, or in a tournament) or added to one.
func (s *Store) AddressKnown(ctx context.Context, addr string) (bool, error) {
	a := lowerAddr(addr)
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT
	(SELECT COUNT(*) FROM players WHERE address = ?) +
	(SELECT COUNT(*) FROM seats WHERE address = ?) +
	(SELECT COUNT(*) FROM tournament_players WHERE address = ?) +
	(SELECT COUNT(*) FROM player_addresses WHERE address = ?)`, a, a, a, a).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("archive: address known: %w", err)
	}
	return n > 0, nil
}

// PendingAddress returns the pending change of code, or ErrNotFound (an
// unknown code and an expired one alike).
func (s *Store) PendingAddress(ctx context.Context, code string, now time.Time) (*AddressPending, error) {
	p := &AddressPending{Code: code}
	var exp int64
	err := s.q(nil).QueryRowContext(ctx, `SELECT player, address, action, expires FROM address_pending WHERE code = ?`, code).
		Scan(&p.Player, &p.Address, &p.Action, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("archive: pending address: %w", err)
	}
	p.Expires = fromUnix(exp)
	if !now.Before(p.Expires) {
		return nil, ErrNotFound
	}
	return p, nil
}

// PendingAddresses counts the player's changes of address still waiting
// at now.
func (s *Store) PendingAddresses(ctx context.Context, player string, now time.Time) (int, error) {
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM address_pending WHERE player = ? AND expires > ?`, lowerAddr(player), unix(now)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("archive: pending addresses: %w", err)
	}
	return n, nil
}

// putAddresses stores c's address changes, inside a Commit. A move takes
// everything kept under the old address to the new one: the seats and
// watching of every game (whose versions move on, so that a request that
// read them before is tried again), the player's settings, tournaments,
// notes, analyses, unsubscriptions, added addresses, and the archive's
// index of the player's games (ratings, search). The archived records
// themselves keep the address they were played under.
func putAddresses(ctx context.Context, w *wtx, c *AddressChange, at time.Time) error {
	if c == nil {
		return nil
	}
	for _, code := range c.Done {
		if err := w.exec(ctx, `DELETE FROM address_pending WHERE code = ?`, []any{code}, nil); err != nil {
			return err
		}
	}
	for _, p := range c.Pending {
		// expired ones go as new ones come
		if err := w.exec(ctx, `DELETE FROM address_pending WHERE expires <= ?`, []any{unix(at)}, nil); err != nil {
			return err
		}
		if err := w.exec(ctx, `INSERT INTO address_pending (code, player, address, action, expires) VALUES (?, ?, ?, ?, ?)`,
			[]any{p.Code, lowerAddr(p.Player), lowerAddr(p.Address), p.Action, unix(p.Expires)}, nil); err != nil {
			return err
		}
	}
	for _, a := range c.Remove {
		if err := w.exec(ctx, `DELETE FROM player_addresses WHERE address = ?`, []any{lowerAddr(a)}, nil); err != nil {
			return err
		}
	}
	for _, a := range c.Add {
		err := w.exec(ctx, `INSERT INTO player_addresses (address, player) VALUES (?, ?)`, []any{lowerAddr(a.Address), lowerAddr(a.Player)},
			func(_ int64, err error) error {
				if constraintFailed(err) {
					return fmt.Errorf("%w: address %s is added already", ErrConflict, a.Address)
				}
				return err
			})
		if err != nil {
			return err
		}
	}
	for _, m := range c.Move {
		if err := moveAddress(ctx, w, lowerAddr(m.Address), lowerAddr(m.Player)); err != nil {
			return fmt.Errorf("move %s to %s: %w", m.Address, m.Player, err)
		}
	}
	return nil
}

func moveAddress(ctx context.Context, w *wtx, from, to string) error {
	steps := []struct {
		sql  string
		args []any
	}{
		{`UPDATE games SET version = version + 1 WHERE id IN (SELECT game_id FROM seats WHERE address = ?)
	OR id IN (SELECT game_id FROM observers WHERE address = ?)`, []any{from, from}},
		{`UPDATE seats SET address = ? WHERE address = ?`, []any{to, from}},
		{`DELETE FROM observers WHERE address = ? AND game_id IN (SELECT game_id FROM observers WHERE address = ?)`, []any{from, to}},
		{`UPDATE observers SET address = ? WHERE address = ?`, []any{to, from}},
		{`DELETE FROM players WHERE address = ?`, []any{to}},
		{`UPDATE players SET address = ?, version = version + 1 WHERE address = ?`, []any{to, from}},
		{`UPDATE tournaments SET version = version + 1 WHERE director = ? OR id IN (SELECT tournament_id FROM tournament_players WHERE address = ?)`, []any{from, from}},
		{`UPDATE tournaments SET director = ? WHERE director = ?`, []any{to, from}},
		{`UPDATE tournament_players SET address = ? WHERE address = ?`, []any{to, from}},
		{`UPDATE tournament_byes SET address = ? WHERE address = ?`, []any{to, from}},
		{`UPDATE tournament_games SET players = REPLACE(players, ?, ?) WHERE players LIKE ?`, []any{`"` + from + `"`, `"` + to + `"`, `%"` + from + `"%`}},
		{`UPDATE notes SET address = ? WHERE address = ?`, []any{to, from}},
		{`UPDATE analyses SET address = ? WHERE address = ?`, []any{to, from}},
		{`DELETE FROM unsubscriptions WHERE address = ?`, []any{to}},
		{`UPDATE unsubscriptions SET address = ? WHERE address = ?`, []any{to, from}},
		{`DELETE FROM player_addresses WHERE address = ?`, []any{to}},
		{`UPDATE player_addresses SET player = ? WHERE player = ?`, []any{to, from}},
		{`UPDATE archive_sides SET player = REPLACE(player, ?, ?), player_key = ? WHERE player_key = ?`, []any{"<" + from + ">", "<" + to + ">", to, from}},
	}
	for _, st := range steps {
		if err := w.exec(ctx, st.sql, st.args, nil); err != nil {
			return err
		}
	}
	return nil
}
