package archive

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pbem/archive/score"
	"pbem/internal/english"
	"pbem/notation"
)

// Crosstable is the table of results of an event: every player against
// every other, with the score and the Sonneborn-Berger tie-break.
//
// Only decided games count (not *). A game of more than two sides (rpp)
// counts as pairwise results by rank: each pair of seats is a game won by
// the better ranked, drawn when they share a rank. A pair is left out when
// a side's player is unknown (no tag, "" or "?") or both seats are the same
// player.
type Crosstable struct {
	// Event as written in the event's first game.
	Event string
	// Games counts the games that gave at least one result.
	Games int
	// Players by rank: score, then Sonneborn-Berger, then name.
	Players []*Standing
}

// Standing is one player's row of a crosstable.
type Standing struct {
	// Rank is 1 for the best; players with equal score and tie-break share
	// a rank (1, 2, 2, 4).
	Rank int
	// Name is how the table names the player (see Player).
	Name string
	// Key identifies the player: the lower-cased address, or name.
	Key string
	// Games counts the games the player has results in.
	Games int
	// Results[j] are the player's results against Players[j], one
	// character per game in the order they were archived: "1" a win, "="
	// a draw, "0" a loss; "" when they never met.
	Results []string
	// Points (in half points) and SB (Sonneborn-Berger, in quarter
	// points): exact integers; Score and TieBreak give them as numbers.
	Points, SB int
}

// Score is the player's score (a win 1, a draw 1/2).
func (s *Standing) Score() float64 { return float64(s.Points) / 2 }

// TieBreak is the Sonneborn-Berger tie-break: for each opponent, the points
// scored against them times their score.
func (s *Standing) TieBreak() float64 { return float64(s.SB) / 4 }

// pairings returns a decided game's pairwise results by identityKey; nil
// when the game gives none.
func pairings(fd *Found) []score.Result {
	if len(fd.Sides) < 2 {
		return nil
	}
	keys := make([]string, len(fd.Sides))
	ranks := make([]int, len(fd.Sides))
	for i, sd := range fd.Sides {
		if sd.Rank == 0 {
			return nil // unfinished
		}
		keys[i], ranks[i] = identityKey(sd.Player), sd.Rank
	}
	return score.Pairs(keys, ranks, func(a, b string) bool { return a != "" && b != "" && a != b })
}

// names gives each player key a display name: the name part of the tag it
// was last written with, or the whole tag when two players would share a
// name.
type names struct {
	last map[string]string // key -> tag value
}

func (n *names) see(fd *Found) {
	if n.last == nil {
		n.last = map[string]string{}
	}
	for _, sd := range fd.Sides {
		if k := identityKey(sd.Player); k != "" {
			n.last[k] = sd.Player
		}
	}
}

func (n *names) resolve() map[string]string {
	count := map[string]int{}
	for _, v := range n.last {
		count[strings.ToLower(displayName(v))]++
	}
	out := map[string]string{}
	for k, v := range n.last {
		d := displayName(v)
		if count[strings.ToLower(d)] > 1 {
			d = strings.Join(strings.Fields(v), " ")
		}
		out[k] = d
	}
	return out
}

