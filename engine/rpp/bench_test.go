package rpp

import (
	"testing"

	"pbem/engine"
)

func start(b *testing.B, o engine.Options) *State {
	b.Helper()
	s, err := Rules{}.Start(o)
	if err != nil {
		b.Fatal(err)
	}
	return s.(*State)
}

// BenchmarkAppendLegalStart4: move generation at the 4-player start,
// without boxing the moves.
func BenchmarkAppendLegalStart4(b *testing.B) {
	s := start(b, engine.Options{Players: 4})
	buf := make([]Move, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendLegal(buf[:0])
	}
}

// BenchmarkLegalStart4: Legal() (boxed engine.Moves) at the 4-player start.
func BenchmarkLegalStart4(b *testing.B) {
	s := start(b, engine.Options{Players: 4})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

// BenchmarkLegalMidgame4: Legal() in a 4-player midgame with a stack.
func BenchmarkLegalMidgame4(b *testing.B) {
	s := midgame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkAppendLegalMidgame4(b *testing.B) {
	s := midgame(b)
	buf := make([]Move, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendLegal(buf[:0])
	}
}

func BenchmarkLegalOctagon8(b *testing.B) {
	s := start(b, engine.Options{Players: 8})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

// BenchmarkApply: one step in the 4-player midgame.
func BenchmarkApply(b *testing.B) {
	s := midgame(b)
	var m engine.Move = mv(b, s.board(), "Lg6-f6") // boxed once
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyKey: Apply then Key, what engine.Line does per ply.
func BenchmarkApplyKey(b *testing.B) {
	s := midgame(b)
	var m engine.Move = mv(b, s.board(), "Lg6-f6")
	b.ReportAllocs()
	for b.Loop() {
		n, _ := s.Apply(m)
		_ = n.Key()
	}
}

// BenchmarkApplyHash: Apply then Hash, what engine.Line does per ply for a
// Hasher.
func BenchmarkApplyHash(b *testing.B) {
	s := midgame(b)
	var m engine.Move = mv(b, s.board(), "Lg6-f6")
	b.ReportAllocs()
	for b.Loop() {
		n, _ := s.Apply(m)
		_ = n.(*State).Hash()
	}
}

// BenchmarkHash: Hash alone in the 4-player midgame.
func BenchmarkHash(b *testing.B) {
	s := midgame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Hash()
	}
}
