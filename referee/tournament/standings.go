package tournament

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pbem/archive/score"
)

// Standings is the table of an event after the results so far.
//
// Points: a game scores, for each other player at it, 1 for ranking better,
// 1/2 for the same rank (a two-player game: win 1, draw 1/2, loss 0; a
// table of S: S minus the rank, shared places averaged: exactly what
// archive.Crosstable counts for rpp games, pair by pair). The
// pairing-allocated bye scores 1 (at tables of S, (S-1)/2, a table's
// average), or 0 with UnscoredByes; a requested half-point bye 1/2 and a
// zero-point one (an absence) 0, from the pairing of their round on. A
// forfeit scores like the game it replaces. Pending games score nothing.
//
// Sonneborn-Berger (round robins and tables): for each game played, the
// points scored against each opponent times that opponent's score. Byes
// and forfeits add nothing. For a round robin without scored byes or
// forfeits this is archive.Crosstable's SB, as its score is the Points.
//
// Buchholz (Swiss): the sum of the scores of the opponents played; each
// unplayed round (any bye: pairing-allocated, half-point or zero-point;
// or a game won or lost by forfeit) counts as an opponent with the
// player's own score (FIDE's virtual-opponent rule of the tie-break
// regulations, with the final score; opponents' scores are taken as they
// are, byes included). Median Buchholz drops the highest and the lowest of
// those values (nothing is left of fewer than three).
//
// Order: score, then Sonneborn-Berger (round robins, tables) or Buchholz,
// then median Buchholz (Swiss). Players equal in all share a rank (1, 2,
// 2, 4) and are listed by seed. Withdrawn players keep their row.
type Standings struct {
	// Event is the event's name; Format its format.
	Event  string
	Format Format
	// Rounds is the number of rounds of the event; Completed the number of
	// rounds whose games have all ended (counting from round 1).
	Rounds, Completed int
	// Players by rank.
	Players []*Standing
}

// Standing is one player's row.
type Standing struct {
	// Rank is 1 for the best; equal rows share a rank.
	Rank int
	// Player as entered; Seed is the place in the seed order, from 1.
	Player Player
	Seed   int
	// Games counts the ended games, forfeits included; Forfeits the games
	// among them decided without play; Byes the rounds sat out, of every
	// kind, in the rounds paired so far.
	Games, Forfeits, Byes int
	// Points in half points, SB (Sonneborn-Berger) in quarter points,
	// Buchholz and MedianBuchholz in half points: exact integers.
	Points, SB, Buchholz, MedianBuchholz int
	// Withdrawn is true for a player who left.
	Withdrawn bool
}

// Score is the player's score in points.
func (s *Standing) Score() float64 { return float64(s.Points) / 2 }

// Standings computes the standings of the results so far.
func (e *Event) Standings() (*Standings, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	st := &Standings{Event: e.Name, Format: e.Format, Rounds: e.TotalRounds(), Completed: e.completed()}
	rows := map[string]*Standing{}
	for i, p := range e.Players {
		rows[p.ID] = &Standing{Player: p, Seed: i + 1, Withdrawn: e.withdrawn(p.ID)}
		st.Players = append(st.Players, rows[p.ID])
	}
	for id, pts := range e.scores() {
		rows[id].Points = pts
	}
	for _, b := range e.byesSoFar() {
		rows[b.Player].Byes++
	}
	points := map[string]int{}
	for id, r := range rows {
		points[id] = r.Points
	}
	buch := map[string][]int{}
	sb := map[string]int{}
	for _, g := range e.Games {
		if !g.Ended() {
			continue
		}
		for _, id := range g.Players {
			r := rows[id]
			r.Games++
			if g.Forfeit {
				r.Forfeits++
			}
		}
		if g.Forfeit {
			continue // adds nothing to Sonneborn-Berger; Buchholz counts it below
		}
		rs := score.Pairs(g.Players, g.Ranks, nil)
		score.SonnebornBerger(sb, rs, points)
		for _, res := range rs {
			buch[res.A] = append(buch[res.A], points[res.B])
			buch[res.B] = append(buch[res.B], points[res.A])
		}
	}
	for id, r := range rows {
		r.SB = sb[id]
	}
	for _, r := range st.Players {
		vs := buch[r.Player.ID]
		for range r.Byes + r.Forfeits {
			vs = append(vs, r.Points)
		}
		slices.Sort(vs)
		for k, v := range vs {
			r.Buchholz += v
			if k > 0 && k < len(vs)-1 {
				r.MedianBuchholz += v
			}
		}
	}
	keys := func(r *Standing) []int {
		if e.Format == Swiss {
			return []int{r.Points, r.Buchholz, r.MedianBuchholz}
		}
		return []int{r.Points, r.SB}
	}
	slices.SortStableFunc(st.Players, func(a, b *Standing) int {
		return cmp.Or(slices.Compare(keys(b), keys(a)), cmp.Compare(a.Seed, b.Seed))
	})
	ranks := score.Ranks(len(st.Players), func(i, j int) bool { return slices.Equal(keys(st.Players[i]), keys(st.Players[j])) })
	for i, r := range st.Players {
		r.Rank = ranks[i]
	}
	return st, nil
}

