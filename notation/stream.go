package notation

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"runtime"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Checker checks the games of record files on all cores, reading its input
// as a stream: it holds a window of the input and a few batches of games,
// never a whole file, so that its memory does not grow with the input.
type Checker struct {
	Lookup Lookup
	// NoCanon leaves Ply.Canon empty. Writing a record needs the canonical
	// spelling of its plies; checking alone does not.
	NoCanon bool
	// Workers is the number of goroutines that check games (0: GOMAXPROCS).
	Workers int
	// Reuse lets Run reuse the memory of the games it hands to each once
	// each has returned: each must then keep nothing of its Checked (its
	// Record, Game and Problems) but strings. Checking a large file then
	// allocates far less.
	Reuse bool
}

// batchTokens is about how many tokens a batch of games holds: enough to
// make handing batches between goroutines cheap, few enough to keep the
// memory of the batches in flight small.
const batchTokens = 1 << 10

type batch struct {
	games []chunk
	slab  []lexer.Token // holds the games' tokens; reused once they are checked
	out   []*Checked
	done  chan struct{}
	mem   *gameMem // the games' memory (Reuse), back to the workers after each
}

// slabTokens is the room of a batch's token slab: a batch closes once it
// holds batchTokens, so its games fit (a longer game gets its own array).
const slabTokens = 2 * batchTokens

type chunk struct {
	n       int
	toks    []lexer.Token
	invalid map[int]string
	problem *Problem // a file that cannot be read as text
	typo    int      // typographic characters read (typography.go)
}

