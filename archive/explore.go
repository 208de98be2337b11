package archive

import (
	"context"
	"fmt"
	"slices"

	"pbem/engine"
	"pbem/notation"
)

// Played is one ply played from a position in the archive, as the
// explorer shows it: how often, and how the games went for the side that
// played it (the side to move in the position).
type Played struct {
	// Ply is the ply's canonical spelling.
	Ply string
	// Games counts the games that played it from the position (a game that
	// passes through the position twice counts twice).
	Games int
	// Wins, Draws and Losses count the finished games that the side to
	// move won (ranked first alone), drew (shared first place) or lost;
	// Unfinished counts games without a result.
	Wins, Draws, Losses, Unfinished int
	// RankSum adds the ranks of the side to move over the finished games
	// (the average rank, for rpp, is RankSum over the finished games).
	RankSum int
}

// Finished counts the games with a result.
func (p *Played) Finished() int { return p.Wins + p.Draws + p.Losses }

// AverageRank is the side to move's average rank over the finished games
// (0 when none is finished).
func (p *Played) AverageRank() float64 {
	if p.Finished() == 0 {
		return 0
	}
	return float64(p.RankSum) / float64(p.Finished())
}

// Explore lists every ply played in the archive from the position of the
// filter (f.Position, of f.Game; see ReadPosition and AfterPlies), with its
// count and results, most played first (then by spelling). The filter's
// Event, Player, Since, Public and Name (the start of a side's public name)
// narrow the games counted; Text is not used.
func (s *Store) Explore(ctx context.Context, lookup notation.Lookup, f Filter) ([]*Played, error) {
	if f.Position == "" {
		return nil, fmt.Errorf("archive: explore needs a position")
	}
	if err := f.Check(lookup); err != nil {
		return nil, err
	}
	if err := s.Reindex(ctx, lookup); err != nil {
		return nil, err
	}
	c, err := lookup(f.Game)
	if err != nil {
		return nil, fmt.Errorf("archive: %v", err)
	}
	st, err := engine.ParsePosition(c.Rules(), f.Options, f.Position)
	if err != nil {
		return nil, fmt.Errorf("archive: %v", err)
	}
	key := f.posKey
	g := f
	g.Position, g.Text, g.Name = "", nil, ""
	where, args := g.where(s.pg)
	var named map[int64]bool // with a Name: the games it keeps
	if f.Name != "" {
		if named, err = s.namedThrough(ctx, key, nameKey(f.Name)); err != nil {
			return nil, fmt.Errorf("archive: explore: %w", err)
		}
	}
	q := `SELECT p.entry_id, p.next, COALESCE(s.rank, 0),
	(SELECT COUNT(*) FROM archive_sides t WHERE t.entry_id = p.entry_id AND t.rank = 1)
FROM archive_positions p JOIN archive a ON a.id = p.entry_id JOIN archive_index i ON i.entry_id = a.id
LEFT JOIN archive_sides s ON s.entry_id = p.entry_id AND s.seat = ?
WHERE p.pos_key = ? AND p.next != ''` + where
	rows, err := s.db.QueryContext(ctx, q, append([]any{st.ToMove(), int64(key)}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("archive: explore: %w", err)
	}
	defer rows.Close()
	byPly := map[string]*Played{}
	var out []*Played
	for rows.Next() {
		var id int64
		var ply string
		var rank, firsts int
		if err := rows.Scan(&id, &ply, &rank, &firsts); err != nil {
			return nil, fmt.Errorf("archive: explore: %w", err)
		}
		if named != nil && !named[id] {
			continue
		}
		p := byPly[ply]
		if p == nil {
			p = &Played{Ply: ply}
			byPly[ply] = p
			out = append(out, p)
		}
		p.Games++
		switch {
		case rank == 0:
			p.Unfinished++
		case rank == 1 && firsts == 1:
			p.Wins++
		case rank == 1:
			p.Draws++
		default:
			p.Losses++
		}
		p.RankSum += rank
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: explore: %w", err)
	}
	slices.SortFunc(out, func(a, b *Played) int {
		if a.Games != b.Games {
			return b.Games - a.Games
		}
		if a.Ply < b.Ply {
			return -1
		}
		if a.Ply > b.Ply {
			return 1
		}
		return 0
	})
	return out, nil
}

// namedThrough is the set of the games through the position key that a
// side's public name starting with k (nameKey) plays in.
func (s *Store) namedThrough(ctx context.Context, key uint64, k string) (map[int64]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.entry_id, s.player FROM archive_sides s
WHERE s.entry_id IN (SELECT p.entry_id FROM archive_positions p WHERE p.pos_key = ?)`, int64(key))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	named := map[int64]bool{}
	for rows.Next() {
		var id int64
		var player string
		if err := rows.Scan(&id, &player); err != nil {
			return nil, err
		}
		if namedSide(&Found{Sides: []Side{{Player: player}}}, k) {
			named[id] = true
		}
	}
	return named, rows.Err()
}
