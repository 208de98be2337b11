package notation

import "pbem/engine"

// gameMem is the memory of the records and games of one batch, reused
// from batch to batch when the Checker may (Checker.Reuse): a checked
// ply's Ply, its pointer and its slots in the checker's slices are then
// taken from memory that is warm in the cache rather than allocated,
// cleared and collected anew. A nil *gameMem allocates as usual.
type gameMem struct {
	plies []Ply // room for plies, handed out in order
	ptrs  []*Ply
	tags  []Tag
	lines []*engine.Line
	moves []engine.Move
	recs  []Record
	mains []Line
	games []Game
	chkrs []checker
	play  engine.LineMem // the engine.Lines of the games
}

// Caps on what a gameMem keeps for the next batch: a batch with a long
// game gets its own larger arrays, which are then left to the collector.
// A batch holds about batchTokens tokens: as many plies at most, a
// quarter as many tags.
const (
	memPlies = 2 * batchTokens
	memSlots = 2 * memPlies
	memTags  = batchTokens / 2
	memGames = 64
)

// take returns the next n elements of *s as an empty slice of capacity n
// (zeroed: reset clears what was handed out), or a new slice when *s has
// no room for them (or when n is more than room).
func take[T any](s *[]T, n, room int) []T {
	if len(*s)+n > cap(*s) {
		if n > room/4 {
			return make([]T, 0, n)
		}
		*s = make([]T, 0, room)
	}
	i := len(*s)
	*s = (*s)[:i+n]
	return (*s)[i : i : i+n]
}

// one returns a pointer to the next zero element of *s.
func one[T any](s *[]T, room int) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, room)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

// reset clears what was handed out, so that it can be handed out again
// and holds no pointer to the games it served.
func (m *gameMem) reset() {
	resetSlab(&m.plies)
	resetSlab(&m.ptrs)
	resetSlab(&m.tags)
	resetSlab(&m.lines)
	resetSlab(&m.moves)
	resetSlab(&m.recs)
	resetSlab(&m.mains)
	resetSlab(&m.games)
	resetSlab(&m.chkrs)
	m.play.Reset()
}

func resetSlab[T any](s *[]T) {
	clear(*s)
	*s = (*s)[:0]
}

// plySlab returns room for n plies.
func (m *gameMem) plySlab(n int) []Ply {
	if m == nil {
		return make([]Ply, 0, n)
	}
	return take(&m.plies, n, memPlies)
}

// plyPtrs returns room for n pointers to plies.
func (m *gameMem) plyPtrs(n int) []*Ply {
	if m == nil {
		return make([]*Ply, 0, n)
	}
	return take(&m.ptrs, n, memSlots)
}

// tagSlab returns room for n tags.
func (m *gameMem) tagSlab(n int) []Tag {
	if m == nil {
		return make([]Tag, 0, n)
	}
	return take(&m.tags, n, memTags)
}

// lineSlots returns room for n lines of a game.
func (m *gameMem) lineSlots(n int) []*engine.Line {
	if m == nil {
		return make([]*engine.Line, 0, n)
	}
	return take(&m.lines, n, memSlots)
}

// moveSlots returns room for n moves of a game.
func (m *gameMem) moveSlots(n int) []engine.Move {
	if m == nil {
		return make([]engine.Move, 0, n)
	}
	return take(&m.moves, n, memSlots)
}

func (m *gameMem) record() *Record {
	if m == nil {
		return new(Record)
	}
	return one(&m.recs, memGames)
}

func (m *gameMem) line() *Line {
	if m == nil {
		return new(Line)
	}
	return one(&m.mains, memGames)
}

func (m *gameMem) game() *Game {
	if m == nil {
		return new(Game)
	}
	return one(&m.games, memGames)
}

func (m *gameMem) checker() *checker {
	if m == nil {
		return new(checker)
	}
	return one(&m.chkrs, memGames)
}

// newLine starts the main line of a game at s, expected to run plies
// plies.
func (m *gameMem) newLine(s engine.State, plies int) *engine.Line {
	if m == nil {
		return engine.NewLineFor(s, plies)
	}
	return engine.NewLineIn(&m.play, s, plies)
}
