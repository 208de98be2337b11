package mail_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// mimeTree writes the structure of a message, one part a line, indented
// by depth: its media type, transfer encoding, Content-ID and
// disposition, and its size once decoded.
func mimeTree(t *testing.T, raw []byte) string {
	t.Helper()
	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	var b strings.Builder
	var walk func(e *message.Entity, depth int)
	walk = func(e *message.Entity, depth int) {
		mt, params, _ := e.Header.ContentType()
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), mt)
		if cs := params["charset"]; cs != "" {
			fmt.Fprintf(&b, "; charset=%s", cs)
		}
		if enc := e.Header.Get("Content-Transfer-Encoding"); enc != "" {
			fmt.Fprintf(&b, " (%s)", enc)
		}
		if id := e.Header.Get("Content-Id"); id != "" {
			fmt.Fprintf(&b, " id=%s", id)
		}
		if d := e.Header.Get("Content-Disposition"); d != "" {
			disp, _, _ := mime.ParseMediaType(d)
			fmt.Fprintf(&b, " %s", disp)
		}
		if mr := e.MultipartReader(); mr != nil {
			b.WriteString("\n")
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
		body, err := io.ReadAll(e.Body)
		require.NoError(t, err)
		fmt.Fprintf(&b, " %d bytes\n", len(body))
	}
	walk(e, 0)
	return b.String()
}

// TestComposeHTML: a mail with an HTML part and an image is
// multipart/alternative (text first, then the HTML and its image in a
// multipart/related), every part decodes to what was given, the reader of
// inbound mail still takes the text part, and the bytes are the same on a
// retry.
func TestComposeHTML(t *testing.T) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, 100)
	html := "<!doctype html>\n<html><body><p>Ply 3: your move \u2014 " + strings.Repeat("x", 200) + "</p>\n<img src=\"cid:board.r1@pbem.local\" alt=\"the board\"></body></html>\n"
	o := &mail.Outgoing{
		From:          mail.Address{Name: "pbem referee", Addr: "referee@pbem.local"},
		To:            []mail.Address{{Addr: "alice@pbem.local"}},
		Subject:       "[pbem #12] rpp",
		Date:          date,
		MessageID:     "r1@pbem.local",
		Text:          "Ply 3: your move.\n\n   a b\n 1 . X   \n-- \npbem\n",
		HTML:          html,
		Inline:        []mail.Inline{{ContentID: "board.r1@pbem.local", ContentType: "image/png", Filename: "board.png", Data: png}},
		AutoSubmitted: mail.AutoReplied,
	}
	raw := mail.Compose(o)
	assert.Equal(t, raw, mail.Compose(o), "Compose is not deterministic")
	golden(t, "testdata/compose/html.tree", mimeTree(t, raw))

	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	var parts []string
	require.NoError(t, e.Walk(func(path []int, p *message.Entity, err error) error {
		if err != nil || p.MultipartReader() != nil {
			return err
		}
		body, err := io.ReadAll(p.Body)
		parts = append(parts, string(body))
		return err
	}))
	require.Len(t, parts, 3)
	assert.Equal(t, strings.ReplaceAll(o.Text, "\n", "\r\n"), parts[0])
	assert.Equal(t, strings.ReplaceAll(html, "\n", "\r\n"), parts[1])
	assert.Equal(t, string(png), parts[2])

	in, err := mail.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimRight(o.Text, "\n"), strings.TrimRight(in.Text, "\n"))
	assert.Equal(t, "auto-replied", in.AutoSubmitted)
}

// TestComposeDrawsLater: an inline part given by a Picture instead of Data is
// drawn as the mail is composed, into the same bytes as with Data; a
// drawing that fails leaves the text part alone, without the HTML that
// would show a broken image.
func TestComposeDrawsLater(t *testing.T) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1}, 300)
	with := func(in mail.Inline) *mail.Outgoing {
		in.ContentID, in.ContentType = "board.r2@pbem.local", "image/png"
		return &mail.Outgoing{
			From: mail.Address{Addr: "referee@pbem.local"}, To: []mail.Address{{Addr: "bob@pbem.local"}},
			Subject: "[pbem #3] castles", Date: date, MessageID: "r2@pbem.local",
			Text: "Your move.\n", HTML: "<p>Your move.</p><img src=\"cid:board.r2@pbem.local\">\n",
			Inline: []mail.Inline{in},
		}
	}
	calls := 0
	later := with(mail.Inline{Picture: []byte(`"board"`)})
	assert.Equal(t, mail.Compose(with(mail.Inline{Data: png})), mail.ComposeDrawing(later, func([]byte) ([]byte, error) { calls++; return png, nil }))
	assert.Equal(t, 1, calls)
	assert.Nil(t, later.Inline[0].Data, "Compose changes not the mail it is given")

	failed := mail.ComposeDrawing(with(mail.Inline{Picture: []byte(`"board"`)}), func([]byte) ([]byte, error) { return nil, errors.New("a bug in drawing") })
	assert.Equal(t, mail.Compose(&mail.Outgoing{From: later.From, To: later.To, Subject: later.Subject, Date: date, MessageID: later.MessageID, Text: later.Text}), failed)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to write it")
	assert.Equal(t, string(want), got, "%s differs (run with -update to rewrite it)", path)
}

