package archive

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pbem/archive/score"
	"pbem/internal/english"
	"pbem/notation"
)

// Elo parameters: every player starts at InitialRating; a rated game moves
// a rating by K times (score - expected score), with K = KNew for a
// player's first KNewGames rated games of that game and KEstablished
// after.
const (
	InitialRating = 1500
	KNew          = 40
	KNewGames     = 10
	KEstablished  = 20
)

// Rating is one player's Elo rating in one game.
type Rating struct {
	// Name is how the table names the player; Key identifies the player
	// (as in Standing).
	Name, Key string
	Rating    float64
	// Games counts the rated games the rating comes from.
	Games int
}

// Ratings is the rating list of one game.
type Ratings struct {
	// Game is the game id.
	Game string
	// Games counts the rated games that gave at least one result.
	Games int
	// Players by rating, best first (then by name).
	Players []*Rating
}

// ratedGame is what the ratings need of one game.
type ratedGame struct {
	id    int64
	day   string
	pairs []score.Result
	seats []string // player keys of the seats with results, once each
}

// Ratings computes Elo ratings per game id from the archive: the rated,
// decided games of each game (of game only, when it is not ""), in the
// order of their Date (a date with unknown parts counts from its earliest
// day; games of unknown date come first), then of archiving.
//
// A game of more than two sides (rpp) counts as pairwise results by rank,
// as in a crosstable; so that it weighs as one game, a player's change is
// K times the mean of its pairwise (score - expected) over the pairs it
// has in the game. Changes are computed from the ratings before the game
// and applied together. Pairs with an unknown player, or the same player
// twice, are left out.
func (s *Store) Ratings(ctx context.Context, lookup notation.Lookup, game string) ([]*Ratings, error) {
	return s.RatingsOf(ctx, lookup, Filter{Game: game})
}

// RatingsOf computes the ratings as Ratings does from the games f selects
// (the web's: f.Public).
func (s *Store) RatingsOf(ctx context.Context, lookup notation.Lookup, f Filter) ([]*Ratings, error) {
	byGame := map[string][]ratedGame{}
	nms := map[string]*names{}
	err := s.Query(ctx, lookup, f, func(fd *Found) error {
		if !fd.Rated {
			return nil
		}
		ps := pairings(fd)
		// A seat the computer played on after its player left is no
		// one's result.
		for _, sd := range fd.Sides {
			if strings.HasSuffix(sd.Player, PlayedByComputer) {
				k := identityKey(sd.Player)
				ps = slices.DeleteFunc(ps, func(p score.Result) bool { return p.A == k || p.B == k })
			}
		}
		if len(ps) == 0 {
			return nil
		}
		rg := ratedGame{id: fd.ID, day: day(fd.Date), pairs: ps}
		for _, p := range ps {
			for _, k := range []string{p.A, p.B} {
				if !slices.Contains(rg.seats, k) {
					rg.seats = append(rg.seats, k)
				}
			}
		}
		byGame[fd.Game] = append(byGame[fd.Game], rg)
		if nms[fd.Game] == nil {
			nms[fd.Game] = &names{}
		}
		nms[fd.Game].see(fd)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var ids []string
	for id := range byGame {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []*Ratings
	for _, id := range ids {
		games := byGame[id]
		slices.SortStableFunc(games, func(a, b ratedGame) int {
			if c := strings.Compare(a.day, b.day); c != 0 {
				return c
			}
			return int(a.id - b.id)
		})
		rl := &Ratings{Game: id, Games: len(games)}
		players := map[string]*Rating{}
		for _, g := range games {
			rate(players, g)
		}
		display := nms[id].resolve()
		for k, r := range players {
			r.Key, r.Name = k, display[k]
			rl.Players = append(rl.Players, r)
		}
		slices.SortFunc(rl.Players, func(a, b *Rating) int {
			if a.Rating != b.Rating {
				if a.Rating > b.Rating {
					return -1
				}
				return 1
			}
			if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
				return c
			}
			return strings.Compare(a.Key, b.Key)
		})
		out = append(out, rl)
	}
	return out, nil
}

// Expected is the Elo expected score of a player rated a against one rated
// b.
func Expected(a, b float64) float64 { return 1 / (1 + math.Pow(10, (b-a)/400)) }

// rate applies one game to the ratings.
func rate(players map[string]*Rating, g ratedGame) {
	for _, k := range g.seats {
		if players[k] == nil {
			players[k] = &Rating{Rating: InitialRating}
		}
	}
	sum := map[string]float64{} // sum of score - expected
	n := map[string]int{}       // pairs
	for _, p := range g.pairs {
		ra, rb := players[p.A].Rating, players[p.B].Rating
		sa := float64(p.Points) / 2
		ea := Expected(ra, rb)
		sum[p.A] += sa - ea
		sum[p.B] += (1 - sa) - (1 - ea)
		n[p.A]++
		n[p.B]++
	}
	for _, k := range g.seats {
		r := players[k]
		kf := float64(KEstablished)
		if r.Games < KNewGames {
			kf = KNew
		}
		r.Rating += kf * sum[k] / float64(n[k])
		r.Games++
	}
}

// WriteRatingsText writes the rating lists: for each game a title line, a header
// and one row per player (rank, name, rating rounded to a whole number,
// games); lists are separated by a blank line.
func WriteRatingsText(w io.Writer, lists []*Ratings) error {
	var b strings.Builder
	for i, rl := range lists {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s, %s\n\n", rl.Game, english.Plural(len(rl.Players), "player"), english.Plural(rl.Games, "rated game"))
		table := [][]string{{"#", "Player", "Rating", "Games"}}
		for j, r := range rl.Players {
			table = append(table, []string{strconv.Itoa(j + 1), r.Name, strconv.FormatFloat(math.Round(r.Rating), 'f', 0, 64), strconv.Itoa(r.Games)})
		}
		width := make([]int, 4)
		for _, r := range table {
			for j, c := range r {
				width[j] = max(width[j], utf8.RuneCountInString(c))
			}
		}
		for _, r := range table {
			pad := func(j int) string { return strings.Repeat(" ", width[j]-utf8.RuneCountInString(r[j])) }
			line := pad(0) + r[0] + "  " + r[1] + pad(1) + "  " + pad(2) + r[2] + "  " + pad(3) + r[3]
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteRatingsCSV writes the rating lists as CSV: Game, Rank, Player,
// Rating (one decimal), Games.
func WriteRatingsCSV(w io.Writer, lists []*Ratings) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"Game", "Rank", "Player", "Rating", "Games"})
	for _, rl := range lists {
		for j, r := range rl.Players {
			cw.Write([]string{rl.Game, strconv.Itoa(j + 1), r.Name, strconv.FormatFloat(r.Rating, 'f', 1, 64), strconv.Itoa(r.Games)})
		}
	}
	cw.Flush()
	return cw.Error()
}
