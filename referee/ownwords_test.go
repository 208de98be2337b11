package referee_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/mail"
	"pbem/referee"
)

// realworldCase is what this test reads of a case of the real-world
// corpora's manifest.json (../../shared/realworld, see its README).
type realworldCase struct {
	ID         string   `json:"id"`
	File       string   `json:"file"`
	Format     string   `json:"format"`
	Fresh      []string `json:"fresh"`
	Signoff    []string `json:"signoff"`
	Substitute []string `json:"substitute"`
	Transform  []string `json:"transform"`
	BInsert    string   `json:"b_insert"`
}

// refereeMails are mails the referee sends in an rpp game between Alice
// and Bob: the invitation, the board with its legend, and the short help
// (the answer to a mail without command), each with its recipient.
func refereeMails(t *testing.T, h *harness) []archive.Outgoing {
	t.Helper()
	h.send("from: Alice <alice@example.org>\nsubject: new\n\nnew rpp with bob@example.org\n")
	h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
	h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\naccept\n")
	h.send("from: Bob <bob@example.org>\n\nhello\n")
	var mails []archive.Outgoing
	for id := 1; ; id++ {
		o, err := h.store.Outgoing(h.ctx, strconv.Itoa(id))
		if errors.Is(err, archive.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.EqualFold(o.To[0].Addr, "bob@example.org") {
			continue
		}
		for _, has := range []string{"invites you", "Cells:", "Commands, one per line"} {
			if strings.Contains(o.Text, has) {
				mails = append(mails, o)
				break
			}
		}
	}
	if len(mails) != 3 {
		t.Fatalf("setup: %d of the referee's mails to Bob, want the invitation, the board and the help", len(mails))
	}
	return mails
}

// pairingMail is the referee's mail to Bob that pairs him in round 1 of a
// castles tournament (with the board and its legend), and the harness
// that sent it.
func pairingMail(t *testing.T, db store) (*harness, archive.Outgoing) {
	t.Helper()
	h := tournamentOf(t, db, "roundrobin")
	for _, addr := range []string{"ann@example.org", "bob@example.org", "cy@example.org"} {
		h.join(addr)
	}
	h.send("from: Dora <dora@example.org>\nsubject: Re: [pbem T1 {ttoken 1 director}] Open\n\ntournament start T1\n")
	for id := 1; ; id++ {
		o, err := h.store.Outgoing(h.ctx, strconv.Itoa(id))
		if err != nil {
			t.Fatalf("setup: no pairing mail to Bob (%v)", err)
		}
		if strings.EqualFold(o.To[0].Addr, "bob@example.org") && strings.Contains(o.Text, "round 1, board") && o.GameID == 1 {
			return h, o
		}
	}
}

// replyWith makes a fixture of the corpora a reply that answers the
// referee's mail orig with command: the person's own words become that
// one line (their sign-off stays), and every line of the original (quoted,
// or unquoted below the attribution, header block or separator) says
// orig's lines in turn instead, keeping its quote marks.
func replyWith(c realworldCase, file, command, orig string) string {
	if len(c.Substitute) == 2 {
		file = strings.ReplaceAll(file, c.Substitute[0], c.Substitute[1])
	}
	if len(c.Transform) == 2 {
		file = strings.ReplaceAll(file, c.Transform[0], c.Transform[1])
	}
	file = strings.ReplaceAll(file, "\r\n", "\n")
	const mark = "\x00COMMAND\x00"
	switch {
	case c.BInsert == "start" || len(c.Fresh) == 0 || !strings.Contains(file, c.Fresh[0]):
		file = mark + "\n\n" + file
	default:
		file = strings.Replace(file, c.Fresh[0], mark, 1)
		for _, f := range c.Fresh[1:] {
			file = strings.Replace(file, f, "", 1)
		}
	}
	var referee []string
	for _, l := range strings.Split(orig, "\n") {
		if strings.TrimSpace(l) != "" {
			referee = append(referee, l)
		}
	}
	next := 0
	lines := strings.Split(file, "\n")
	started := false // the original has begun
	seenCommand := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.Contains(l, mark):
			seenCommand = true
			lines[i] = strings.Replace(l, mark, command, 1)
			continue
		case t == "" || slices.Contains(c.Signoff, t) || !seenCommand:
			continue
		}
		quoted := strings.HasPrefix(t, ">")
		if !started && (quoted || structural(t)) {
			started = true
		}
		if !started || !quoted && structural(t) {
			continue
		}
		prefix := l[:len(l)-len(strings.TrimLeft(l, " >"))]
		lines[i] = prefix + referee[next%len(referee)]
		next++
	}
	return strings.Join(lines, "\n")
}

