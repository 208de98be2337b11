package archive

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CalendarSecretName is the name of the store's secret (Store.Secret)
// that keys the players' calendar keys.
const CalendarSecretName = "calendar"

// CalendarKey is the key of addr's calendar of deadlines in its
// generation (Player.Calendar): an HMAC-SHA256 of the address (lower
// case) and the generation under the store's calendar secret, 128 bits in
// unpadded base64url. No one without the secret can make one, and moving
// the generation on revokes every key given before.
func CalendarKey(secret []byte, addr string, generation int) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("pbem calendar\x00" + strings.ToLower(strings.TrimSpace(addr)) + "\x00" + strconv.Itoa(generation)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// CalendarOwner returns the player whose calendar key is key, or
// ErrNotFound: a wrong key and a revoked one are both "not found". It
// reads every player the referee keeps (the calendar command stores the
// player who asks) and compares every key in constant time; the name in
// a calendar's address is the player's public name (CalendarName), which
// may change while the key stays.
func (s *Store) CalendarOwner(ctx context.Context, key string) (*Player, error) {
	if key == "" {
		return nil, ErrNotFound
	}
	secret, err := s.Secret(ctx, CalendarSecretName)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT address, calendar FROM players`)
	if err != nil {
		return nil, fmt.Errorf("archive: calendar owner: %w", err)
	}
	defer rows.Close()
	var found string
	for rows.Next() {
		var addr string
		var gen int
		if err := rows.Scan(&addr, &gen); err != nil {
			return nil, fmt.Errorf("archive: calendar owner: %w", err)
		}
		if hmac.Equal([]byte(CalendarKey(secret, addr, gen)), []byte(key)) {
			found = addr
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: calendar owner: %w", err)
	}
	if found == "" {
		return nil, ErrNotFound
	}
	return s.Player(ctx, found)
}

// CalendarName is the name in the address of p's calendar: the public
// name of its name and address, as the pages name players.
func CalendarName(p *Player) string { return PublicName(Mailbox(p.Address)) }

// Mailbox writes an address as a mail header does: "Name <addr>", or the
// address alone when it has no name.
func Mailbox(a Address) string {
	if a.Name == "" {
		return a.Addr
	}
	return a.Name + " <" + a.Addr + ">"
}

// CalendarPath is the site path of the calendar of deadlines of the
// player of public name name with key, as the web serves it and the
// calendar command mails it.
func CalendarPath(name, key string) string {
	return "/players/" + url.PathEscape(name) + "/deadlines.ics?key=" + url.QueryEscape(key)
}
