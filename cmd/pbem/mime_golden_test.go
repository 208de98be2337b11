package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/mail"
	"pbem/referee"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// mimeStructure writes the structure of a message, one part a line,
// indented by depth: media type, charset, transfer encoding, whether it
// has a Content-ID and its disposition.
func mimeStructure(t *testing.T, raw []byte) string {
	t.Helper()
	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	var b strings.Builder
	for _, k := range []string{"Auto-Submitted", "X-Auto-Response-Suppress", "Mime-Version"} {
		fmt.Fprintf(&b, "%s: %s\n", k, e.Header.Get(k))
	}
	if u := e.Header.Get("List-Unsubscribe"); u != "" {
		// the address and token vary; the forms given do not
		fmt.Fprintf(&b, "List-Unsubscribe: %s\n", unsubToken.ReplaceAllString(u, "${1}TOKEN${2}"))
		fmt.Fprintf(&b, "List-Unsubscribe-Post: %s\n", e.Header.Get("List-Unsubscribe-Post"))
	}
	var walk func(e *message.Entity, depth int)
	walk = func(e *message.Entity, depth int) {
		mt, params, _ := e.Header.ContentType()
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), mt)
		if cs := params["charset"]; cs != "" {
			fmt.Fprintf(&b, "; charset=%s", cs)
		}
		if f := params["format"]; f != "" {
			fmt.Fprintf(&b, "; format=%s", f)
		}
		if enc := e.Header.Get("Content-Transfer-Encoding"); enc != "" {
			fmt.Fprintf(&b, " (%s)", enc)
		}
		if e.Header.Get("Content-Id") != "" {
			b.WriteString(" with Content-ID")
		}
		if d := e.Header.Get("Content-Disposition"); d != "" {
			disp, _, _ := mime.ParseMediaType(d)
			fmt.Fprintf(&b, " %s", disp)
		}
		b.WriteString("\n")
		if mr := e.MultipartReader(); mr != nil {
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				walk(p, depth+1)
			}
			return
		}
		_, err := io.ReadAll(e.Body)
		require.NoError(t, err)
	}
	walk(e, 0)
	return b.String()
}

var unsubToken = regexp.MustCompile(`(t=|%20)[A-Za-z0-9_-]{22}(>|&|$)`)

var subjectToken = regexp.MustCompile(`^\[pbem (?:#\d+|T\d+) ([a-z0-9]+)\]`)

// TestMailStructure: every kind of mail the referee sends (a board, an
// invitation, the end of a game, an error, the help, a tournament's
// pairings, a watcher's mail) goes out as multipart/alternative, text
// first, then the HTML with the board's picture inline where there is a
// board; a board to the player who has the move is multipart/mixed, that
// and the deadline's text/calendar part; a watcher's mail carries
// List-Unsubscribe; compared with
// testdata/mime/KIND.tree (-update rewrites them).
func TestMailStructure(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, t.TempDir(), nil)
	require.NoError(t, err)
	defer store.Close()
	clock := &fixedClock{time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example", Clock: clock, WebBaseURL: "https://pbem.example"})
	require.NoError(t, err)
	n, seen := 0, 0
	var mails []archive.Outgoing
	send := func(from, subject, body string) {
		t.Helper()
		n++
		clock.t = clock.t.Add(time.Minute)
		require.NoError(t, ref.Handle(ctx, referee.Request{From: referee.Address{Addr: from}, To: "referee@pbem.example", Subject: subject,
			Body: body, MessageID: fmt.Sprintf("m%d@example.org", n), Received: clock.t}))
		for id := seen + 1; ; id++ {
			o, err := store.Outgoing(ctx, fmt.Sprint(id))
			if err != nil {
				break
			}
			mails, seen = append(mails, o), id
		}
	}
	// last is the subject of the newest mail to addr whose subject
	// contains part.
	last := func(addr, part string) *archive.Outgoing {
		t.Helper()
		for i := len(mails) - 1; i >= 0; i-- {
			if mails[i].To[0].Addr == addr && strings.Contains(mails[i].Subject, part) {
				return &mails[i]
			}
		}
		for _, m := range mails {
			t.Log(m.To[0].Addr, m.Subject)
		}
		t.Fatalf("no mail to %s about %q", addr, part)
		return nil
	}
	reply := func(from, part, body string) {
		t.Helper()
		send(from, "Re: "+last(from, part).Subject, body)
	}
	kinds := map[string]*archive.Outgoing{}
	send("alice@example.org", "", "new castles with bob@example.org")
	reply("alice@example.org", "invitation", "accept")
	kinds["invitation"] = last("bob@example.org", "invitation")
	reply("bob@example.org", "invitation", "accept")
	kinds["board"] = last("alice@example.org", "to move")
	kinds["board-mover"] = last("bob@example.org", "to move")
	send("carol@example.org", "", "vacation many")
	kinds["error"] = last("carol@example.org", "error")
	send("carol@example.org", "", "help")
	kinds["help"] = last("carol@example.org", "help")
	send("olga@example.org", "", "watch 1")
	reply("olga@example.org", "castles", "watch 1")
	reply("alice@example.org", "to move", "resign")
	kinds["game-over"] = last("bob@example.org", "game over")
	kinds["watch"] = last("olga@example.org", "game over")

	send("dora@example.org", "", `tournament new "Cup" castles roundrobin`)
	reply("dora@example.org", "confirm", "tournament confirm T1")
	for _, p := range []string{"ann@example.org", "ben@example.org"} {
		send(p, "", "join T1")
		reply(p, "T1", "join T1")
	}
	reply("dora@example.org", "Cup", "tournament start T1")
	kinds["tournament-pairing"] = last("ann@example.org", "round 1")

	for kind, o := range kinds {
		t.Run(kind, func(t *testing.T) {
			m := outgoing(o)
			raw := mail.ComposeDrawing(&m, drawPicture)
			got := fmt.Sprintf("Subject: %s\n", subjectToken.ReplaceAllString(o.Subject, "[pbem TAG TOKEN]")) + mimeStructure(t, raw)
			path := filepath.Join("testdata", "mime", kind+".tree")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./cmd/pbem -run TestMailStructure -update")
			assert.Equal(t, string(want), got)
			assert.Less(t, len(raw), 80<<10, "the mail is %d bytes", len(raw))
			t.Logf("%s: %d bytes", kind, len(raw))
		})
	}
}