// structural: a line of the fixture's frame around the original (an
// attribution, a header line, a separator), kept as it is.
func structural(t string) bool {
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") || strings.Contains(t, "@") {
		return true
	}
	if k := strings.IndexAny(t, ":："); k > 0 && k < 30 {
		return true
	}
	return strings.Trim(t, "-_=* ") == "" || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "___")
}

// TestRepliesReadOnlyTheCommand: every fixture of the real-world corpora
// (an HTML or whole message as the text the mail package makes of it), with the person's words replaced by one command and
// the original by one of the referee's mails (the board with its legend,
// the short help, an invitation), is read as exactly that one command line,
// from the mail as the mail package reads it (Parse, FreshText) and from
// the body as the client wrote it (quotes and all): the referee never
// reads its own words.
func TestRepliesReadOnlyTheCommand(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		dir := "../../shared/realworld"
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("no real-world fixtures at %s (they sit beside the repository): %v", dir, err)
		}
		type answered struct {
			h *harness
			o archive.Outgoing
		}
		var all []answered
		h := newHarness(t, db, nil)
		for _, o := range refereeMails(t, h) {
			all = append(all, answered{h, o})
		}
		th, pairing := pairingMail(t, db)
		all = append(all, answered{th, pairing})
		fixtures, failures := 0, 0
		for _, corpus := range []string{"willdurand", "crisp", "talon", "github", "zapier"} {
			b, err := os.ReadFile(filepath.Join(dir, corpus, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m struct{ Cases []realworldCase }
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s/manifest.json: %v", corpus, err)
			}
			for _, c := range m.Cases {
				data, err := os.ReadFile(filepath.Join(dir, corpus, c.File))
				if err != nil {
					t.Fatal(err)
				}
				file := string(data)
				switch c.Format {
				case "html", "eml":
					// The text the mail package makes of the message (HTML
					// converted, quotes marked), answered as plain text.
					raw := file
					if c.Format == "html" {
						raw = "From: Bob <bob@example.org>\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + file
					} else if !strings.Contains(strings.SplitN(raw, "\n\n", 2)[0], "From:") {
						raw = "From: Bob <bob@example.org>\r\n" + raw
					}
					in, err := mail.Parse([]byte(raw))
					if err != nil {
						t.Fatalf("%s/%s: %v", corpus, c.ID, err)
					}
					file = in.Text
				}
				fixtures++
				for _, a := range all {
					h, o := a.h, a.o
					to := h.expand("{plus 1 bob@example.org}")
					for _, command := range []string{"resign", "c1-c2"} {
						body := replyWith(c, string(file), command, o.Text)
						raw := "From: Bob <bob@example.org>\r\nTo: " + to + "\r\nSubject: Re: " + o.Subject +
							"\r\nMessage-ID: <r@example.org>\r\nIn-Reply-To: <" + o.MessageID + ">\r\n" +
							"Content-Type: text/plain; charset=utf-8\r\n\r\n" + strings.ReplaceAll(body, "\n", "\r\n")
						in, err := mail.Parse([]byte(raw))
						if err != nil {
							t.Fatalf("%s/%s: %v", corpus, c.ID, err)
						}
						for _, read := range []struct{ how, body string }{
							{"fresh text", mail.FreshText(in.Text)},
							{"whole body", in.Text},
						} {
							q := referee.Request{
								From: referee.Address{Name: "Bob", Addr: "bob@example.org"}, To: to, Subject: in.Subject,
								Body: read.body, MessageID: "r@example.org", InReplyTo: o.MessageID, Received: h.now,
							}
							got, err := referee.CommandLines(h.ctx, h.ref, &q)
							if err != nil {
								t.Fatal(err)
							}
							bad := !slices.Equal(got, []string{command})
							if read.how == "whole body" && len(got) > 0 && got[0] == command {
								// The client's frame (header lines, attributions) is
								// FreshText's to cut; here only the referee's own
								// lines must not be read.
								bad = false
								for _, l := range got[1:] {
									bad = bad || strings.Contains(o.Text, l)
								}
							}
							if bad {
								failures++
								t.Errorf("%s/%s, %s, answering %q: command lines %q, want %q; body:\n%s",
									corpus, c.ID, read.how, o.Subject, got, command, read.body)
							}
						}
					}
				}
			}
		}
		t.Logf("%d fixtures, each answering %d of the referee's mails with 2 commands, read as fresh text and as the whole body: %d failures",
			fixtures, len(all), failures)
	})
}

