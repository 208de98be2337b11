package tournament

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TRF is the FIDE tournament report format (TRF16), the file that pairing
// engines and rating officers exchange. ReadTRF and WriteTRF read and
// write the part of it that a Swiss event of pbem needs:
//
//	012 NAME                 the event's name
//	XXR N                    the number of rounds
//	XXC white1               the top seed has White in round 1
//	001 ...                  one line a player, by pairing number (seed)
//
// A player line holds, in fixed columns, the pairing number (5-8), the
// name (15-47), the score (81-84), the rank (86-89) and from column 92
// ten columns a round: the opponent's pairing number (0000 for none), w
// or b, and the result: 1, = or 0 for a game played, + or - for one
// forfeited, U for the pairing-allocated bye, Z (or -) without an opponent
// for the absence of a player who has withdrawn.

// trfRound is where a player line's rounds start (0-based column), and
// the width of a round.
const (
	trfRound      = 91
	trfRoundWidth = 10
)

// ReadTRF reads a tournament report into a Swiss event: players get the
// IDs "1", "2", ... (their pairing numbers) and their names, games and
// byes are the rounds of the player lines. Lines other than 012, XXR, XXC
// and 001 are ignored. It fails, saying which line, on what it cannot
// take: a player numbered out of order, a result other than 1 = 0 + - U
// (W D L count as 1 = 0), an absence (0000 - Z) followed by a round
// played (absences mark a withdrawal: the player is in Withdrawn), two
// players whose lines disagree about their game, a stated score that is
// not the sum of the results, or XXC black1.
func ReadTRF(r io.Reader) (*Event, error) {
	e := &Event{Format: Swiss}
	type cell struct {
		opp    int
		colour byte
		result byte
		line   int
	}
	var rows [][]cell
	var stated []string // scores as written
	var lines []int     // the player lines' numbers
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), " \r")
		switch {
		case strings.HasPrefix(line, "012 "):
			e.Name = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "XXR"):
			n, err := strconv.Atoi(strings.TrimSpace(line[3:]))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("tournament: TRF line %d: XXR wants the number of rounds, found %q", lineNo, line)
			}
			e.Rounds = n
		case strings.HasPrefix(line, "XXC"):
			for _, f := range strings.Fields(line[3:]) {
				if f == "black1" {
					return nil, fmt.Errorf("tournament: TRF line %d: XXC black1 is not supported: pbem gives the top seed White in round 1 (white1)", lineNo)
				}
			}
		case strings.HasPrefix(line, "001"):
			if len(line) < 84 {
				return nil, fmt.Errorf("tournament: TRF line %d: a player line is %d columns long, want at least 84 (up to the score)", lineNo, len(line))
			}
			no, err := strconv.Atoi(strings.TrimSpace(line[4:8]))
			if err != nil || no != len(rows)+1 {
				return nil, fmt.Errorf("tournament: TRF line %d: pairing number %q, want %d (players numbered 1, 2, ... in order)", lineNo, line[4:8], len(rows)+1)
			}
			name := strings.TrimSpace(line[14:min(47, len(line))])
			e.Players = append(e.Players, Player{ID: strconv.Itoa(no), Name: name})
			stated = append(stated, strings.TrimSpace(line[80:84]))
			var row []cell
			for k := 0; trfRound+k*trfRoundWidth < len(line); k++ {
				at := trfRound + k*trfRoundWidth
				field := line[at:min(at+8, len(line))]
				field += strings.Repeat(" ", 8-len(field))
				c := cell{colour: field[5], result: field[7], line: lineNo}
				opp := strings.TrimSpace(field[:4])
				if opp == "" && strings.TrimSpace(field) == "" {
					return nil, fmt.Errorf("tournament: TRF line %d: round %d is empty: pbem pairs every player every round (a bye is 0000 - U)", lineNo, k+1)
				}
				if c.opp, err = strconv.Atoi(opp); err != nil {
					return nil, fmt.Errorf("tournament: TRF line %d: round %d: opponent %q is not a pairing number", lineNo, k+1, field[:4])
				}
				row = append(row, c)
			}
			rows = append(rows, row)
			lines = append(lines, lineNo)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tournament: reading TRF: %w", err)
	}
	n := len(rows)
	// Absences (0000 - Z, or 0000 - -) at the end of a line mark a
	// withdrawal; one in the round after the last played says the player
	// is not to be paired, as pairing engines read it.
	absent := func(c cell) bool { return c.opp == 0 && (c.result == 'Z' || c.result == '-') }
	played := 0
	gone := make([]int, n) // the first round of the trailing absences, from 0; -1 for none
	for i, row := range rows {
		gone[i] = -1
		k := len(row)
		for k > 0 && absent(row[k-1]) {
			k--
		}
		if k < len(row) {
			gone[i] = k
			e.Withdrawn = append(e.Withdrawn, e.Players[i].ID)
		}
		rows[i] = row[:k]
		played = max(played, k)
	}
	if e.Rounds == 0 {
		e.Rounds = played + 1
	}
	if played > e.Rounds {
		return nil, fmt.Errorf("tournament: TRF: %d rounds played, but XXR says the event has %d", played, e.Rounds)
	}
	score := func(b byte) (int, bool) {
		switch b {
		case '1', 'W', '+':
			return 2, true
		case '=', 'D':
			return 1, true
		case '0', 'L', '-':
			return 0, true
		}
		return 0, false
	}
	for i, row := range rows {
		if len(row) != played && gone[i] < 0 {
			return nil, fmt.Errorf("tournament: TRF line %d: %d rounds, but others have %d: pbem pairs every player every round until they withdraw (0000 - Z)", lines[i], len(row), played)
		}
		total := 0
		for k, c := range row {
			round := k + 1
			if absent(c) {
				return nil, fmt.Errorf("tournament: TRF line %d: round %d: absent (0000 - %c), but a later round is not: pbem knows absence only after a withdrawal, for every round after it", c.line, round, c.result)
			}
			if c.opp == 0 {
				if c.result != 'U' {
					return nil, fmt.Errorf("tournament: TRF line %d: round %d: result %q without an opponent; pbem knows only the pairing-allocated bye (0000 - U) and the absence of a withdrawn player (0000 - Z)", c.line, round, string(c.result))
				}
				e.Byes = append(e.Byes, Bye{Round: round, Player: e.Players[i].ID})
				total += 2
				continue
			}
			pts, ok := score(c.result)
			if !ok {
				return nil, fmt.Errorf("tournament: TRF line %d: round %d: result %q, want one of 1 = 0 + - (or W D L)", c.line, round, string(c.result))
			}
			total += pts
			if c.opp < 1 || c.opp > n || c.opp == i+1 {
				return nil, fmt.Errorf("tournament: TRF line %d: round %d: opponent %d is not another player (1-%d)", c.line, round, c.opp, n)
			}
			if c.colour != 'w' && c.colour != 'b' {
				return nil, fmt.Errorf("tournament: TRF line %d: round %d: colour %q, want w or b", c.line, round, string(c.colour))
			}
			o := rows[c.opp-1][k]
			opts, _ := score(o.result)
			forfeit := c.result == '+' || c.result == '-'
			if o.opp != i+1 || o.colour == c.colour || pts+opts != 2 || forfeit != (o.result == '+' || o.result == '-') {
				return nil, fmt.Errorf("tournament: TRF line %d: round %d: player %d's game against %d (%c %c) does not match line %d (%d %c %c)", c.line, round, i+1, c.opp, c.colour, c.result, o.line, o.opp, o.colour, o.result)
			}
			if c.colour != 'w' {
				continue
			}
			ranks := []int{1, 1}
			switch pts {
			case 2:
				ranks[1] = 2
			case 0:
				ranks[0] = 2
			}
			e.Games = append(e.Games, Game{Round: round, Players: []string{e.Players[i].ID, e.Players[c.opp-1].ID}, Ranks: ranks, Forfeit: forfeit})
		}
		if s := stated[i]; s != "" && s != half(total) {
			return nil, fmt.Errorf("tournament: TRF line %d: score %s, but the results add up to %s", lines[i], s, half(total))
		}
	}
	slices.SortStableFunc(e.Games, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	slices.SortStableFunc(e.Byes, func(a, b Bye) int { return cmp.Compare(a.Round, b.Round) })
	board := map[int]int{}
	for i := range e.Games {
		board[e.Games[i].Round]++
		e.Games[i].Board = board[e.Games[i].Round]
	}
	return e, nil
}

