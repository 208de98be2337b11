package archive

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// secretsSchema holds the referee's secret keys, each made once (Secret),
// in hexadecimal.
const secretsSchema = `
CREATE TABLE secrets (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`

// SecretSize is the size in bytes of a secret made by [Store.Secret].
const SecretSize = 32

// Secret returns the store's secret key called name: SecretSize random
// bytes made the first time any process asks for it and the same from then
// on, for every instance on the store. The referee keys its Message-IDs
// and the marks of its copies with it, so that no one without the store
// can make them.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var text string
	err := s.q(nil).QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&text)
	key, herr := hex.DecodeString(text)
	if err == nil && herr == nil && len(key) == SecretSize {
		return key, nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	if err == nil {
		return nil, fmt.Errorf("archive: secret %s is %q, expected %d bytes in hexadecimal", name, text, SecretSize)
	}
	fresh := make([]byte, SecretSize)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	tx, err := s.beginTx(ctx, txUnfenced)
	if err != nil {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	defer tx.Rollback()
	// Another process may make it at the same time: the first one stays.
	if _, err := tx.ExecContext(ctx, `INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, hex.EncodeToString(fresh)); err != nil {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&text); err != nil {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	if key, err = hex.DecodeString(text); err != nil || len(key) != SecretSize {
		return nil, fmt.Errorf("archive: secret %s is %q, expected %d bytes in hexadecimal", name, text, SecretSize)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("archive: secret %s: %w", name, err)
	}
	return key, nil
}
