package referee_test

import (
	"mime"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/referee"
)

// TestClientReplies plays the replies of the mail package's client corpus
// (../mail/testdata/clients: each NAME.eml is a reply as a client writes
// it, NAME.want the fresh text the mail package extracts from it and the
// command lines it holds). The fresh text and the mail's subject go to the
// referee, in a ziggurat43 game in the state the reply answers: the
// referee must read exactly the command lines listed, and its reply to
// the sender must carry no error, no "no command" notice and no help.
func TestClientReplies(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		if _, err := referee.Lookup("ziggurat43"); err != nil {
			t.Skipf("ziggurat43 is not in the catalog: %v", err)
		}
		files, err := filepath.Glob("../mail/testdata/clients/*.want")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 40 {
			t.Fatalf("%d client fixtures, want at least 40", len(files))
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".want")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				state, from, commands, fresh := readWant(t, file)
				subject := emlSubject(t, strings.TrimSuffix(file, ".want")+".eml")
				addr, err := mail.ParseAddress(from)
				if err != nil {
					t.Fatal(err)
				}
				h := newHarness(t, db, nil)
				h.step("1", "in", "from: Alice <alice@example.org>\nsubject: new\n\nnew ziggurat43 with bob@example.org\n")
				// Where the inviter confirms a new game, this confirms it; else
				// it is refused, and changes nothing.
				h.step("1a", "in", "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
				if state != "invited" {
					h.step("2", "in", "from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\naccept\n")
				}
				if state == "gold" {
					h.step("3", "in", "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nSe3-e4\n")
				}
				wantStatus := archive.Playing
				if state == "invited" {
					wantStatus = archive.Invited
				}
				if g, err := h.store.Game(h.ctx, 1); err != nil || g.Status != wantStatus || state == "invited" && !g.Seats[0].Joined {
					t.Fatalf("setup: game #1 is not %s (%v, %+v)", state, err, g)
				}
				subject = strings.ReplaceAll(subject, "k7x9qabc", "{token 1 "+addr.Address+"}")
				req := h.request("4", "from: "+from+"\nsubject: "+subject+"\n\n"+fresh+"\n")
				got, err := referee.CommandLines(h.ctx, h.ref, &req)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, commands) {
					t.Errorf("command lines = %q, want %q", got, commands)
				}
				h.clock.set(h.now)
				if err := h.ref.Handle(h.ctx, req); err != nil {
					t.Fatal(err)
				}
				reply := replyTo(h.mails(), addr.Address)
				if reply == "" {
					t.Fatalf("no reply to %s", addr.Address)
				}
				for _, noise := range []string{"Expected:", "not a command", "no command", "was not read", "were not read", "Commands, one per line"} {
					if strings.Contains(reply, noise) {
						t.Errorf("the reply says %q:\n%s", noise, reply)
					}
				}
				if !strings.Contains(reply, "You played") && !strings.Contains(reply, "You accepted") {
					t.Errorf("the reply does not confirm the command:\n%s", reply)
				}
			})
		}
	})
}

func readWant(t *testing.T, file string) (state, from string, commands []string, fresh string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(data), "-- commands --\n")
	cmds, fresh, ok := strings.Cut(rest, "-- fresh --\n")
	if !ok {
		t.Fatalf("%s: no -- commands -- and -- fresh -- sections", file)
	}
	for _, l := range strings.Split(strings.TrimSpace(head), "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch k {
		case "state":
			state = strings.TrimSpace(v)
		case "from":
			from = strings.TrimSpace(v)
		}
	}
	for _, l := range strings.Split(cmds, "\n") {
		if l != "" {
			commands = append(commands, l)
		}
	}
	return state, from, commands, strings.TrimSuffix(fresh, "\n")
}

// emlSubject is the decoded Subject of a raw message.
func emlSubject(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replyTo picks, from the mails a step printed, the one to addr.
func replyTo(mails, addr string) string {
	for _, m := range strings.Split("\n"+mails, "\n>>> To: ") {
		if first, _, _ := strings.Cut(m, "\n"); strings.Contains(first, addr) {
			return m
		}
	}
	return ""
}

// TestClientGameIsClean: in the transcript of a game played with replies
// shaped by mail clients, no mail carries an error, a "no command" notice
// or the help.
func TestClientGameIsClean(t *testing.T) {
	data, err := os.ReadFile("testdata/clients-game.txtar")
	if err != nil {
		t.Fatal(err)
	}
	outs := 0
	for _, f := range parseTxtar(data).files {
		if !strings.HasSuffix(f.name, ".out") {
			continue
		}
		outs++
		for _, noise := range []string{"Expected:", "not a command", "no command", "was not read", "were not read", "Commands, one per line"} {
			if strings.Contains(f.data, noise) {
				t.Errorf("step %s says %q:\n%s", f.name, noise, f.data)
			}
		}
	}
	if outs < 15 {
		t.Errorf("the transcript has %d replies, want a whole game", outs)
	}
}