// TestGraveLineNextToOwnWordsIsAsked: "resign" running on into the
// referee's help, unquoted, might be a piece of it: the referee asks
// instead of ending the game. Apart from it, it is played.
func TestGraveLineNextToOwnWordsIsAsked(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		board := refereeMails(t, h)[1]
		help := "pass, show [GAMEID], games, record GAMEID, preview GAMEID PLY ...,\nundo, vacation N, say TEXT, watch GAMEID, unwatch, digest games\n"
		head := "from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\nin-reply-to: " + board.MessageID + "\n\n"
		out := h.send(head + "resign\n" + help)
		if !strings.Contains(out, `The line "resign" is also in the referee's mail`) {
			t.Errorf("the reply does not ask again:\n%s", out)
		}
		if g, err := h.store.Game(h.ctx, 1); err != nil || g.Status != archive.Playing {
			t.Fatalf("game #1 after an unsure resign: %v, %+v", err, g)
		}
		out = h.send(head + "resign\n\n" + help)
		if g, err := h.store.Game(h.ctx, 1); err != nil || g.Status == archive.Playing {
			t.Fatalf("game #1 after a clear resign is still playing (%v):\n%s", err, out)
		}
	})
}

// TestSendersQuotedLineIsRead: the lines the referee quotes from a request
// it answers are the sender's words, not the referee's: sent again in a
// reply to that mail, a command among them is read.
func TestSendersQuotedLineIsRead(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		line := "new rpp with carol@example.org first=carol@example.org"
		out := h.send("from: Bob <bob@example.org>\n\nnew rpp with carol@example.org first=nobody@example.org\n")
		id := regexp.MustCompile(`Message-ID: <([^>]+)>`).FindStringSubmatch(out)
		if id == nil || !strings.Contains(out, "> new rpp with carol@example.org first=nobody@example.org") {
			t.Fatalf("setup: the refusal does not quote the line:\n%s", out)
		}
		for _, body := range []string{
			"new rpp with carol@example.org first=nobody@example.org",
			line + "\n\n> new rpp with carol@example.org first=nobody@example.org\nThe option first=nobody@example.org names no player of the game.",
		} {
			q := h.request("2", "from: Bob <bob@example.org>\nin-reply-to: "+id[1]+"\n\n"+body+"\n")
			got, err := referee.CommandLines(h.ctx, h.ref, &q)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Split(body, "\n")[0]; !slices.Equal(got, []string{want}) {
				t.Errorf("command lines of %q = %q, want %q", body, got, want)
			}
		}
	})
}
