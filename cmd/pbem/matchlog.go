package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// A match log (pbem match --log FILE) keeps a match's games as they end, so
// that a test longer than a session goes on where it stopped: run the same
// command again and the games of the log's whole rounds count as played,
// and only the rounds after them are played. Each game depends only on the
// seed and its number, so the continued match is the one an unbroken run
// would have played (for level 5, whose moves depend on the clock, one
// with the same openings and seeds).
//
// The file is JSON lines: first the match (matchHead), then one line per
// game (logGame) in the order the games ended, which with -j above 1 is not
// their order. A line cut short by a crash, at the end, is dropped with the
// game it held: that game is played again.

// matchHead is the first line of a match log: what makes the games.
type matchHead struct {
	Game      string `json:"game"`
	Players   int    `json:"players,omitempty"`
	Board     string `json:"board,omitempty"`
	Position  string `json:"position,omitempty"`
	A         int    `json:"a"`
	B         int    `json:"b"`
	Seed      uint64 `json:"seed"`
	BookPlies int    `json:"book_plies"`
	MaxPlies  int    `json:"max_plies"`
}

// String gives the head as the options of pbem match.
func (h matchHead) String() string {
	s := fmt.Sprintf("%s --a %d --b %d --seed %d --book-plies %d --max-plies %d", h.Game, h.A, h.B, h.Seed, h.BookPlies, h.MaxPlies)
	if h.Players != 0 {
		s += fmt.Sprintf(" --players %d", h.Players)
	}
	if h.Board != "" {
		s += " --board " + h.Board
	}
	if h.Position != "" {
		s += fmt.Sprintf(" --position %q", h.Position)
	}
	return s
}

// logGame is a line of a match log: game I (from 0) and its result.
type logGame struct {
	I        int        `json:"i"`
	Seat     int        `json:"seat"`
	Score    float64    `json:"score"`
	Plies    int        `json:"plies"`
	Reason   string     `json:"reason"`
	ThinkUS  [2][]int64 `json:"think_us"` // per move, of A and of B, in microseconds
	Playouts [2][]int   `json:"playouts"`
	TimeUp   [2]int     `json:"time_up"`
}

func toLog(i int, r gameResult) logGame {
	g := logGame{I: i, Seat: r.seat, Score: r.score, Plies: r.plies, Reason: r.reason, Playouts: r.playouts, TimeUp: r.timeUp}
	for who, ts := range r.think {
		g.ThinkUS[who] = make([]int64, len(ts))
		for k, t := range ts {
			g.ThinkUS[who][k] = t.Microseconds()
		}
	}
	return g
}

func (g logGame) result() gameResult {
	r := gameResult{seat: g.Seat, score: g.Score, plies: g.Plies, reason: g.Reason, playouts: g.Playouts, timeUp: g.TimeUp}
	for who, us := range g.ThinkUS {
		r.think[who] = make([]time.Duration, len(us))
		for k, u := range us {
			r.think[who][k] = time.Duration(u) * time.Microsecond
		}
	}
	return r
}

// readMatchLog reads the log at path written for head, if there is one:
// the games of its first whole rounds (seats games each), at most rounds
// of them, in order. A log of another match is an error; so is a line that
// does not read, but for a last line cut short.
func readMatchLog(path string, head matchHead, seats, rounds int) ([]gameResult, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, nil
	}
	var got matchHead
	if err := json.Unmarshal(lines[0], &got); err != nil {
		return nil, fmt.Errorf("%s: line 1 is not a match log's head (%v); expected the JSON of the match", path, err)
	}
	if got != head {
		return nil, fmt.Errorf("%s holds another match (%s); expected %s: give another --log file, or the same options", path, got, head)
	}
	byIndex := map[int]gameResult{}
	for k, line := range lines[1:] {
		var g logGame
		if err := json.Unmarshal(line, &g); err != nil {
			if k == len(lines)-2 && !bytes.HasSuffix(data, []byte("\n")) {
				break // the last line, cut short: that game is played again
			}
			return nil, fmt.Errorf("%s: line %d does not read (%v); expected the JSON of a game", path, k+2, err)
		}
		if g.I < 0 || g.Seat != g.I%seats {
			return nil, fmt.Errorf("%s: line %d: game %d in seat %d; expected a game number from 0 and A in seat number mod %d", path, k+2, g.I, g.Seat, seats)
		}
		if g.Score < 0 || g.Score > 1 || g.Plies < 1 || g.Reason == "" {
			return nil, fmt.Errorf("%s: line %d: game %d scored %g after %d plies (%q); expected a score from 0 to 1, at least one ply and how it ended", path, k+2, g.I, g.Score, g.Plies, g.Reason)
		}
		byIndex[g.I] = g.result()
	}
	var out []gameResult
	for round := 0; round < rounds; round++ {
		games := make([]gameResult, 0, seats)
		for i := round * seats; i < (round+1)*seats; i++ {
			r, ok := byIndex[i]
			if !ok {
				return out, nil
			}
			games = append(games, r)
		}
		out = append(out, games...)
	}
	return out, nil
}

// matchLog appends games to a match log.
type matchLog struct {
	f *os.File
	w *bufio.Writer
}

// openMatchLog opens the log at path for appending, writing head first
// when it is new (or empty); a last line cut short is cut off, so that the
// next game starts a line of its own.
func openMatchLog(path string, head matchHead) (*matchLog, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1)); err != nil {
			return nil, err
		}
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l := &matchLog{f: f, w: bufio.NewWriter(f)}
	if len(data) == 0 {
		if err := l.line(head); err != nil {
			f.Close()
			return nil, err
		}
	}
	return l, nil
}

func (l *matchLog) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.w.Write(b)
	l.w.WriteByte('\n')
	return l.w.Flush()
}

// game appends game i.
func (l *matchLog) game(i int, r gameResult) error {
	if err := l.line(toLog(i, r)); err != nil {
		return fmt.Errorf("match log: %w", err)
	}
	return nil
}

func (l *matchLog) Close() error { return l.f.Close() }
