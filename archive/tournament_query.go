package archive

import (
	"context"
	"fmt"
	"strings"
)

// TournamentsNamed returns the tournaments whose name is event, compared
// case-insensitively as the archive compares Event tags (its games carry
// the name as their Event), in the order they were created; none is not
// an error. Names are not unique: a club may run its "Autumn Cup" every
// year.
func (s *Store) TournamentsNamed(ctx context.Context, event string) ([]*Tournament, error) {
	key := strings.ToLower(event)
	if key == "" {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, name FROM tournaments ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("archive: tournaments named %q: %w", event, err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: tournaments named %q: %w", event, err)
		}
		if strings.ToLower(name) == key {
			ids = append(ids, id)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("archive: tournaments named %q: %w", event, err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: tournaments named %q: %w", event, err)
	}
	var ts []*Tournament
	for _, id := range ids {
		t, err := s.Tournament(ctx, id)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}
