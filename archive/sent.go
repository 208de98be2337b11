package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SentText returns the text of the mail the referee queued with this
// Message-ID (angle brackets optional), whatever its status, or
// ErrNotFound (no such mail, or pruned since). The referee reads it to know
// which lines of a reply reproduce its own mail.
func (s *Store) SentText(ctx context.Context, messageID string) (string, error) {
	id := strings.Trim(strings.TrimSpace(messageID), "<>")
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM outbox WHERE message_id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("archive: sent text: %w", err)
	}
	return body, nil
}
