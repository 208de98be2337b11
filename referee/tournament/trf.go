package tournament

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	scoring "pbem/archive/score"
)

// TRF is the FIDE tournament report format (TRF16), the file that pairing
// engines and rating officers exchange. ReadTRF and WriteTRF read and
// write the part of it that a Swiss event of pbem needs:
//
//	012 NAME                 the event's name
//	XXR N                    the number of rounds
//	XXC white1               the top seed has White in round 1 (black1:
//	                         Black; rule E.5 of the Dutch system)
//	XXA NNNN  p1.0  p2.0 ... the virtual points of player NNNN in rounds
//	                         1, 2, ... of an accelerated event (fields of
//	                         five columns from column 10, as JaVaFo and
//	                         bbpPairings read them)
//	001 ...                  one line a player, by pairing number (seed)
//
// A player line holds, in fixed columns, the pairing number (5-8), the
// name (15-47), the score (81-84), the rank (86-89) and from column 92
// ten columns a round: the opponent's pairing number (0000 for none), w
// or b, and the result: 1, = or 0 for a game played, + or - for one
// forfeited, U for the pairing-allocated bye; without an opponent, H for
// a half-point bye the player asked for and Z (or -) for an absence. A
// player line may hold one round more than those played: H or Z there
// keeps the player out of the pairing of that round, as pairing engines
// read it.

// trfRound is where a player line's rounds start (0-based column), and
// the width of a round.
const (
	trfRound      = 91
	trfRoundWidth = 10
)