// unflow reads format=flowed text as a reader that knows it does (RFC
// 3676, no DelSp): space-stuffing removed, soft breaks joined.
func unflow(text string) []string {
	var out []string
	cur, open := "", false
	for _, l := range strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n") {
		l = strings.TrimPrefix(l, " ")
		if open {
			cur += l
		} else {
			cur = l
		}
		open = strings.HasSuffix(l, " ") && l != "-- "
		if !open {
			out = append(out, cur)
		}
	}
	if open {
		out = append(out, cur)
	}
	return out
}

// TestComposeFlowed: with FlowWidth the text part is format=flowed: a
// reader that knows it joins the wrapped lines of a paragraph into one
// and keeps the board's lines and the signature separator as they are; a
// reader that does not sees every line as written, board lines shifted by
// the one stuffed space, so the board keeps its columns.
func TestComposeFlowed(t *testing.T) {
	text := "Ply 1: your move (you play Red). You have until 2026-11-28 10:03 UTC (7\n" +
		"days).\n" +
		"Reply with your ply as the first line.\n" +
		"\n" +
		"      a  b  c\n" +
		"  2   .  X  .   2\n" +
		"  1   K  .  k   1   \n" +
		"From here the board is yours.\n" +
		"> not a quote\n" +
		"-- \n" +
		"pbem referee. Reply to this mail with your ply on the first line, or\n" +
		"with commands.\n"
	o := &mail.Outgoing{From: mail.Address{Addr: "referee@pbem.local"}, To: []mail.Address{{Addr: "a@b"}}, Date: date,
		MessageID: "f1@pbem.local", Text: text, FlowWidth: 72}
	raw := mail.Compose(o)
	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	mt, params, _ := e.Header.ContentType()
	assert.Equal(t, "text/plain", mt)
	assert.Equal(t, "flowed", params["format"])
	body, err := io.ReadAll(e.Body)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"Ply 1: your move (you play Red). You have until 2026-11-28 10:03 UTC (7 days).",
		"Reply with your ply as the first line.",
		"",
		"      a  b  c",
		"  2   .  X  .   2",
		"  1   K  .  k   1",
		"From here the board is yours.",
		"> not a quote",
		"-- ",
		"pbem referee. Reply to this mail with your ply on the first line, or with commands.",
	}, unflow(string(body)))
	// as plain lines: the same words, every board line one space right
	lines := strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n")
	assert.Equal(t, "       a  b  c", lines[4])
	assert.Equal(t, "   2   .  X  .   2", lines[5])
	assert.Equal(t, " From here the board is yours.", lines[7])
}

// TestComposeInlineLines: an inline part of any size, around the 57 bytes
// a base64 line of 76 characters holds, reads back as its bytes, in lines
// of at most 76 characters.
func TestComposeInlineLines(t *testing.T) {
	for _, n := range []int{0, 1, 56, 57, 58, 113, 114, 115, 1000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		o := &mail.Outgoing{
			From: mail.Address{Addr: "referee@pbem.local"}, To: []mail.Address{{Addr: "alice@pbem.local"}},
			Date: date, MessageID: fmt.Sprintf("r%d@pbem.local", n), Text: "Your move.\n", HTML: "<p>Your move.</p>\n",
			Inline: []mail.Inline{{ContentID: "b@pbem.local", ContentType: "image/png", Data: data}},
		}
		raw := mail.Compose(o)
		for _, line := range strings.Split(string(raw), "\r\n") {
			if strings.Trim(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == "" {
				require.LessOrEqual(t, len(line), 76, "%d bytes: a line of base64 of %d characters", n, len(line))
			}
		}
		e, err := message.Read(bytes.NewReader(raw))
		require.NoError(t, err)
		var got []byte
		require.NoError(t, e.Walk(func(path []int, p *message.Entity, err error) error {
			if err == nil && p.Header.Get("Content-Id") != "" {
				got, err = io.ReadAll(p.Body)
			}
			return err
		}))
		require.Equal(t, data, append([]byte{}, got...), "%d bytes", n)
	}
}
