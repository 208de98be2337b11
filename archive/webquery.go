package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"pbem/notation"
)

// RecentGames returns up to limit games whose status is one of statuses,
// the most recently changed first (for the web pages' lists).
func (s *Store) RecentGames(ctx context.Context, statuses []string, limit int) ([]*Game, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = 100
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(statuses)), ", ")
	args := make([]any, 0, len(statuses)+1)
	for _, st := range statuses {
		args = append(args, st)
	}
	args = append(args, limit)
	return s.games(ctx, s.db, `SELECT `+gameColumns+` FROM games
WHERE status IN (`+marks+`) ORDER BY updated DESC, id DESC LIMIT ?`, args...)
}

// GameStamp is a game's id and version at a moment (Changed).
type GameStamp struct {
	ID      int64
	Version int64
	Updated time.Time
}

// Changed returns the id and version of every game changed at or after
// since, by time of change: a poller that remembers the versions it saw
// learns of every commit.
func (s *Store) Changed(ctx context.Context, since time.Time) ([]GameStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, version, updated FROM games WHERE updated >= ? ORDER BY updated, id`, unix(since))
	if err != nil {
		return nil, fmt.Errorf("archive: changed: %w", err)
	}
	defer rows.Close()
	var out []GameStamp
	for rows.Next() {
		var st GameStamp
		var updated int64
		if err := rows.Scan(&st.ID, &st.Version, &updated); err != nil {
			return nil, fmt.Errorf("archive: changed: %w", err)
		}
		st.Updated = fromUnix(updated)
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: changed: %w", err)
	}
	return out, nil
}

// Entry returns the archived game with the archive id, or ErrNotFound.
func (s *Store) Entry(ctx context.Context, id int64) (Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM archive WHERE id = ?`, id)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Entry{}, fmt.Errorf("archive: entry: %w", err)
		}
		return Entry{}, ErrNotFound
	}
	e, err := scanEntry(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	return e, nil
}

// RatingPoint is a player's rating after one rated game.
type RatingPoint struct {
	// EntryID is the archived game; Date its Date tag.
	EntryID int64
	Date    string
	Rating  float64
}

// RatingHistory is how one player's rating in one game moved.
type RatingHistory struct {
	Game string
	// Name and Key as in Rating.
	Name, Key string
	// Points in the order Ratings applies the games.
	Points []RatingPoint
}

// RatingHistories computes, as Ratings does, every player's rating after
// each of their rated games, per game id (of game only, when it is not
// ""): by game id, then player name.
func (s *Store) RatingHistories(ctx context.Context, lookup notation.Lookup, game string) ([]*RatingHistory, error) {
	byGame := map[string][]ratedGame{}
	dates := map[int64]string{}
	nms := map[string]*names{}
	err := s.Query(ctx, lookup, Filter{Game: game}, func(fd *Found) error {
		if !fd.Rated {
			return nil
		}
		ps := pairings(fd)
		if len(ps) == 0 {
			return nil
		}
		rg := ratedGame{id: fd.ID, day: day(fd.Date), pairs: ps}
		for _, p := range ps {
			for _, k := range []string{p.a, p.b} {
				if !slices.Contains(rg.seats, k) {
					rg.seats = append(rg.seats, k)
				}
			}
		}
		byGame[fd.Game] = append(byGame[fd.Game], rg)
		dates[fd.ID] = fd.Date
		if nms[fd.Game] == nil {
			nms[fd.Game] = &names{}
		}
		nms[fd.Game].see(fd)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*RatingHistory
	for id, games := range byGame {
		slices.SortStableFunc(games, func(a, b ratedGame) int {
			if c := strings.Compare(a.day, b.day); c != 0 {
				return c
			}
			return int(a.id - b.id)
		})
		display := nms[id].resolve()
		players := map[string]*Rating{}
		hist := map[string]*RatingHistory{}
		for _, g := range games {
			rate(players, g)
			for _, k := range g.seats {
				h := hist[k]
				if h == nil {
					h = &RatingHistory{Game: id, Name: display[k], Key: k}
					hist[k] = h
					out = append(out, h)
				}
				h.Points = append(h.Points, RatingPoint{EntryID: g.id, Date: dates[g.id], Rating: players[k].Rating})
			}
		}
	}
	slices.SortFunc(out, func(a, b *RatingHistory) int {
		if c := strings.Compare(a.Game, b.Game); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, nil
}
