package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/engine"
	"pbem/mail"
	"pbem/notation"
	"pbem/referee"
)

// soakInt reads a count of the soak test from the environment.
func soakInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q: expected a whole number", name, v)
	return n
}

// TestSoakKill9 plays games by mail against `pbem serve` on its embedded
// mail servers and kills the server (SIGKILL) at random moments, restarting
// it each time on the same data directory. In the end every ply mailed is
// in its game's record exactly once, nothing the players were sent is lost
// (each ply was answered) and no reply arrived twice (counted by
// Message-ID: a resent reply keeps its Message-ID), since the sender asks
// the embedded servers after a restart which of the replies it was
// sending when it was killed they hold.
//
// PBEM_SOAK_GAMES (24), PBEM_SOAK_MOVES (300 plies in all), PBEM_SOAK_KILLS
// (25) and PBEM_SOAK_SEED (1) set its size; a CI run can take a smaller one.
func TestSoakKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pbem and plays for a minute or more")
	}
	dir := t.TempDir()
	srv := &soakServer{t: t, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "serve.log"), http: soakPort(t)}
	imap, smtp := soakPort(t), soakPort(t)
	srv.args = []string{"--data", srv.data, "--imap-port", strconv.Itoa(imap), "--smtp-port", strconv.Itoa(smtp)}
	srv.ready = srv.addr(smtp)
	runSoak(t, srv, "pbem.local", func(name string) *player {
		return &player{addr: name + "@pbem.local", pass: name, imapAddr: srv.addr(imap), smtpAddr: srv.addr(smtp)}
	})
}

