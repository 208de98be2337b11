package referee

import (
	"fmt"
	"strings"

	"pbem/archive"
	"pbem/internal/english"
)

// Bounds of the notes one player keeps on one game.
const (
	// MaxNotes is the most notes a player keeps on a game.
	MaxNotes = 100
	// MaxNotesBytes is the most text (in bytes) of a player's notes on a
	// game, all of them together.
	MaxNotesBytes = 100 << 10
	// notesShown is how many notes (the last ones) end the player's own
	// board mails.
	notesShown = 3
)

// noteAlone reports whether l is "note GAMEID" with no text after it: the
// note is the lines that follow, up to a line "end".
func noteAlone(l string) bool {
	f := strings.Fields(l)
	return verbOf(l) == "note" && len(f) == 2
}

// notesOf are the notes of addr on g: those stored and those the session
// wrote.
func (s *session) notesOf(g *game, addr string) ([]*archive.Note, error) {
	ns := s.store
	stored, err := ns.Notes(s.ctx, g.ID, addr)
	if err != nil {
		return nil, err
	}
	for _, n := range s.notes {
		if n.GameID == g.ID && n.Addr == normAddr(addr) {
			stored = append(stored, n)
		}
	}
	return stored, nil
}

// noteGame is the game of note and notes: one the sender plays, with its
// token.
func (s *session) noteGame(g *game) error {
	_, err := s.authorize(g)
	return err
}

// noteCmd: note GAMEID TEXT, or note GAMEID alone on its line and the
// text on the lines after it, up to a line "end".
func (s *session) noteCmd(c *cmd) error {
	const form = "note GAMEID TEXT, or note GAMEID alone on its line, then the text, then end"
	g, rest, err := s.gameThen(c, form, "the note's text")
	if err != nil {
		return err
	}
	if err := s.noteGame(g); err != nil {
		return err
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		lines = append(lines, strings.TrimRight(printable(l), " \t"))
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return mistake(nil, form, "the note for game #%d is empty", g.ID)
	}
	n, err := s.keepNote(g, text)
	if err != nil {
		return err
	}
	s.mine.add("Your note on game #%d is kept (%s; only you ever see them).", g.ID, english.Plural(n, "note"))
	s.mine.show(g)
	return nil
}

// keepNote keeps text as the sender's note on g, within the bounds, and
// returns how many notes the sender then keeps on g.
func (s *session) keepNote(g *game, text string) (int, error) {
	have, err := s.notesOf(g, s.from.Addr)
	if err != nil {
		return 0, err
	}
	if len(have) >= MaxNotes {
		return 0, mistake(nil, fmt.Sprintf("at most %d notes per player per game", MaxNotes),
			"you keep %d notes on game #%d already, the most a player keeps on a game; this one was not kept", len(have), g.ID)
	}
	size := len(text)
	for _, n := range have {
		size += len(n.Text)
	}
	if size > MaxNotesBytes {
		return 0, mistake(nil, fmt.Sprintf("at most %s of notes per player per game", english.ByteSize(int64(MaxNotesBytes))),
			"this note (%s) would bring your notes on game #%d to %s; it was not kept", english.ByteSize(int64(len(text))), g.ID, english.ByteSize(int64(size)))
	}
	s.notes = append(s.notes, &archive.Note{GameID: g.ID, Addr: s.from.Addr, At: s.now, Ply: g.plies(), Text: text})
	return len(have) + 1, nil
}

// notesCmd: notes GAMEID mails the sender's notes on a game back.
func (s *session) notesCmd(c *cmd) error {
	g, err := s.gameArg(c, "notes GAMEID")
	if err != nil {
		return err
	}
	if err := s.noteGame(g); err != nil {
		return err
	}
	have, err := s.notesOf(g, s.from.Addr)
	if err != nil {
		return err
	}
	s.mine.label = fmt.Sprintf("your notes on game #%d", g.ID)
	if len(have) == 0 {
		s.mine.add("You keep no notes on game #%d. To keep one: note %d TEXT.", g.ID, g.ID)
		return nil
	}
	s.mine.add("Your notes on game #%d (%s; only you see them):", g.ID, english.Plural(len(have), "note"))
	s.mine.addPre(formatNotes(have, 0))
	return nil
}

// formatNotes writes notes numbered from first+1, each headed by the ply
// count and time it was written at, its lines indented.
func formatNotes(ns []*archive.Note, first int) string {
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. After ply %d, %s:\n%s", first+i+1, n.Ply, stamp(n.At), indentLines(n.Text))
	}
	return b.String()
}

// notesBlock ends a player's own board mail of g: the last notesShown
// notes of addr, or "" when there are none.
func (s *session) notesBlock(g *game, addr string) string {
	have, err := s.notesOf(g, addr)
	if err != nil {
		s.r.log.Error("notes not read", "game", g.ID, "err", err)
		return "Your notes could not be read just now; notes " + g.id() + " sends them."
	}
	if len(have) == 0 {
		return ""
	}
	first := max(len(have)-notesShown, 0)
	head := "Your notes (only you see them):"
	if first > 0 {
		head = fmt.Sprintf("Your notes (the last %d of %d; only you see them):", notesShown, len(have))
	}
	return head + "\n" + formatNotes(have[first:], first) + "\nnotes " + g.id() + " for all."
}