// WriteTRF writes a two-player event as a tournament report: players by
// seed (pairing numbers 1, 2, ...), their scores, their places (by score,
// then seed) and the rounds complete so far (every game with a result),
// so that a pairing engine pairs the round after them. A withdrawn
// player's rounds without a game are absences (0000 - Z). Names are cut
// to the 33 columns TRF gives them.
func (e *Event) WriteTRF(w io.Writer) error {
	if err := e.Check(); err != nil {
		return err
	}
	if e.Format == Tables {
		return fmt.Errorf("tournament: TRF holds two-player games, not the tables of %q", e.Name)
	}
	no := map[string]int{}
	for i, p := range e.Players {
		no[p.ID] = i + 1
	}
	played := e.Paired() // rounds complete: every game with a result
	for _, g := range e.Games {
		if !g.Ended() {
			played = min(played, g.Round-1)
		}
	}
	cells := make([][]string, len(e.Players))
	for i, p := range e.Players {
		k := played
		if e.withdrawn(p.ID) && played < e.TotalRounds() {
			k++ // not to be paired next
		}
		cells[i] = make([]string, k)
		for k := range cells[i] {
			cells[i][k] = "0000 - Z" // absent: withdrawn
		}
	}
	score := map[string]int{}
	for _, g := range e.Games {
		if g.Round > played || len(g.Players) != 2 {
			continue
		}
		pts := points(g.Ranks)
		for s, id := range g.Players {
			res := map[int]string{2: "1", 1: "=", 0: "0"}[pts[s]]
			if g.Forfeit {
				res = map[int]string{2: "+", 1: "=", 0: "-"}[pts[s]]
			}
			cells[no[id]-1][g.Round-1] = fmt.Sprintf("%4d %s %s", no[g.Players[1-s]], "wb"[s:s+1], res)
			score[id] += pts[s]
		}
	}
	for _, b := range e.Byes {
		if b.Round <= played {
			cells[no[b.Player]-1][b.Round-1] = "0000 - U"
			score[b.Player] += e.byePoints()
		}
	}
	order := make([]int, len(e.Players))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[e.Players[b].ID], score[e.Players[a].ID]) })
	place := make([]int, len(e.Players))
	for r, i := range order {
		place[i] = r + 1
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "012 %s\n", e.Name)
	fmt.Fprintf(bw, "XXR %d\n", e.TotalRounds())
	fmt.Fprintf(bw, "XXC white1\n")
	for i, p := range e.Players {
		name := p.Name
		if name == "" {
			name = p.ID
		}
		line := fmt.Sprintf("001 %4d %1s%3s %-33s %4s %3s %11s %10s %4s %4d", i+1, "", "", cut(name, 33), "", "", "", "", half(score[p.ID]), place[i])
		for _, c := range cells[i] {
			line += "  " + c
		}
		fmt.Fprintln(bw, strings.TrimRight(line, " "))
	}
	return bw.Flush()
}
