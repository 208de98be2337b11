package archive

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// digestSchema is migration 23: the players' daily digest of their games
// (its hour and the day of the last one), the kinds of mail addresses
// stopped with one click (RFC 8058) or by mail, and the outbox's calendar
// part and List-Unsubscribe field.
const digestSchema = `
ALTER TABLE players ADD COLUMN digest TEXT NOT NULL DEFAULT '';
ALTER TABLE players ADD COLUMN digest_sent TEXT NOT NULL DEFAULT '';
CREATE TABLE unsubscriptions (
	address TEXT    NOT NULL,
	kind    TEXT    NOT NULL,
	at      INTEGER NOT NULL,
	PRIMARY KEY (address, kind)
);
ALTER TABLE outbox ADD COLUMN calendar TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN unsubscribe TEXT NOT NULL DEFAULT '';
`

// UnsubscribeSecretName is the name of the store's secret (Store.Secret)
// that keys the unsubscribe tokens (UnsubscribeToken).
const UnsubscribeSecretName = "unsubscribe"

// The kinds of mail a recipient may stop. Game mail to a game's players
// is none of them: it keeps coming.
const (
	UnsubWatch      = "watch"      // a watcher's mail of a game (watch)
	UnsubDigest     = "digest"     // the daily digest of one's games (digest games daily)
	UnsubTournament = "tournament" // a tournament's daily standings
)

// UnsubscribeKinds are the kinds, in the order help lists them.
var UnsubscribeKinds = []string{UnsubWatch, UnsubDigest, UnsubTournament}

// ValidUnsubscribeKind reports whether kind is one of UnsubscribeKinds.
func ValidUnsubscribeKind(kind string) bool {
	for _, k := range UnsubscribeKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Unsubscription is an address's refusal of a kind of mail.
type Unsubscription struct {
	Addr string
	Kind string
}

// UnsubscribeToken is the token that unsubscribes addr from kind: an
// HMAC-SHA256 of both under the store's unsubscribe secret, 128 bits in
// unpadded base64url. It names one address and one kind: no one without
// the secret can make another.
func UnsubscribeToken(secret []byte, addr, kind string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("pbem unsubscribe\x00" + strings.ToLower(strings.TrimSpace(addr)) + "\x00" + kind))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// UnsubscribeQuery is the query of the one-click address that
// unsubscribes addr from kind: "a=ADDR&k=KIND&t=TOKEN".
func UnsubscribeQuery(secret []byte, addr, kind string) string {
	return UnsubscribeQueryOf(strings.ToLower(addr), kind, UnsubscribeToken(secret, addr, kind))
}

// UnsubscribeQueryOf is the query "a=ADDR&k=KIND&t=TOKEN".
func UnsubscribeQueryOf(addr, kind, token string) string {
	return url.Values{"a": {addr}, "k": {kind}, "t": {token}}.Encode()
}

// ErrBadUnsubscribe is a one-click unsubscription whose kind is unknown
// or whose token is not the one of its address and kind.
var ErrBadUnsubscribe = errors.New("archive: unsubscribe: unknown kind or wrong token")

// CheckUnsubscribe checks a token against the address and kind it claims.
func (s *Store) CheckUnsubscribe(ctx context.Context, addr, kind, token string) error {
	if !ValidUnsubscribeKind(kind) || addr == "" || token == "" {
		return ErrBadUnsubscribe
	}
	secret, err := s.Secret(ctx, UnsubscribeSecretName)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(UnsubscribeToken(secret, addr, kind)), []byte(token)) {
		return ErrBadUnsubscribe
	}
	return nil
}

// Unsubscribe records that addr wants no more mail of kind, when token
// is that address's and kind's (else ErrBadUnsubscribe, and nothing
// changes). Unsubscribing twice is the same as once.
func (s *Store) Unsubscribe(ctx context.Context, addr, kind, token string) error {
	if err := s.CheckUnsubscribe(ctx, addr, kind, token); err != nil {
		return err
	}
	tx, err := s.beginTx(ctx, txUnfenced)
	if err != nil {
		return fmt.Errorf("archive: unsubscribe: %w", err)
	}
	defer tx.Rollback()
	if err := putUnsubscription(ctx, &wtx{q: s.q(tx)}, Unsubscription{Addr: addr, Kind: kind}, s.now()); err != nil {
		return fmt.Errorf("archive: unsubscribe: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("archive: unsubscribe: %w", err)
	}
	return nil
}

func putUnsubscription(ctx context.Context, w *wtx, u Unsubscription, at time.Time) error {
	return w.exec(ctx, `INSERT INTO unsubscriptions (address, kind, at) VALUES (?, ?, ?) ON CONFLICT (address, kind) DO NOTHING`,
		[]any{strings.ToLower(strings.TrimSpace(u.Addr)), u.Kind, unix(at)}, nil)
}

// Unsubscribed reports whether addr stopped mail of kind.
func (s *Store) Unsubscribed(ctx context.Context, addr, kind string) (bool, error) {
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT 1 FROM unsubscriptions WHERE address = ? AND kind = ?`,
		strings.ToLower(strings.TrimSpace(addr)), kind).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("archive: unsubscribed: %w", err)
	}
	return true, nil
}

// DigestPlayers returns the players who asked for the daily digest of
// their games, by address.
func (s *Store) DigestPlayers(ctx context.Context) ([]*Player, error) {
	rows, err := s.q(nil).QueryContext(ctx, `SELECT address FROM players WHERE digest <> '' ORDER BY address`)
	if err != nil {
		return nil, fmt.Errorf("archive: digest players: %w", err)
	}
	var addrs []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: digest players: %w", err)
		}
		addrs = append(addrs, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: digest players: %w", err)
	}
	var out []*Player
	for _, a := range addrs {
		p, err := s.Player(ctx, a)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
