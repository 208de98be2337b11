package castles

import (
	"strings"
	"testing"
)

// Positions in tests are written as compact diagrams (FromDiagram):
//
//	"...S/..s./.f../F... 4/0/0 4/0/0 F"
//
// Four rows, rank 4 first, joined by '/'; each row gives files a to d:
// F and S are the castles, f and s units of First and Second, '.' an empty
// cell. Then First's and Second's counts as heap/supply/points, then the
// side to move: F, S, or S* for Second's setup ply.
func pos(t testing.TB, d string) *State {
	t.Helper()
	s, err := FromDiagram(d)
	if err != nil {
		t.Fatalf("pos(%q): %v", d, err)
	}
	return s
}

func sq(t testing.TB, text string) Square {
	t.Helper()
	q, ok := ParseSquare(text)
	if !ok {
		t.Fatalf("ParseSquare(%q) fails", text)
	}
	return q
}

// playTurn plays a turn written in a test notation close to the real one
// ("Ca1-b2,a2xb3,@c1": C marks the castle step, @ a placement; x asserts
// a capture and - asserts none) through the Turn API, one action at a time.
func playTurn(t testing.TB, s *State, text string) (*State, error) {
	t.Helper()
	tu, err := s.Begin()
	if err != nil {
		return nil, err
	}
	for _, a := range strings.Split(text, ",") {
		switch {
		case a == "":
		case a[0] == '@':
			err = tu.Place(sq(t, a[1:3]))
		default:
			castle := a[0] == 'C'
			if castle {
				a = a[1:]
			}
			from, to := sq(t, a[0:2]), sq(t, a[3:5])
			var capture bool
			if castle {
				capture, err = tu.CastleStep(from, to)
			} else {
				capture, err = tu.Step(from, to)
			}
			if err == nil && capture != (a[2] == 'x') {
				t.Fatalf("action %q: capture = %v, want %v", a, capture, a[2] == 'x')
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return tu.End()
}

// toMove turns a test-notation turn into a Move; ok is false when the
// actions are not in the order a Move holds (castle, steps, places).
func toMove(t testing.TB, s *State, text string) (m Move, ok bool) {
	t.Helper()
	stage := 0
	for i, a := range strings.Split(text, ",") {
		switch {
		case a == "":
			return m, false
		case a[0] == '@':
			if s.setup {
				m.Setup = true
			} else if i == 0 {
				return m, false
			}
			m.Places = append(m.Places, sq(t, a[1:3]))
			stage = 2
		case a[0] == 'C':
			if i != 0 {
				return m, false
			}
			m.Castle = [2]Square{sq(t, a[1:3]), sq(t, a[4:6])}
		default:
			if i == 0 || stage == 2 {
				return m, false
			}
			m.Steps = append(m.Steps, Step{sq(t, a[0:2]), sq(t, a[3:5])})
		}
	}
	return m, true
}

// mv is toMove for texts known to be in order.
func mv(t testing.TB, s *State, text string) Move {
	t.Helper()
	m, ok := toMove(t, s, text)
	if !ok {
		t.Fatalf("toMove(%q): not in Move order", text)
	}
	return m
}

func diagram(s *State) string { return s.Diagram() }