// ReadTRF reads a tournament report into a Swiss event: players get the
// IDs "1", "2", ... (their pairing numbers) and their names, games and
// byes are the rounds of the player lines (U a PairingBye, H a HalfPoint
// bye, Z a ZeroPoint one), XXC black1 sets InitialBlack and XXA lines
// VirtualPoints. Absences that run to the round after the last played (or
// to the end of a line shorter than the others, or to the last round of
// the event) mark a withdrawal: the
// player is in Withdrawn, those rounds are no byes; absences that end
// before it are ZeroPoint byes, the player paired again. (A report cannot
// tell a player absent from the next round only from one who left: both
// are kept out of its pairing, which is the same either way.) Lines other than 012, XXR,
// XXC, XXA and 001 are ignored. It fails, saying which line, on what it
// cannot take: a player numbered out of order, a result other than 1 = 0
// + - U H Z (W D L count as 1 = 0), two players whose lines disagree
// about their game, a stated score that is not the sum of the results
// (with or without the next round's bye and the virtual points).
func ReadTRF(r io.Reader) (*Event, error) {
	e := &Event{Format: Swiss}
	type cell struct {
		opp    int
		colour byte
		result byte
		line   int
	}
	var rows [][]cell
	var stated []string     // scores as written
	var lines []int         // the player lines' numbers
	var accel map[int][]int // XXA: virtual points by pairing number
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
				switch f {
				case "black1":
					e.InitialBlack = true
				case "white1":
					e.InitialBlack = false
				}
			}
		case strings.HasPrefix(line, "XXA"):
			no, v, err := readXXA(line)
			if err != nil {
				return nil, fmt.Errorf("tournament: TRF line %d: %v", lineNo, err)
			}
			if accel == nil {
				accel = map[int][]int{}
			}
			accel[no] = v
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
	absent := func(c cell) bool { return c.opp == 0 && (c.result == 'Z' || c.result == '-') }
	// The rounds played: those in which someone was paired (a game, or
	// the pairing-allocated bye). A line may hold the next round too.
	played := 0
	for _, row := range rows {
		for k, c := range row {
			if c.opp != 0 || c.result == 'U' {
				played = max(played, k+1)
			}
		}
	}
	if e.Rounds == 0 {
		e.Rounds = played + 1
	}
	for i, row := range rows {
		k := len(row)
		for k > 0 && absent(row[k-1]) {
			k--
		}
		if k < len(row) && (len(row) == played+1 || len(row) < played || played == e.Rounds) {
			e.Withdrawn = append(e.Withdrawn, e.Players[i].ID)
			rows[i] = row[:k]
		}
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
		withdrawn := e.withdrawn(e.Players[i].ID)
		if len(row) < played && !withdrawn {
			return nil, fmt.Errorf("tournament: TRF line %d: %d rounds, but others have %d: pbem pairs every player every round until they withdraw (0000 - Z)", lines[i], len(row), played)
		}
		if len(row) > played+1 || len(row) == played+1 && played+1 > e.Rounds {
			return nil, fmt.Errorf("tournament: TRF line %d: %d rounds, but the rounds played are %d of %d: a line may hold only the next round's bye (0000 - H or Z) after them", lines[i], len(row), played, e.Rounds)
		}
		total, next := 0, 0
		for k, c := range row {
			round := k + 1
			if c.opp == 0 {
				kind := PairingBye
				switch {
				case c.result == 'U':
					total += 2
				case c.result == 'H' && round > played:
					next = 1
					kind = HalfPoint
				case c.result == 'H':
					total++
					kind = HalfPoint
				case absent(c):
					kind = ZeroPoint
				default:
					return nil, fmt.Errorf("tournament: TRF line %d: round %d: result %q without an opponent; want U (the pairing-allocated bye), H (a half-point bye) or Z (an absence)", c.line, round, string(c.result))
				}
				e.Byes = append(e.Byes, Bye{Round: round, Player: e.Players[i].ID, Kind: kind})
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
			var o cell
			if k < len(rows[c.opp-1]) {
				o = rows[c.opp-1][k]
			}
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
		var acc int
		if v := accel[i+1]; played < len(v) {
			acc = v[played]
		}
		if s := stated[i]; s != "" && s != scoring.Half(total) && s != scoring.Half(total+next) && s != scoring.Half(total+acc) && s != scoring.Half(total+next+acc) {
			return nil, fmt.Errorf("tournament: TRF line %d: score %s, but the results add up to %s", lines[i], s, scoring.Half(total))
		}
	}
	for no, v := range accel {
		if no < 1 || no > n {
			return nil, fmt.Errorf("tournament: TRF: XXA for player %d, but the players are 1-%d", no, n)
		}
		if len(v) > e.Rounds {
			return nil, fmt.Errorf("tournament: TRF: XXA for player %d has %d rounds, but the event has %d", no, len(v), e.Rounds)
		}
		if e.VirtualPoints == nil {
			e.VirtualPoints = map[string][]int{}
		}
		e.VirtualPoints[strconv.Itoa(no)] = v
	}
	slices.SortStableFunc(e.Games, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	slices.SortStableFunc(e.Byes, func(a, b Bye) int { return cmp.Compare(a.Round, b.Round) })
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("tournament: TRF: %w", err)
	}
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
// player's rounds without a game are absences (0000 - Z); requested byes
// are H or Z, those of the round after the complete ones too (the player
// is not paired in it). The colour of round 1 is XXC white1 or black1;
// the virtual points of an accelerated event are XXA lines, one for each
// player who has any. Names are cut to the 33 columns TRF gives them.
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
		_, asked := e.requested(p.ID, played+1)
		if (e.withdrawn(p.ID) || asked) && played < e.TotalRounds() {
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
		code := map[ByeKind]string{PairingBye: "0000 - U", HalfPoint: "0000 - H", ZeroPoint: "0000 - Z"}[b.Kind]
		switch {
		case b.Round <= played:
			cells[no[b.Player]-1][b.Round-1] = code
			score[b.Player] += e.byeScore(b)
		case b.Round == played+1 && b.Kind.Requested() && played < len(cells[no[b.Player]-1]):
			cells[no[b.Player]-1][b.Round-1] = code
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
	if e.InitialBlack {
		fmt.Fprintf(bw, "XXC black1\n")
	} else {
		fmt.Fprintf(bw, "XXC white1\n")
	}
	for i, p := range e.Players {
		var v []int
		for r := 1; r <= e.TotalRounds(); r++ {
			v = append(v, e.Acceleration(p.ID, r))
		}
		for len(v) > 0 && v[len(v)-1] == 0 {
			v = v[:len(v)-1]
		}
		if len(v) == 0 {
			continue
		}
		line := fmt.Sprintf("XXA %4d", i+1)
		for _, h := range v {
			line += fmt.Sprintf(" %4s", scoring.Half(h))
		}
		fmt.Fprintln(bw, line)
	}
	for i, p := range e.Players {
		name := p.Name
		if name == "" {
			name = p.ID
		}
		line := fmt.Sprintf("001 %4d %1s%3s %-33s %4s %3s %11s %10s %4s %4d", i+1, "", "", cut(name, 33), "", "", "", "", scoring.Half(score[p.ID]), place[i])
		for _, c := range cells[i] {
			line += "  " + c
		}
		fmt.Fprintln(bw, strings.TrimRight(line, " "))
	}
	return bw.Flush()
}

// readXXA reads an XXA line: the pairing number in columns 5-8, then the
// virtual points of rounds 1, 2, ... in fields of five columns from column
// 10 (a blank field is 0).
func readXXA(line string) (no int, points []int, err error) {
	if len(line) < 8 {
		return 0, nil, fmt.Errorf("XXA wants a pairing number in columns 5-8, found %q", line)
	}
	if no, err = strconv.Atoi(strings.TrimSpace(line[4:8])); err != nil || no < 1 {
		return 0, nil, fmt.Errorf("XXA wants a pairing number in columns 5-8, found %q", line[4:8])
	}
	for at := 9; at < len(line); at += 5 {
		field := strings.TrimSpace(line[at:min(at+4, len(line))])
		if at+4 < len(line) && line[at+4] != ' ' {
			return 0, nil, fmt.Errorf("XXA: round %d: %q is not points in a field of five columns (like \"  1.0\")", len(points)+1, line[at:min(at+5, len(line))])
		}
		if field == "" {
			points = append(points, 0)
			continue
		}
		h, ok := halfPoints(field)
		if !ok {
			return 0, nil, fmt.Errorf("XXA: round %d: %q is not a number of points in halves (like 1.0 or 0.5)", len(points)+1, field)
		}
		points = append(points, h)
	}
	return no, points, nil
}

// halfPoints reads points written in halves ("1", "1.0", "0.5") as half
// points.
func halfPoints(s string) (int, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*2 != float64(int(f*2)) {
		return 0, false
	}
	return int(f * 2), true
}
