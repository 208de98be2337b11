package ziggurat

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Diagrams: the tests write positions as text.
//
//	to: North        the side to move (default South)
//	reserve: QDW qd  reserve pieces, upper case South's and lower case
//	                 North's; "-" for none (default "QDW qdw", one of each)
//	exited: Q w      exited pieces (default none)
//	passes: 1        passes just played in a row (default 0)
//	6 . . . . . .
//	5 . . [qD] . . .
//	4 . . . . . .
//	3 . . . . . .
//	2 . . . . . .
//	1 Q D W W D Q
//
// A board row starts with its rank number (all six ranks are required, in
// any order) and lists the cells of files a to f separated by spaces: "."
// for an empty square, else the pieces of the unit from bottom to top,
// upper case South's (Q D W) and lower case North's (q d w), optionally in
// brackets: "W" is a South Worker, "[qD]" a South Drone on a North Queen (a
// Tower owned by South). Lines may be indented; blank lines and lines of
// file letters are ignored. Diagrams need not hold all eighteen pieces
// (State.Check is not applied), so a scenario shows only what matters.
func diagram(t testing.TB, text string) *State {
	t.Helper()
	s, err := parseDiagram(text)
	if err != nil {
		t.Fatalf("bad diagram: %v\n%s", err, text)
	}
	return s
}

func parseDiagram(text string) (*State, error) {
	p := Setup{Board: map[Square]Stack{}}
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			p.Reserve[side][size] = 1
		}
	}
	seen := map[int]bool{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "a ") {
			continue
		}
		if key, val, ok := strings.Cut(line, ":"); ok {
			val = strings.TrimSpace(val)
			switch key {
			case "to":
				switch val {
				case "South":
					p.ToMove = South
				case "North":
					p.ToMove = North
				default:
					return nil, fmt.Errorf("to: %q", val)
				}
			case "reserve":
				p.Reserve = [2][4]int{}
				for _, pc := range pieceLetters(val) {
					p.Reserve[pc.Side()][pc.Size()]++
				}
			case "exited":
				for _, pc := range pieceLetters(val) {
					p.Exited[pc.Side()][pc.Size()] = true
				}
			case "passes":
				n, err := strconv.Atoi(val)
				if err != nil {
					return nil, err
				}
				p.Passes = n
			default:
				return nil, fmt.Errorf("unknown key %q", key)
			}
			continue
		}
		fields := strings.Fields(line)
		rank, err := strconv.Atoi(fields[0])
		if err != nil || rank < 1 || rank > Ranks || len(fields) != Files+1 || seen[rank] {
			return nil, fmt.Errorf("bad row %q", line)
		}
		seen[rank] = true
		for f, cell := range fields[1:] {
			if cell == "." {
				continue
			}
			cell = strings.Trim(cell, "[]")
			pcs := pieceLetters(cell)
			if len(pcs) != len(cell) {
				return nil, fmt.Errorf("bad cell %q", cell)
			}
			p.Board[SquareAt(f, rank)] = StackOf(pcs...)
		}
	}
	if len(seen) != Ranks {
		return nil, fmt.Errorf("%d board rows, want %d", len(seen), Ranks)
	}
	return build(p)
}

// pieceLetters reads piece letters, ignoring anything else.
func pieceLetters(s string) []Piece {
	var out []Piece
	for i := 0; i < len(s); i++ {
		if u := UnitOfLetter(s[i]); u.IsZig() {
			side := South
			if s[i] >= 'a' {
				side = North
			}
			out = append(out, MakePiece(side, u))
		}
	}
	return out
}

// mv reads a move written like the notation, for tests: "pass", "W@d1",
// "Qa1-d4" (or "Qa1xd4"), "Qc4-off". The letter is required.
func mv(t testing.TB, text string) Move {
	t.Helper()
	if text == "pass" {
		return Move{}
	}
	u := UnitOfLetter(text[0])
	if u == NoUnit {
		t.Fatalf("mv(%q): no unit letter", text)
	}
	rest := text[1:]
	if strings.HasPrefix(rest, "@") {
		return Move{Kind: Place, Unit: u, To: square(t, rest[1:])}
	}
	if len(rest) != 5 && rest[2:] != "-off" {
		t.Fatalf("mv(%q): bad move", text)
	}
	from := square(t, rest[:2])
	if rest[2:] == "-off" {
		return Move{Kind: Exit, Unit: u, From: from}
	}
	return Move{Kind: Step, Unit: u, From: from, To: square(t, rest[3:])}
}

func square(t testing.TB, text string) Square {
	t.Helper()
	if len(text) != 2 {
		t.Fatalf("square(%q): bad square", text)
	}
	q := SquareAt(int(text[0]-'a'), int(text[1]-'0'))
	if q == NoSquare {
		t.Fatalf("square(%q): no such square", text)
	}
	return q
}

func contains(ms []Move, m Move) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}
