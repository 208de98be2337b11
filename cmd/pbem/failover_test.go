package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/pgtest"
	"pbem/mail/dovecottest"
	"pbem/mail/embedded"
	"pbem/referee"
)

// failover is two `pbem serve` processes, built from this package, on one
// PostgreSQL store (a private pgtest cluster) and one mailbox: the
// embedded mail servers, run by the test and configured in both as a mail
// server of their own, or (onDovecot) a private Dovecot with an SMTP relay
// that delivers into it over LMTP, as a club deploys pbem; the replies'
// copies in the referee's mailbox (smtp.copies) are what tells a new
// leader which replies its predecessor sent.
type failover struct {
	t       *testing.T
	cluster *pgtest.Cluster
	url     string // the store, as the test reads it
	bin     string
	inst    []*soakServer
	names   []string

	// the mail servers
	imapAddr, smtpAddr, domain string
	password                   func(addr string) string
}

// newFailover starts the cluster and the mail servers and builds pbem; the
// instances are configured (urls[i] is instance i's store address) but
// not started.
func newFailover(t *testing.T, onDovecot bool, storeURL func(c *pgtest.Cluster, url string) []string) *failover {
	if testing.Short() {
		t.Skip("builds pbem and runs two instances on PostgreSQL")
	}
	f := &failover{t: t, names: []string{"alice", "bob", "carol", "dave"}}
	var ref string
	if onDovecot {
		dv := dovecottest.Start(t, append([]string{"referee"}, f.names...)...)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		relay := smtp.NewServer(authRelay{dv})
		relay.Domain, relay.AllowInsecureAuth = "localhost", true
		go relay.Serve(ln)
		t.Cleanup(func() { relay.Close() })
		f.imapAddr, f.smtpAddr, f.domain, f.password = dv.IMAPAddr, ln.Addr().String(), dovecottest.Domain, dv.Password
		ref = "referee@" + dovecottest.Domain
	} else {
		mails, err := embedded.Start(&embedded.Options{Players: f.names, MaxMessages: -1, MaxBytes: -1,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		require.NoError(t, err)
		t.Cleanup(func() { mails.Close() })
		f.imapAddr, f.smtpAddr, f.domain = mails.IMAPAddr(), mails.SMTPAddr(), mails.Domain()
		f.password = func(addr string) string { pw, _ := mails.Password(addr); return pw }
		ref = mails.RefereeAddress()
	}
	f.cluster = pgtest.Start(t)
	f.url = f.cluster.URL(t)
	dir := t.TempDir()
	f.bin = filepath.Join(dir, "pbem")
	out, err := exec.Command("go", "build", "-o", f.bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	pw := f.password(ref)
	for i, u := range storeURL(f.cluster, f.url) {
		data := filepath.Join(dir, fmt.Sprintf("data%d", i))
		cfg := fmt.Sprintf(`data_dir: %s
store: %s
referee:
  address: %s
imap:
  addr: %s
  security: plain
  username: %s
  password_env: PBEM_FAILOVER_PASSWORD
  poll_interval: 5s
smtp:
  addr: %s
  security: plain
  username: %s
  password_env: PBEM_FAILOVER_PASSWORD
  copies: on
log:
  level: info
`, data, u, ref, f.imapAddr, ref, f.smtpAddr, ref)
		cfgPath := filepath.Join(dir, fmt.Sprintf("pbem%d.yaml", i))
		require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
		s := &soakServer{t: t, bin: f.bin, data: data, log: filepath.Join(dir, fmt.Sprintf("serve%d.log", i)),
			http: soakPort(t), referee: ref, args: []string{"--config", cfgPath},
			env: []string{"PBEM_FAILOVER_PASSWORD=" + pw}}
		s.ready = s.addr(s.http)
		f.inst = append(f.inst, s)
		t.Cleanup(s.stop)
	}
	return f
}

// player is a player's mail client on the test's servers.
func (f *failover) player(name string) *player {
	addr := name + "@" + f.domain
	return &player{addr: addr, pass: f.password(addr), imapAddr: f.imapAddr, smtpAddr: f.smtpAddr}
}

// leaderState is what an instance's /healthz says of the leadership.
type leaderState struct {
	Up     bool  // it answered
	Leader bool  `json:"leader"`
	Epoch  int64 `json:"epoch"`
}

func (f *failover) state(i int) leaderState {
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get("http://" + f.inst[i].ready + "/healthz")
	if err != nil {
		return leaderState{}
	}
	defer resp.Body.Close()
	var st leaderState
	if json.NewDecoder(resp.Body).Decode(&st) != nil {
		return leaderState{}
	}
	st.Up = true
	return st
}

// waitLeader waits until one instance leads (other than not, when not
// -1) and returns it and its epoch.
func (f *failover) waitLeader(ctx context.Context, not int) (int, int64, error) {
	for {
		for i := range f.inst {
			if i == not {
				continue
			}
			if st := f.state(i); st.Leader {
				return i, st.Epoch, nil
			}
		}
		select {
		case <-ctx.Done():
			return -1, 0, fmt.Errorf("no instance took the lead: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// processed counts the messages the store holds as processed.
func processed(t *testing.T, st *archive.Store) int {
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM processed`).Scan(&n); err != nil {
		t.Logf("processed: %v", err)
	}
	return n
}

// watch opens the shared store and reads every player's mail as it comes
// (a postbox each), until stop, which waits for the readers to end.
func (f *failover) watch(ctx context.Context) (st *archive.Store, posts map[string]*postbox, stop func()) {
	st, err := archive.OpenStore(ctx, f.url, nil)
	require.NoError(f.t, err)
	posts = map[string]*postbox{}
	for _, n := range f.names {
		posts[n] = newPostbox(f.player(n))
	}
	var readers sync.WaitGroup
	rctx, cancel := context.WithCancel(ctx)
	for _, p := range posts {
		readers.Go(func() { p.run(rctx) })
	}
	return st, posts, func() {
		cancel()
		readers.Wait()
	}
}

// check verifies the end state: every ply mailed is in its game's record
// exactly once, in order; every reply the store queued was sent and every
// recipient holds it; it returns the number of replies a player got twice
// (the same Message-ID) and the distinct replies.
func (f *failover) check(st *archive.Store, gs []*soakGame) (doubled, replies, applied int) {
	t := f.t
	applied = checkRecords(t, st, gs)
	held := map[string]map[string]int{} // player address -> Message-ID -> copies
	for _, n := range f.names {
		p := f.player(n)
		seen, distinct, twice, dups := tallyReplies(t, n, p)
		replies, doubled = replies+distinct, doubled+twice
		for _, d := range dups {
			t.Log(d)
		}
		held[p.addr] = seen
	}
	rows, err := st.DB().Query(`SELECT message_id, to_addrs, cc_addrs, status FROM outbox`)
	require.NoError(t, err)
	defer rows.Close()
	lost := 0
	for rows.Next() {
		var mid, to, cc, status string
		require.NoError(t, rows.Scan(&mid, &to, &cc, &status))
		assert.Equal(t, "sent", status, "reply %s", mid)
		var addrs []archive.Address
		for _, j := range []string{to, cc} {
			var as []archive.Address
			require.NoError(t, json.Unmarshal([]byte(j), &as))
			addrs = append(addrs, as...)
		}
		for _, a := range addrs {
			if h, ok := held[strings.ToLower(a.Addr)]; ok && h[mid] == 0 {
				lost++
				t.Errorf("reply %s to %s lost", mid, a.Addr)
			}
		}
	}
	require.NoError(t, rows.Err())
	assert.Zero(t, lost, "replies lost")
	return doubled, replies, applied
}

// TestFailoverKill9 plays games by mail against two `pbem serve` on one
// PostgreSQL store and one mailbox while the leader is killed (SIGKILL)
// again and again, and started again as a standby once the other has
// taken over. In the end every ply mailed is in its record exactly once
// and every reply reached every recipient; it reports the takeover times
// (from the kill to the other's /healthz saying it leads) and the replies
// doubled (the copies in the referee's mailbox tell a new leader which
// replies its predecessor sent, but a kill between the server's
// acceptance and its copy's lookup can double one).
//
// PBEM_FAILOVER_GAMES (8), PBEM_FAILOVER_MOVES (60 plies in all),
// PBEM_FAILOVER_KILLS (5) and PBEM_FAILOVER_SEED (1) set its size; the
// full run is 24 games, 300 moves, 20 kills.
func TestFailoverKill9(t *testing.T) { failoverKill9(t, false) }

// TestFailoverKill9Dovecot is TestFailoverKill9 on a real Dovecot with an
// SMTP relay that delivers into it: the mailbox as a club deploys it.
// Shorter in a normal run (4 games, 32 plies, 3 kills); the PBEM_FAILOVER_*
// variables set a longer one.
func TestFailoverKill9Dovecot(t *testing.T) {
	for k, v := range map[string]string{"PBEM_FAILOVER_GAMES": "4", "PBEM_FAILOVER_MOVES": "32", "PBEM_FAILOVER_KILLS": "3"} {
		if os.Getenv(k) == "" {
			t.Setenv(k, v)
		}
	}
	failoverKill9(t, true)
}

func failoverKill9(t *testing.T, onDovecot bool) {
	f := newFailover(t, onDovecot, func(_ *pgtest.Cluster, url string) []string { return []string{url, url} })
	games := soakInt(t, "PBEM_FAILOVER_GAMES", 8)
	moves := soakInt(t, "PBEM_FAILOVER_MOVES", 60)
	kills := soakInt(t, "PBEM_FAILOVER_KILLS", 5)
	seed := uint64(soakInt(t, "PBEM_FAILOVER_SEED", 1))
	plies := (moves + games - 1) / games

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	f.inst[0].start()
	first, _, err := f.waitLeader(ctx, -1)
	require.NoError(t, err)
	f.inst[1].start()

	st, posts, stopReading := f.watch(ctx)
	defer st.Close()
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)
	var gs []*soakGame
	start := time.Now()
	for i := range games {
		a, b := f.names[i%4], f.names[(i/4+i%4+1)%4]
		if a == b {
			b = f.names[(i+1)%4]
		}
		g, err := newSoakGame(ctx, f.inst[first], posts[a], posts[b], codec, rand.New(rand.NewPCG(seed, uint64(i))))
		require.NoError(t, err, "game %d", i+1)
		gs = append(gs, g)
	}
	t.Logf("%d games made in %v; instance %d leads", len(gs), time.Since(start).Round(time.Millisecond), first)

	start = time.Now()
	errs := make(chan error, len(gs))
	var play sync.WaitGroup
	for _, g := range gs {
		play.Go(func() { errs <- g.play(ctx, f.inst[0].referee, plies) })
	}
	done := make(chan struct{})
	go func() { play.Wait(); close(done) }()

	// The kills fall among the plies: the k-th once k/(kills+1) of them
	// are processed, a random moment later.
	var takeovers []time.Duration
	p0 := processed(t, st)
	r := rand.New(rand.NewPCG(seed, 1<<32))
	leader := first
kills:
	for k := 1; k <= kills; k++ {
		for processed(t, st) < p0+k*moves/(kills+1) {
			select {
			case <-done:
				break kills
			case <-time.After(50 * time.Millisecond):
			}
		}
		// Half the kills fall within 30 ms of a commit, while its
		// replies are being sent; the others anywhere in half a second.
		if r.IntN(2) == 0 {
			time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
		} else {
			time.Sleep(time.Duration(r.IntN(500)) * time.Millisecond)
		}
		if l, _, err := f.waitLeader(ctx, -1); err == nil {
			leader = l
		}
		killed := time.Now()
		f.inst[leader].kill()
		next, epoch, err := f.waitLeader(ctx, leader)
		require.NoError(t, err)
		took := time.Since(killed)
		takeovers = append(takeovers, took)
		t.Logf("kill %d: instance %d killed, instance %d leads at epoch %d after %v", k, leader, next, epoch, took.Round(time.Millisecond))
		f.inst[leader].start()
		leader = next
	}
	<-done
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	played := time.Since(start)

	time.Sleep(2 * time.Second) // the last replies
	stopReading()
	// The standby first, then the leader, which drains the outbox.
	standby := 1 - leader
	f.inst[standby].stop()
	f.inst[leader].stop()

	doubled, replies, applied := f.check(st, gs)
	sent := 0
	for _, g := range gs {
		sent += len(g.sent)
	}
	logs := ""
	for _, s := range f.inst {
		b, _ := os.ReadFile(s.log)
		logs += string(b)
	}
	slices.Sort(takeovers)
	median, worst := time.Duration(0), time.Duration(0)
	if n := len(takeovers); n > 0 {
		median, worst = takeovers[n/2], takeovers[n-1]
		if n%2 == 0 {
			median = (takeovers[n/2-1] + takeovers[n/2]) / 2
		}
	}
	t.Logf("%d games, %d plies mailed and %d in the records, %d kill -9 of the leader in %v; takeover median %v, max %v; %d distinct replies, %d doubled",
		len(gs), sent, applied, len(takeovers), played.Round(time.Millisecond), median.Round(time.Millisecond), worst.Round(time.Millisecond), replies, doubled)
	t.Logf("a new leader found %d replies of its predecessor's among the copies; after a restart %d replies under way were found delivered, %d sent again without a copy found",
		sumTakeoverFound(logs), strings.Count(logs, "found in the copies; not sent again"), strings.Count(logs, "has no copy after the wait"))
	for _, d := range takeovers {
		assert.Less(t, d, 10*time.Second, "a takeover within 10 s")
	}
	assert.LessOrEqual(t, doubled, soakInt(t, "PBEM_FAILOVER_MAX_DOUBLED", len(takeovers)), "replies doubled")
	if t.Failed() {
		t.Logf("logs (tail):\n%s", tail(logs, 6000))
	}
}

// sumTakeoverFound adds up the replies new leaders found among the copies
// (settleTakeover's log lines).
func sumTakeoverFound(logs string) int {
	n := 0
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "found among the copies; not sent again") {
			continue
		}
		_, v, ok := strings.Cut(line, "replies=")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, " ")
		k, _ := strconv.Atoi(v)
		n += k
	}
	return n
}

// pgProxy forwards TCP connections to PostgreSQL until it is cut: then
// it drops every connection it carries and refuses new ones, as a
// network partition between one instance and the database would.
type pgProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
}

func newPGProxy(t *testing.T, target string) *pgProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &pgProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *pgProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		d, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[d] = true, true
		p.mu.Unlock()
		pipe := func(a, b net.Conn) {
			io.Copy(a, b)
			a.Close()
			b.Close()
		}
		go pipe(c, d)
		go pipe(d, c)
	}
}

// setCut cuts the database off (dropping every connection) or lets it
// through again.
func (p *pgProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

// TestFailoverPartition cuts the leader off from its database for 5 s,
// through a TCP proxy, while games are played: the leader stands down at
// once (its renewal fails), the other instance takes over, and when the
// database comes back the former leader stays a standby and no ply is
// applied twice. Then the new leader is paused (SIGSTOP) past its lease:
// the former one takes over, and the paused one, woken, stands down, its
// late commits refused by the fence.
func TestFailoverPartition(t *testing.T) { failoverPartition(t, false) }

// TestFailoverPartitionDovecot is TestFailoverPartition on a real Dovecot
// with an SMTP relay that delivers into it.
func TestFailoverPartitionDovecot(t *testing.T) { failoverPartition(t, true) }

func failoverPartition(t *testing.T, onDovecot bool) {
	var proxy *pgProxy
	f := newFailover(t, onDovecot, func(c *pgtest.Cluster, url string) []string {
		proxy = newPGProxy(t, "127.0.0.1:"+strconv.Itoa(c.Port))
		proxied := strings.Replace(url, "127.0.0.1:"+strconv.Itoa(c.Port), proxy.ln.Addr().String(), 1)
		require.NotEqual(t, url, proxied)
		return []string{proxied, url}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f.inst[0].start()
	first, epoch0, err := f.waitLeader(ctx, -1)
	require.NoError(t, err)
	require.Equal(t, 0, first, "the instance started first leads")
	f.inst[1].start()

	st, posts, stopReading := f.watch(ctx)
	defer st.Close()
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)
	var gs []*soakGame
	for i := range 4 {
		a, b := f.names[i], f.names[(i+1)%4]
		g, err := newSoakGame(ctx, f.inst[0], posts[a], posts[b], codec, rand.New(rand.NewPCG(7, uint64(i))))
		require.NoError(t, err, "game %d", i+1)
		gs = append(gs, g)
	}
	errs := make(chan error, len(gs))
	var play sync.WaitGroup
	for _, g := range gs {
		play.Go(func() { errs <- g.play(ctx, f.inst[0].referee, 16) })
	}

	// The partition, once some plies are in.
	p0 := processed(t, st)
	for processed(t, st) < p0+8 {
		time.Sleep(50 * time.Millisecond)
	}
	cutAt := time.Now()
	proxy.setCut(true)
	next, epoch1, err := f.waitLeader(ctx, 0)
	require.NoError(t, err)
	t.Logf("partition: instance 1 leads at epoch %d (was %d) %v after instance 0 lost its database", epoch1, epoch0, time.Since(cutAt).Round(time.Millisecond))
	assert.Equal(t, 1, next)
	assert.Greater(t, epoch1, epoch0)
	time.Sleep(time.Until(cutAt.Add(5 * time.Second)))
	proxy.setCut(false)
	time.Sleep(3 * time.Second) // the former leader reconnects
	st0 := f.state(0)
	assert.True(t, st0.Up, "the former leader is up")
	assert.False(t, st0.Leader, "the former leader stands by once its database is back")
	assert.True(t, f.state(1).Leader, "the new leader keeps the lead")

	// A pause: the leader stops for longer than its lease.
	f.inst[1].mu.Lock()
	paused := f.inst[1].cmd.Process
	f.inst[1].mu.Unlock()
	require.NoError(t, paused.Signal(syscall.SIGSTOP))
	stopAt := time.Now()
	back, epoch2, err := f.waitLeader(ctx, 1)
	require.NoError(t, err)
	t.Logf("pause: instance %d leads at epoch %d %v after instance 1 was stopped", back, epoch2, time.Since(stopAt).Round(time.Millisecond))
	assert.Greater(t, epoch2, epoch1)
	time.Sleep(time.Second)
	require.NoError(t, paused.Signal(syscall.SIGCONT))
	time.Sleep(2 * time.Second)
	assert.False(t, f.state(1).Leader, "the paused leader stands down when it wakes")
	assert.True(t, f.state(0).Leader)

	play.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	time.Sleep(2 * time.Second)
	stopReading()
	f.inst[1].stop()
	f.inst[0].stop()
	doubled, replies, applied := f.check(st, gs)
	t.Logf("%d plies in the records, each once; %d distinct replies, %d doubled", applied, replies, doubled)
	var logs string
	for _, s := range f.inst {
		b, _ := os.ReadFile(s.log)
		logs += string(b)
	}
	assert.Contains(t, logs, "leadership lost", "the former leaders stood down")
	t.Logf("%d writes refused by the fence (%q in the logs)", strings.Count(logs, archive.ErrNotLeader.Error()), archive.ErrNotLeader.Error())
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "leadership") || strings.Contains(line, "leading:") || strings.Contains(line, "takeover:") ||
			strings.Contains(line, "copies") || strings.Contains(line, "sent again") {
			t.Log(line)
		}
	}
	if t.Failed() {
		t.Logf("logs (tail):\n%s", tail(logs, 8000))
	}
}