// Run reads and checks every game of a record stream and hands each to
// each, in file order, from the calling goroutine. A syntax error costs
// only its game. It returns the error of reading r, if any; the games
// before it have been handed out.
func (c *Checker) Run(file string, r io.Reader, each func(*Checked)) error {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	// Slabs of checked batches go back to the reader: the tokens of a game
	// are dead once it is read, and reusing their room spares allocating
	// and clearing it for every batch.
	spare := make(chan []lexer.Token, 2*workers+2)
	// The memory of the batches each has seen goes back to the workers.
	var spareMem chan *gameMem
	if c.Reuse {
		spareMem = make(chan *gameMem, 2*workers+2)
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		readErr = c.cut(file, r, spare, func(b *batch) {
			order <- b
			work <- b
		})
	}()
	for range workers {
		go func() {
			for b := range work {
				if c.Reuse {
					select {
					case b.mem = <-spareMem:
						b.mem.reset()
					default:
						b.mem = new(gameMem)
					}
				}
				b.out = make([]*Checked, len(b.games))
				for i, g := range b.games {
					b.out[i] = c.check(b.mem, file, g)
				}
				b.games = nil
				if b.slab != nil {
					select {
					case spare <- b.slab:
					default:
					}
					b.slab = nil
				}
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		for _, ch := range b.out {
			each(ch)
		}
		if b.mem != nil {
			select {
			case spareMem <- b.mem:
			default:
			}
			b.mem, b.out = nil, nil
		}
	}
	return readErr
}

// cut splits the input into games and hands them out in batches, their
// tokens in slabs taken from spare when it has one.
func (c *Checker) cut(file string, r io.Reader, spare chan []lexer.Token, send func(*batch)) error {
	text, base, p := openText(file, r)
	if p != nil {
		send(&batch{games: []chunk{{n: 1, problem: p}}, done: make(chan struct{})})
		return nil
	}
	l := newStreamLexer(file, text, base)
	ch := &chunker{l: l}
	var slab []lexer.Token // the batch's games' tokens
	newBatch := func() *batch {
		select {
		case slab = <-spare:
			slab = slab[:0]
		default:
			slab = make([]lexer.Token, 0, slabTokens)
		}
		return &batch{slab: slab, done: make(chan struct{})}
	}
	b := newBatch()
	size := 0
	for n := 1; ; n++ {
		// The chunker appends the game's tokens to the slab's free room
		// (more than batchTokens while the batch is open).
		free := slab[len(slab):]
		ch.buf = free
		toks := ch.next()
		if l.err != nil || toks == nil {
			// A game cut short by a read error is not reported.
			break
		}
		if cap(toks) == cap(free) && &toks[:1][0] == &free[:1][0] {
			slab = slab[:len(slab)+len(toks)]
		} else {
			toks = slices.Clone(toks) // outgrew the slab (a long game)
		}
		g := chunk{n: n, toks: toks[:len(toks):len(toks)], typo: ch.typo}
		if len(ch.invalid) > 0 {
			g.invalid = maps.Clone(ch.invalid)
		}
		b.games = append(b.games, g)
		if size += len(toks); size >= batchTokens {
			send(b)
			b, size = newBatch(), 0
		}
	}
	if len(b.games) > 0 {
		send(b)
	}
	return l.err
}

func (c *Checker) check(m *gameMem, file string, g chunk) *Checked {
	ch := &Checked{Index: g.n, Typography: g.typo}
	if len(g.toks) > 0 {
		ch.Start = g.toks[0].Pos.Offset
	}
	p := g.problem
	var r *Record
	if p == nil {
		r, p = parseGameIn(m, file, g.n, g.toks, g.invalid)
	}
	if p != nil {
		ch.Problems = []*Problem{p}
		ch.Offset = p.offset
		return ch
	}
	ch.Record = r
	ch.Offset = r.Pos.Offset
	ch.Game, ch.Problems = check(m, r, c.Lookup, !c.NoCanon)
	return ch
}

// openText starts reading a record stream as decodeText reads a file: it
// skips a UTF-8 byte-order mark (returning the offset at which reading
// starts), decodes UTF-16 after a byte-order mark, and refuses what looks
// like UTF-16 without one.
func openText(file string, r io.Reader) (io.Reader, int, *Problem) {
	br := bufio.NewReaderSize(r, 4096)
	head, _ := br.Peek(1024)
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		br.Discard(3)
		return br, 3, nil
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		br.Discard(2)
		return &utf16Reader{r: br, order: binary.LittleEndian}, 0, nil
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		br.Discard(2)
		return &utf16Reader{r: br, order: binary.BigEndian}, 0, nil
	case looksUTF16(head):
		_, _, p := decodeText(file, head)
		return nil, 0, p
	}
	return br, 0, nil
}

// utf16Reader decodes UTF-16 to UTF-8 as decodeUTF16 does, in pieces.
type utf16Reader struct {
	r     io.Reader
	order binary.ByteOrder
	in    []byte // read, not yet decoded
	out   []byte // decoded, not yet returned
	buf   []byte
	eof   bool
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.eof {
			if len(u.in) == 0 {
				return 0, io.EOF
			}
			u.decode(true)
			continue
		}
		if u.buf == nil {
			u.buf = make([]byte, readBlock)
		}
		n, err := u.r.Read(u.buf)
		u.in = append(u.in, u.buf[:n]...)
		if err != nil {
			if err != io.EOF {
				return 0, err
			}
			u.eof = true
		}
		u.decode(false)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// decode turns the whole units of in into out; final: in is all there is.
func (u *utf16Reader) decode(final bool) {
	out := u.out[:0]
	i := 0
	for ; i+1 < len(u.in); i += 2 {
		r := rune(u.order.Uint16(u.in[i:]))
		if utf16.IsSurrogate(r) {
			if i+3 >= len(u.in) && !final {
				break // the next unit may pair with this one
			}
			r2 := utf8.RuneError
			if i+3 < len(u.in) {
				r2 = rune(u.order.Uint16(u.in[i+2:]))
			}
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				out = utf8.AppendRune(out, d)
				i += 2
				continue
			}
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	if final && i < len(u.in) {
		out = utf8.AppendRune(out, utf8.RuneError)
		i = len(u.in)
	}
	u.out = out
	u.in = u.in[:copy(u.in, u.in[i:])]
}