// Crosstable computes the crosstable of an event (the Event tag, compared
// case-insensitively) from the archive; f may narrow it further (a game
// id), and its Event is replaced by event.
func (s *Store) Crosstable(ctx context.Context, lookup notation.Lookup, event string, f Filter) (*Crosstable, error) {
	f.Event = event
	t := &Crosstable{Event: event}
	rows := map[string]*Standing{}
	var keys []string
	row := func(k string) *Standing {
		st := rows[k]
		if st == nil {
			st = &Standing{Key: k}
			rows[k] = st
			keys = append(keys, k)
		}
		return st
	}
	type game []score.Result
	var games []game
	var nm names
	first := true
	err := s.Query(ctx, lookup, f, func(fd *Found) error {
		if first {
			t.Event, first = fd.Event, false
		}
		ps := pairings(fd)
		if len(ps) == 0 {
			return nil
		}
		nm.see(fd)
		games = append(games, ps)
		in := map[string]bool{}
		for _, p := range ps {
			in[p.A], in[p.B] = true, true
		}
		for _, sd := range fd.Sides {
			if k := identityKey(sd.Player); in[k] {
				row(k).Games++
				in[k] = false
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.Games = len(games)
	points, sb := map[string]int{}, map[string]int{}
	for _, g := range games {
		score.Add(points, g)
	}
	for _, g := range games {
		score.SonnebornBerger(sb, g, points)
	}
	for k, st := range rows {
		st.Points, st.SB = points[k], sb[k]
	}
	display := nm.resolve()
	for _, k := range keys {
		rows[k].Name = display[k]
		t.Players = append(t.Players, rows[k])
	}
	slices.SortStableFunc(t.Players, func(a, b *Standing) int {
		switch {
		case a.Points != b.Points:
			return b.Points - a.Points
		case a.SB != b.SB:
			return b.SB - a.SB
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	ranks := score.Ranks(len(t.Players), func(i, j int) bool {
		return t.Players[i].Points == t.Players[j].Points && t.Players[i].SB == t.Players[j].SB
	})
	at := map[string]int{}
	for i, st := range t.Players {
		at[st.Key] = i
		st.Rank = ranks[i]
		st.Results = make([]string, len(t.Players))
	}
	sym := [3]string{"0", "=", "1"}
	for _, g := range games {
		for _, p := range g {
			a, b := rows[p.A], rows[p.B]
			a.Results[at[p.B]] += sym[p.Points]
			b.Results[at[p.A]] += sym[2-p.Points]
		}
	}
	return t, nil
}

// WriteText writes the crosstable as an aligned plain-text table: a title
// line, a blank line, a header, then one row per player with its rank, name,
// results against each column's player (columns are numbered as the rows;
// X on the diagonal, . where two never met), games, score and
// Sonneborn-Berger.
func (t *Crosstable) WriteText(w io.Writer) error {
	n := len(t.Players)
	header := []string{"#", "Player"}
	for i := range n {
		header = append(header, strconv.Itoa(i+1))
	}
	header = append(header, "Games", "Score", "SB")
	table := [][]string{header}
	for i, st := range t.Players {
		r := []string{strconv.Itoa(st.Rank), st.Name}
		for j, res := range st.Results {
			switch {
			case i == j:
				res = "X"
			case res == "":
				res = "."
			}
			r = append(r, res)
		}
		r = append(r, strconv.Itoa(st.Games), score.Half(st.Points), score.Quarter(st.SB))
		table = append(table, r)
	}
	width := make([]int, len(header))
	for _, r := range table {
		for j, c := range r {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s\n\n", t.Event, english.Plural(n, "player"), english.Plural(t.Games, "game"))
	for _, r := range table {
		var line strings.Builder
		for j, c := range r {
			if j > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			if j == 1 || (j >= 2 && j < 2+n) {
				line.WriteString(c + pad) // names and results: left
			} else {
				line.WriteString(pad + c) // numbers: right
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the crosstable as CSV for spreadsheets: a header (Rank,
// Player, 1..n, Games, Score, SB), then one record per player; a result
// cell holds the points the player scored against that column's player (a
// number, not WriteText's symbols, which a spreadsheet would read as
// formulas), and is empty on the diagonal and where two never met.
func (t *Crosstable) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"Rank", "Player"}
	for i := range t.Players {
		header = append(header, strconv.Itoa(i+1))
	}
	header = append(header, "Games", "Score", "SB")
	cw.Write(header)
	for _, st := range t.Players {
		r := []string{strconv.Itoa(st.Rank), st.Name}
		for _, res := range st.Results {
			if res == "" {
				r = append(r, "")
				continue
			}
			half := 2*strings.Count(res, "1") + strings.Count(res, "=")
			r = append(r, score.Half(half))
		}
		r = append(r, strconv.Itoa(st.Games), score.Half(st.Points), score.Quarter(st.SB))
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}
