package mail_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pbem/mail"
)

// FuzzParse checks that Parse never panics, that what it returns is sane,
// and that the text it extracts survives Compose and Parse unchanged.
// testdata/fuzz/FuzzParse holds hand-made seeds for the broken and odd
// structures; crashers found by `go test -run '^$' -fuzz FuzzParse ./mail`
// go there too (none so far, after about ten minutes of fuzzing).
func FuzzParse(f *testing.F) {
	seeds := []string{
		"From: a@h\n\nhi\n",
		"From: =?utf-8?q?Al=C3=AFce?= <a@h>\nSubject: =?iso-8859-1?q?n=B0?=\nMessage-ID: <x@h>\nReferences: <a@h> <b@h>\n\nbody\n",
		"From: a@h\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/html\n\n<p>x &amp; y</p>\n--b\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nCaf=E9\n--b--\n",
		"From: a@h\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n",
		"From: a@h\nContent-Transfer-Encoding: base64\n\n0YXQvtC0IGU0Cg==\n",
		"From: a@h\nContent-Type: text/html\n\n<pre>a<b>c</b></pre><script>x</script><!-- c --><li>i\n",
		"From a@h\n\n",
		"",
	}
	for _, s := range seeds {
		f.Add([]byte(strings.ReplaceAll(s, "\n", "\r\n")))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := mail.Parse(raw)
		if in == nil {
			t.Fatalf("Parse returned nil Inbound (err %v)", err)
		}
		if string(in.Raw) != string(raw) {
			t.Fatalf("Raw not kept")
		}
		if err != nil {
			if !mail.IsPermanent(err) {
				t.Fatalf("Parse error %v is not permanent", err)
			}
			return
		}
		if in.From.Addr == "" {
			t.Fatalf("Parse succeeded without a From address")
		}
		for _, s := range []string{in.Text, in.Subject, in.From.Name, in.DeliveredTo, in.MessageID} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
		if strings.Contains(in.Text, "\r") {
			t.Fatalf("Text has CR: %q", in.Text)
		}
		if strings.ContainsAny(in.Subject, "\r\n") {
			t.Fatalf("Subject has a line break: %q", in.Subject)
		}

		out := mail.Compose(&mail.Outgoing{
			From:      mail.Address{Name: in.From.Name, Addr: "referee@pbem.local"},
			To:        []mail.Address{{Addr: "alice@pbem.local"}},
			Subject:   in.Subject,
			MessageID: "x@pbem.local",
			Text:      in.Text,
		})
		back, err := mail.Parse(out)
		if err != nil {
			t.Fatalf("Parse(Compose(...)) = %v\n%s", err, out)
		}
		want := strings.ReplaceAll(in.Text, "\x00", "")
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		want = strings.TrimPrefix(want, "\uFEFF")
		if back.Text != want {
			t.Fatalf("text round trip:\n got %q\nwant %q", back.Text, want)
		}
	})
}
