package mail_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"

	"pbem/mail"
	"pbem/mail/embedded"
)

// BenchmarkSender sends batches of 64 replies, to 64 recipients, over 8
// connections to the embedded SMTP server with its journal (an fsync per
// group of deliveries), the Sender noting each in its accepted log (an
// fsync per group of notes) or, with Delivered, asking the server instead.
// ns/op is the time of one batch.
//
// Run with: go test -run '^$' -bench Sender ./mail
func BenchmarkSender(b *testing.B) {
	for _, ask := range []bool{false, true} {
		name := "accepted-log"
		if ask {
			name = "delivered"
		}
		b.Run(name, func(b *testing.B) {
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			s, err := embedded.Start(&embedded.Options{Dir: b.TempDir(), Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			st := newStore()
			opts := &mail.SenderOptions{Addr: s.SMTPAddr(), Security: mail.SecurityPlain, Username: s.RefereeAddress(),
				Connections: 8, BatchSize: 64, AcceptedLog: filepath.Join(b.TempDir(), "accepted.log"), Logger: quiet}
			opts.Password, _ = s.Password(opts.Username)
			if ask {
				opts.Delivered = s.Delivered
			}
			snd, err := mail.NewSender(st, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for range 64 {
					n++
					st.queue("alice+"+strconv.Itoa(n)+"@pbem.local", "Your move.")
				}
				if _, err := snd.SendDue(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(64*b.N), "ns/reply")
		})
	}
}
