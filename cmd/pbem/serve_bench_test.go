package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/archive"
	"pbem/engine"
	"pbem/mail"
	"pbem/referee"
)

// benchGames is the number of concurrent games of BenchmarkServe.
const benchGames = 1000

// BenchmarkServe measures pbem serve end to end on its embedded servers,
// with 1,000 castles games under way: each round mails one ply to every
// game at once (SMTP in), and ends when the SMTP server has accepted a
// reply for each (IMAP poll or IDLE, referee, store, outbox, SMTP out). It
// reports moves per second and the latency from submitting a ply to the
// first reply accepted for its game (p50, p99).
func BenchmarkServe(b *testing.B) {
	cfg := &Config{DataDir: b.TempDir()}
	cfg.defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Log.Level = "error"
	cfg.Referee.RateLimitTotal = 1_000_000 // every game starts with a mail without a token
	var names []string
	for i := range 2 * benchGames {
		names = append(names, "p"+strconv.Itoa(i))
	}
	// Each reply the sender marks sent comes with its game, to a goroutine
	// of its own, never polled: the benchmark measures the server, not
	// itself.
	type sentMail struct {
		game int64
		at   time.Time
	}
	sentc := make(chan sentMail, 1<<16)
	s := &server{cfg: cfg, out: io.Discard, embedded: true, imapPort: 0, smtpPort: 0, players: names,
		onSent: func(_ string, game int64) { sentc <- sentMail{game, time.Now()} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	<-ready
	var mu sync.Mutex
	subAt := map[int64]time.Time{} // when this round's ply of each game was submitted
	first := map[int64]time.Time{} // the first reply of each game after it
	answered := make(chan struct{}, 1)
	target := 0 // games of the round, once all are submitted
	go func() {
		for m := range sentc {
			g := m.game
			mu.Lock()
			if t, ok := subAt[g]; ok && m.at.After(t) {
				if _, ok := first[g]; !ok {
					first[g] = m.at
					if target > 0 && len(first) == target {
						answered <- struct{}{}
					}
				}
			}
			mu.Unlock()
		}
	}()
	domain := s.mails.Domain()
	addr := func(i int) string { return names[i] + "@" + domain }
	codec, _ := referee.Lookup("castles")

	submit := func(from, to, subject, body string) {
		o := &mail.Outgoing{From: mail.Address{Addr: from}, To: []mail.Address{{Addr: to}}, Subject: subject,
			Date: time.Now(), MessageID: mail.NewMessageID(domain), Text: body}
		c, err := smtp.Dial(s.mails.SMTPAddr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		pw, _ := s.mails.Password(from)
		if err := c.Auth(sasl.NewPlainClient("", from, pw)); err != nil {
			b.Fatal(err)
		}
		if err := c.SendMail(from, []string{to}, bytes.NewReader(mail.Compose(o))); err != nil {
			b.Fatal(err)
		}
	}
	// replyTo[g][seat] is the plus-address (with the token) of a player.
	replyTo := func() map[int64]map[string]string {
		rows, err := s.store.DB().Query(`SELECT game_id, to_addrs, reply_to FROM outbox WHERE game_id > 0 AND reply_to != ''`)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		out := map[int64]map[string]string{}
		for rows.Next() {
			var g int64
			var to, rt string
			rows.Scan(&g, &to, &rt)
			var tos []archive.Address
			var r archive.Address
			json.Unmarshal([]byte(to), &tos)
			json.Unmarshal([]byte(rt), &r)
			if out[g] == nil {
				out[g] = map[string]string{}
			}
			out[g][tos[0].Addr] = r.Addr
		}
		return out
	}
	waitFor := func(what string, ok func() bool) {
		deadline := time.Now().Add(5 * time.Minute)
		for !ok() {
			if time.Now().After(deadline) {
				b.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Set up the games by mail (untimed): the inviter creates the game and
	// confirms it with accept, then the invitee accepts.
	n := benchGames
	if v, err := strconv.Atoi(os.Getenv("PBEM_BENCH_GAMES")); err == nil && v > 0 {
		n = v
	}
	for g := range n {
		submit(addr(2*g), s.mails.RefereeAddress(), "new castles with "+addr(2*g+1), "")
	}
	waitFor("confirmations", func() bool { return len(replyTo()) == n })
	rt := replyTo()
	games := make([]int64, 0, len(rt))
	seat := map[int64][2]string{}
	for g, m := range rt {
		for a := range m {
			i, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(a, "@"+domain), "p"))
			seat[g] = [2]string{addr(i), addr(i + 1)}
		}
		games = append(games, g)
		submit(seat[g][0], rt[g][seat[g][0]], "", "accept")
	}
	slices.Sort(games)
	invited := func() bool {
		rt := replyTo()
		for _, g := range games {
			if len(rt[g]) < 2 {
				return false
			}
		}
		return true
	}
	waitFor("invitations", invited)
	rt = replyTo()
	for _, g := range games {
		submit(seat[g][1], rt[g][seat[g][1]], "", "accept")
	}
	waitFor("accepts", func() bool {
		var k int
		s.store.DB().QueryRow(`SELECT count(*) FROM games WHERE status = 'playing'`).Scan(&k)
		return k == n
	})
	time.Sleep(500 * time.Millisecond) // let the start mails go out
	rt = replyTo()
	lines := make([]*engine.Line, len(games))
	st, _ := codec.Rules().Start(engine.Options{})
	for i := range games {
		lines[i] = engine.NewLine(st)
	}
	var lat []time.Duration
	moves := 0
	start := time.Now()
	for b.Loop() {
		type sub struct {
			g  int64
			at time.Time
		}
		subs := make([]sub, 0, len(games))
		mu.Lock()
		clear(first)
		clear(subAt)
		target = 0
		mu.Unlock()
		var wg sync.WaitGroup
		work := make(chan int)
		var smu sync.Mutex
		for w := range 8 {
			r := rand.New(rand.NewPCG(uint64(w), uint64(moves)))
			wg.Go(func() {
				for i := range work {
					g := games[i]
					l := lines[i]
					if l.Outcome().Over {
						continue
					}
					m := randomMove(l.State(), r)
					text := codec.Encode(l.State(), m)
					mover := seat[g][l.State().ToMove()]
					at := time.Now()
					mu.Lock()
					subAt[g] = at
					mu.Unlock()
					submit(mover, rt[g][mover], "", text)
					nl, err := l.Play(m)
					if err != nil {
						panic(err)
					}
					lines[i] = nl
					smu.Lock()
					subs = append(subs, sub{g, at})
					smu.Unlock()
				}
			})
		}
		for i := range games {
			work <- i
		}
		close(work)
		wg.Wait()
		// Wait for a reply to every game of the round.
		mu.Lock()
		target = len(subs)
		waiting := len(first) < target
		mu.Unlock()
		if waiting {
			select {
			case <-answered:
			case <-time.After(5 * time.Minute):
				b.Fatalf("timed out waiting for replies")
			}
		}
		mu.Lock()
		for _, x := range subs {
			lat = append(lat, first[x.g].Sub(x.at))
		}
		mu.Unlock()
		moves += len(subs)
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(moves)/elapsed.Seconds(), "moves/s")
		b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	}
	b.Logf("%d moves in %d games, %v", moves, len(games), elapsed)
	cancel()
	<-done
}