// runSoak is the kill -9 soak on srv, whose players are made by newPlayer
// (at domain, as is the referee).
func runSoak(t *testing.T, srv *soakServer, domain string, newPlayer func(name string) *player) {
	games := soakInt(t, "PBEM_SOAK_GAMES", 24)
	moves := soakInt(t, "PBEM_SOAK_MOVES", 300)
	kills := soakInt(t, "PBEM_SOAK_KILLS", 25)
	seed := uint64(soakInt(t, "PBEM_SOAK_SEED", 1))
	plies := (moves + games - 1) / games

	srv.bin = filepath.Join(t.TempDir(), "pbem")
	build := exec.Command("go", "build", "-o", srv.bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	srv.referee = "referee@" + domain
	srv.start()
	t.Cleanup(srv.stop)

	names := []string{"alice", "bob", "carol", "dave"}
	posts := map[string]*postbox{}
	for _, n := range names {
		p := newPlayer(n)
		posts[n] = newPostbox(p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range posts {
		wg.Go(func() { p.run(ctx) })
	}
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)

	// The games are made one after the other, then played at once while
	// the server is killed.
	var gs []*soakGame
	start := time.Now()
	for i := range games {
		a, b := names[i%4], names[(i/4+i%4+1)%4]
		if a == b {
			b = names[(i+1)%4]
		}
		g, err := newSoakGame(ctx, srv, posts[a], posts[b], codec, rand.New(rand.NewPCG(seed, uint64(i))))
		require.NoError(t, err, "game %d", i+1)
		gs = append(gs, g)
	}
	t.Logf("%d games made in %v", len(gs), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	errs := make(chan error, len(gs))
	var play sync.WaitGroup
	for _, g := range gs {
		play.Go(func() { errs <- g.play(ctx, srv.referee, plies) })
	}
	killed := make(chan int)
	go func() {
		r := rand.New(rand.NewPCG(seed, 1<<32))
		n := 0
		defer func() { killed <- n }()
		done := make(chan struct{})
		go func() { play.Wait(); close(done) }()
		for n < kills {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(100+r.IntN(400)) * time.Millisecond):
			}
			srv.kill()
			n++
			srv.start()
		}
	}()
	play.Wait()
	nkills := <-killed
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	played := time.Since(start)

	// Let the last replies arrive, then stop and read every mailbox from
	// its beginning.
	time.Sleep(2 * time.Second)
	cancel()
	wg.Wait()
	sent := 0
	for _, g := range gs {
		sent += len(g.sent)
	}
	replies, doubled := 0, 0
	var dups []string
	for _, n := range names {
		_, distinct, twice, d := tallyReplies(t, n, newPlayer(n))
		replies, doubled, dups = replies+distinct, doubled+twice, append(dups, d...)
	}
	srv.stop()

	// Every ply mailed is in the record exactly once, in order.
	store, err := archive.Open(context.Background(), srv.data, nil)
	require.NoError(t, err)
	defer store.Close()
	applied := checkRecords(t, store, gs)
	t.Logf("%d games, %d plies mailed and %d in the records, %d kill -9 in %v; %d distinct replies, %d doubled",
		len(gs), sent, applied, nkills, played.Round(time.Millisecond), replies, doubled)
	for _, d := range dups {
		t.Log(d)
	}
	// A reply under way at a kill is looked up after the restart (on the
	// embedded servers, or by its copy in the referee's mailbox): one
	// the server took is not sent again.
	log, _ := os.ReadFile(srv.log)
	t.Logf("%d replies under way at a kill were found delivered after the restart and not sent again; %d sent again without a copy found",
		strings.Count(string(log), "found delivered; not sent again")+strings.Count(string(log), "found in the copies; not sent again"),
		strings.Count(string(log), "has no copy after the wait"))
	assert.LessOrEqual(t, doubled, soakInt(t, "PBEM_SOAK_MAX_DOUBLED", srv.maxDoubled), "replies doubled")
	if t.Failed() {
		log, _ := os.ReadFile(srv.log)
		t.Logf("server log (tail):\n%s", tail(string(log), 4000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func soakPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// soakServer is `pbem serve` as a child process.
type soakServer struct {
	t              *testing.T
	bin, data, log string
	http           int
	args           []string // of pbem serve, besides --http and --web
	env            []string // added to the environment
	ready          string   // an address that answers once the server is up
	referee        string   // the referee's address
	maxDoubled     int      // replies that may arrive twice

	mu  sync.Mutex
	cmd *exec.Cmd
}

func (s *soakServer) addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// start runs the server and returns once its SMTP port answers.
func (s *soakServer) start() {
	s.t.Helper()
	f, err := os.OpenFile(s.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	require.NoError(s.t, err)
	defer f.Close()
	cmd := exec.Command(s.bin, append(append([]string{"serve"}, s.args...), "--http", s.addr(s.http), "--web", "off")...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), s.env...)
	require.NoError(s.t, cmd.Start())
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.ready, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(s.log)
			s.t.Fatalf("pbem serve did not start: %v\n%s", err, tail(string(log), 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL.
func (s *soakServer) kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// stop ends the server as an operator would (SIGTERM).
func (s *soakServer) stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// postbox reads a player's inbox over and over (the server may be down)
// and keeps every mail, by the Message-ID it answers.
type postbox struct {
	p *player

	mu      sync.Mutex
	all     []*mail.Inbound
	seen    map[string]bool // Message-IDs read
	replies map[string]*mail.Inbound
}

func newPostbox(p *player) *postbox {
	return &postbox{p: p, seen: map[string]bool{}, replies: map[string]*mail.Inbound{}}
}

func (b *postbox) run(ctx context.Context) {
	for ctx.Err() == nil {
		msgs, _ := b.p.fetch() // errors: the server is down; try again
		b.mu.Lock()
		for _, m := range msgs {
			if b.seen[m.MessageID] {
				continue // a resent reply
			}
			b.seen[m.MessageID] = true
			b.all = append(b.all, m)
			if m.InReplyTo != "" {
				b.replies[m.InReplyTo] = m
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// wait returns the first mail from index from on that satisfies ok.
func (b *postbox) wait(ctx context.Context, from *int, ok func(*mail.Inbound) bool) (*mail.Inbound, error) {
	for {
		b.mu.Lock()
		for *from < len(b.all) {
			m := b.all[*from]
			*from++
			if ok(m) {
				b.mu.Unlock()
				return m, nil
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no such mail: %w", b.p.addr, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// describe lists the mail read so far, for a failure.
func (b *postbox) describe() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var l []string
	for _, m := range b.all {
		l = append(l, fmt.Sprintf("%q (reply-to %v) in reply to %s:\n%s", m.Subject, m.ReplyTo, m.InReplyTo, m.Text))
	}
	return fmt.Sprintf("%d mails: %s", len(l), strings.Join(l, "; "))
}

// reply returns the referee's answer to the message with the given id, if
// it came.
func (b *postbox) reply(id string) *mail.Inbound {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.replies[id]
}

// mailOnce submits a message with a fixed Message-ID, again and again
// until the server accepts it (it may be down).
func mailOnce(ctx context.Context, p *player, to, subject, text, id string, m *mail.Inbound) error {
	o := &mail.Outgoing{From: mail.Address{Addr: p.addr}, To: []mail.Address{{Addr: to}}, Subject: subject,
		Date: time.Now(), MessageID: id, Text: text}
	if m != nil {
		o.Subject = "Re: " + strings.TrimPrefix(m.Subject, "Re: ")
		o.InReplyTo = m.MessageID
		o.References = append(append([]string{}, m.References...), m.MessageID)
	}
	raw := mail.Compose(o)
	for {
		err := func() error {
			c, err := smtp.Dial(p.smtpAddr)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Auth(sasl.NewPlainClient("", p.addr, p.pass)); err != nil {
				return err
			}
			return c.SendMail(p.addr, []string{to}, bytes.NewReader(raw))
		}()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %q not accepted: %v", p.addr, text, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var gameOfReplyTo = regexp.MustCompile(`^referee\+(\d+)[.@]`)

// gameOf returns the game a referee's mail is about, from its Reply-To.
func gameOf(m *mail.Inbound) int64 {
	if len(m.ReplyTo) == 0 {
		return 0
	}
	sm := gameOfReplyTo.FindStringSubmatch(m.ReplyTo[0].Addr)
	if sm == nil {
		return 0
	}
	id, _ := strconv.ParseInt(sm[1], 10, 64)
	return id
}

// soakGame is one game: its players (seat order) and the plies mailed.
type soakGame struct {
	id      int64
	posts   []*postbox
	replyTo []*mail.Inbound // each seat's latest mail of the game
	codec   notation.Codec
	r       *rand.Rand
	sent    []string
}

// newSoakGame has a invite b to a game, both accept what they are asked
// to, and returns once both were told the game has started.
func newSoakGame(ctx context.Context, srv *soakServer, a, b *postbox, codec notation.Codec, r *rand.Rand) (*soakGame, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ref := srv.referee
	id := mail.NewMessageID("pbem.local")
	cmd := fmt.Sprintf("new %s with %s first=%s", codec.Rules().ID(), b.p.addr, a.p.addr)
	// Marks of where each postbox was before the game.
	a.mu.Lock()
	fromA := len(a.all)
	a.mu.Unlock()
	b.mu.Lock()
	fromB := len(b.all)
	b.mu.Unlock()
	if err := mailOnce(ctx, a.p, ref, cmd, "", id, nil); err != nil {
		return nil, err
	}
	first, err := a.wait(ctx, &fromA, func(m *mail.Inbound) bool { return m.InReplyTo == id })
	if err != nil {
		return nil, fmt.Errorf("no answer to %q: %w (%s)", cmd, err, a.describe())
	}
	g := &soakGame{id: gameOf(first), posts: []*postbox{a, b}, replyTo: make([]*mail.Inbound, 2), codec: codec, r: r}
	if g.id == 0 {
		return nil, fmt.Errorf("the answer to %q names no game:\n%s", cmd, first.Text)
	}
	// Each player answers "accept" once, when asked to, and waits to be
	// told whose move it is.
	marks := []*int{&fromA, &fromB}
	fromA-- // look at the first answer again
	errs := make(chan error, 2)
	for i, p := range g.posts {
		go func() {
			accepted := false
			for {
				m, err := p.wait(ctx, marks[i], func(m *mail.Inbound) bool { return gameOf(m) == g.id })
				if err != nil {
					errs <- fmt.Errorf("game %d not started: %w (%s)", g.id, err, p.describe())
					return
				}
				g.replyTo[i] = m
				if strings.Contains(m.Text, "to move") {
					errs <- nil
					return
				}
				if !accepted && strings.Contains(m.Text, `reply "accept"`) {
					accepted = true
					if err := mailOnce(ctx, p.p, ref, "", "accept", mail.NewMessageID("pbem.local"), m); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			return nil, err
		}
	}
	return g, nil
}

// play mails random legal plies, each once its predecessor was answered,
// until the game ends or plies were played. A ply whose answer does not
// come in time is mailed again with the same Message-ID, which the referee
// must recognise.
func (g *soakGame) play(ctx context.Context, ref string, plies int) error {
	start, err := g.codec.Rules().Start(engine.Options{})
	if err != nil {
		return err
	}
	line := engine.NewLine(start)
	for len(g.sent) < plies && !line.Outcome().Over {
		seat := line.State().ToMove()
		p := g.posts[seat]
		// A player thinks a little: the games last long enough for the
		// kills to fall among them.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(g.r.IntN(1000)) * time.Millisecond):
		}
		m := randomMove(line.State(), g.r)
		text := g.codec.Encode(line.State(), m)
		id := mail.NewMessageID("pbem.local")
		var answer *mail.Inbound
		for try := 0; answer == nil; try++ {
			if try == 5 {
				return fmt.Errorf("game %d: ply %d %q by %s never answered", g.id, len(g.sent)+1, text, p.p.addr)
			}
			if err := mailOnce(ctx, p.p, ref, "", text, id, g.replyTo[seat]); err != nil {
				return err
			}
			deadline := time.Now().Add(15 * time.Second)
			for answer == nil && time.Now().Before(deadline) && ctx.Err() == nil {
				answer = p.reply(id)
				time.Sleep(20 * time.Millisecond)
			}
		}
		if strings.Contains(answer.Text, "illegal") || !strings.Contains(answer.Text, text) {
			return fmt.Errorf("game %d: ply %q by %s not applied:\n%s", g.id, text, p.p.addr, answer.Text)
		}
		g.replyTo[seat] = answer
		g.sent = append(g.sent, text)
		if line, err = line.Play(m); err != nil {
			return err
		}
	}
	return nil
}

// checkRecords asserts that each game's record holds every ply mailed to
// it exactly once, in order, and returns how many plies the records hold.
func checkRecords(t *testing.T, st *archive.Store, gs []*soakGame) (applied int) {
	t.Helper()
	for _, g := range gs {
		stored, err := st.Game(context.Background(), g.id)
		require.NoError(t, err)
		recs, problems := notation.Parse("", []byte(stored.Record))
		require.Empty(t, problems, "game %d record:\n%s", g.id, stored.Record)
		require.Len(t, recs, 1)
		var got []string
		for _, p := range recs[0].Main.Plies {
			got = append(got, p.Text)
		}
		assert.Equal(t, g.sent, got, "game %d: the record holds every ply sent, once", g.id)
		applied += len(got)
	}
	return applied
}

// tallyReplies reads p's mailbox: how many times each Message-ID came
// (seen), the distinct replies, the copies beyond the first, and a line
// for each reply that came more than once.
func tallyReplies(t *testing.T, name string, p *player) (seen map[string]int, replies, doubled int, dups []string) {
	t.Helper()
	msgs, err := p.fetch()
	require.NoError(t, err)
	seen = map[string]int{}
	for _, m := range msgs {
		seen[m.MessageID]++
	}
	for id, c := range seen {
		replies++
		if c > 1 {
			doubled += c - 1
			dups = append(dups, fmt.Sprintf("%s got %s %d times", name, id, c))
		}
	}
	return seen, replies, doubled, dups
}
