package mail_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/mail"
	"pbem/mail/embedded"
)

// BenchmarkEndToEnd measures the whole inbound path with the embedded
// servers on loopback: SMTP submission -> delivery into the referee's
// INBOX -> IDLE -> fetch -> Parse -> Handler -> \Seen + MOVE to Processed.
//
//   - burst: messages are submitted back to back over one SMTP connection;
//     msgs/s is the end-to-end throughput (until the last one is in
//     Processed), and the latencies include queueing behind earlier ones.
//   - one-at-a-time: each message is submitted once the previous one was
//     handled, so the latencies are the bare delivery-to-handler time.
//
// Latency runs from just before the SMTP submission to the Handler call.
// Run with: go test -run '^$' -bench EndToEnd ./mail
func BenchmarkEndToEnd(b *testing.B) {
	for _, mode := range []string{"burst", "one-at-a-time"} {
		b.Run(mode, func(b *testing.B) { benchEndToEnd(b, mode == "burst") })
	}
}

func benchEndToEnd(b *testing.B, burst bool) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := embedded.Start(&embedded.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()

	var (
		mu        sync.Mutex
		latencies []time.Duration
		handled   = make(chan struct{}, 1<<16)
	)
	h := mail.HandlerFunc(func(_ context.Context, in *mail.Inbound) error {
		now := time.Now()
		ns, err := strconv.ParseInt(strings.TrimPrefix(in.Subject, "bench "), 10, 64)
		if err != nil {
			return mail.Permanent(err)
		}
		mu.Lock()
		latencies = append(latencies, now.Sub(time.Unix(0, ns)))
		mu.Unlock()
		handled <- struct{}{}
		return nil
	})
	pw, _ := s.Password("referee")
	p, err := mail.NewPoller(&mail.PollerOptions{
		Addr: s.IMAPAddr(), Security: mail.SecurityPlain,
		Username: s.RefereeAddress(), Password: pw,
		PollInterval: time.Hour, BatchSize: 100,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Logger: quiet,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		p.Run(ctx, h)
		close(stopped)
	}()
	defer func() {
		cancel()
		<-stopped
	}()

	c, err := smtp.Dial(s.SMTPAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Auth(sasl.NewPlainClient("", "alice@pbem.local", "alice")); err != nil {
		b.Fatal(err)
	}
	send := func() {
		raw := fmt.Appendf(nil, "From: alice@pbem.local\r\nTo: referee@pbem.local\r\nSubject: bench %d\r\nMessage-ID: <%d@bench>\r\n\r\n1. e4 e5\r\n",
			time.Now().UnixNano(), time.Now().UnixNano())
		if err := c.SendMail("alice@pbem.local", []string{"referee@pbem.local"}, bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
	wait := func(n int) {
		for i := 0; i < n; i++ {
			select {
			case <-handled:
			case <-time.After(30 * time.Second):
				b.Fatalf("message %d of %d not handled in 30s", i+1, n)
			}
		}
	}
	// Warm up: the poller is connected and idle.
	send()
	wait(1)
	mu.Lock()
	latencies = latencies[:0]
	mu.Unlock()

	n := 0
	start := time.Now()
	for b.Loop() {
		send()
		n++
		if !burst {
			wait(1)
		}
	}
	if burst {
		wait(n)
	}
	// Until the last message is in Processed.
	for {
		st, err := s.Status("referee", "Processed")
		if err == nil && int(*st.NumMessages) >= n+1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)

	mu.Lock()
	defer mu.Unlock()
	slices.Sort(latencies)
	pct := func(q float64) float64 {
		i := int(q * float64(len(latencies)-1))
		return float64(latencies[i].Microseconds()) / 1000
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