// completed returns the number of rounds, from round 1, whose games have
// all ended.
func (e *Event) completed() int {
	last := e.Paired()
	for _, g := range e.Games {
		if !g.Ended() {
			last = min(last, g.Round-1)
		}
	}
	return last
}

// MaxWidth is the widest line WriteText writes.
const MaxWidth = 72

// WriteText writes the standings for mail: a title line, a blank line, a
// header and one row per player (rank, name, score, games, byes when any,
// then the tie-breaks), aligned, at most MaxWidth columns: long names are
// cut and end in "~". A withdrawn player's row ends in "withdrew".
func (s *Standings) WriteText(w io.Writer) error {
	header := []string{"#", "Player", "Score", "Games"}
	byes := slices.ContainsFunc(s.Players, func(r *Standing) bool { return r.Byes > 0 })
	if byes {
		header = append(header, "Byes")
	}
	if s.Format == Swiss {
		header = append(header, "Buch", "Med")
	} else {
		header = append(header, "SB")
	}
	table := [][]string{header}
	for _, r := range s.Players {
		row := []string{strconv.Itoa(r.Rank), r.Player.Name, score.Half(r.Points), strconv.Itoa(r.Games)}
		if row[1] == "" {
			row[1] = r.Player.ID
		}
		if byes {
			row = append(row, strconv.Itoa(r.Byes))
		}
		if s.Format == Swiss {
			row = append(row, score.Half(r.Buchholz), score.Half(r.MedianBuchholz))
		} else {
			row = append(row, score.Quarter(r.SB))
		}
		if r.Withdrawn {
			row = append(row, "withdrew")
		}
		table = append(table, row)
	}
	width := make([]int, len(header)+1)
	for _, row := range table {
		for j, c := range row {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	// Cut the name column so that the widest row fits.
	total := 0
	for j, wd := range width {
		if wd > 0 {
			total += wd
			if j > 0 {
				total += 2
			}
		}
	}
	if over := total - MaxWidth; over > 0 {
		width[1] = max(4, width[1]-over)
	}
	var b strings.Builder
	title := fmt.Sprintf("%s: %s, %d players, ", s.Event, s.Format, len(s.Players))
	if s.Completed == 0 {
		title += fmt.Sprintf("%d rounds, none completed", s.Rounds)
	} else {
		title += fmt.Sprintf("after round %d of %d", s.Completed, s.Rounds)
	}
	b.WriteString(cut(title, MaxWidth) + "\n\n")
	for _, row := range table {
		var line strings.Builder
		for j, c := range row {
			if j > 0 {
				line.WriteString("  ")
			}
			if j == 1 {
				c = cut(c, width[1])
			}
			pad := strings.Repeat(" ", max(0, width[j]-utf8.RuneCountInString(c)))
			if j == 1 || j == len(header) {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cut shortens s to n runes, ending in "~" when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "~"
}

// WritePairings writes round r for mail: a title line, then one line per
// board ("1. Alice - Bob", the first named moving first), with the result
// once the game has ended (1-0, 0-1, 1/2 for two players; the ranks of a
// table, as 1 2 2), "forfeit" when decided without play, and the byes.
func (e *Event) WritePairings(w io.Writer, r int) error {
	name := map[string]string{}
	for _, p := range e.Players {
		name[p.ID] = cmp.Or(p.Name, p.ID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: round %d of %d\n\n", e.Name, r, e.TotalRounds())
	var games []Game
	for _, g := range e.Games {
		if g.Round == r {
			games = append(games, g)
		}
	}
	slices.SortStableFunc(games, func(a, b Game) int { return cmp.Compare(a.Board, b.Board) })
	for _, g := range games {
		names := make([]string, len(g.Players))
		for i, id := range g.Players {
			names[i] = name[id]
		}
		line := fmt.Sprintf("%d. %s", g.Board, strings.Join(names, " - "))
		switch {
		case !g.Ended():
		case len(g.Ranks) == 2 && g.Ranks[0] < g.Ranks[1]:
			line += "  1-0"
		case len(g.Ranks) == 2 && g.Ranks[0] > g.Ranks[1]:
			line += "  0-1"
		case len(g.Ranks) == 2:
			line += "  1/2"
		default:
			rs := make([]string, len(g.Ranks))
			for i, k := range g.Ranks {
				rs[i] = strconv.Itoa(k)
			}
			line += "  " + strings.Join(rs, " ")
		}
		if g.Forfeit {
			line += " forfeit"
		}
		b.WriteString(cut(line, MaxWidth) + "\n")
	}
	for _, by := range e.Byes {
		if by.Round == r {
			what := map[ByeKind]string{PairingBye: "bye: ", HalfPoint: "half-point bye: ", ZeroPoint: "absent: "}[by.Kind]
			b.WriteString(cut(what+name[by.Player], MaxWidth) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
