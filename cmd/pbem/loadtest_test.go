package main

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pbem/archive"
	"pbem/archive/pgtest"
	"pbem/engine"
	"pbem/mail"
	"pbem/mail/dovecottest"
	"pbem/mail/embedded"
	"pbem/notation"
	"pbem/referee"
)

// serveLoad runs TestLoadServe, the load driver of make bench-serve.
var serveLoad = flag.Bool("serve-load", false, "run TestLoadServe, the load driver of pbem serve (make bench-serve)")

// loadInt reads a size of the load driver from the environment.
func loadInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// TestLoadServe is the load driver of pbem serve (make bench-serve; skipped
// without -serve-load). It runs pbem serve on its embedded mail servers,
// sets up PBEM_LOAD_GAMES (1,000) castles games by mail, optionally fills
// the store with PBEM_LOAD_STORED (100,000) stored games, PBEM_LOAD_ACTIVE
// (10,000) of them under way, and then plays through the real IMAP and SMTP
// path:
//
//   - burst: one move in every game at once; the time from each delivery
//     to the last of its replies accepted by the SMTP server, and from the
//     last delivery to the last reply;
//   - steady: PBEM_LOAD_RATE (100) moves a second for PBEM_LOAD_SECONDS
//     (10 s), each to a game with nothing under way: delivery to every
//     reply accepted;
//   - sustained: every game moves again as soon as its replies are out,
//     for PBEM_LOAD_SECONDS: moves a second.
//
// With PBEM_LOAD_MAIL=memory the embedded mail servers keep their mail in
// memory only (no journal, no fsync per delivery), so that the figures are
// pbem's own: its store still syncs every commit and its accepted log.
//
// By default (PBEM_LOAD_PROCESS=1) pbem serve runs as a process of its
// own, built from this package, configured for the embedded mail servers
// that run in the driver's process: its memory and CPU time are pbem's
// alone, read from /proc. With PBEM_LOAD_PROCESS=0 pbem serve runs in the
// driver's process on its own embedded servers, as `pbem serve` without a
// configuration does (make bench-serve PROFILE=file profiles it all).
//
// With PBEM_LOAD_STORE=postgres the store is PostgreSQL (store: a
// postgres:// URL) instead of SQLite in the data directory: a private
// cluster on loopback (archive/pgtest's programs), started with
// PostgreSQL's durable defaults (fsync, synchronous_commit and
// full_page_writes on), so that its commits reach the disk as SQLite's
// synchronous FULL ones do; the seeded games go into it as well.
//
// It prints moves/s, latency percentiles (p50, p99, max), memory and CPU
// time. It asserts nothing about time: the figures are for reading. A
// reply counts once the embedded SMTP server has delivered it (durably,
// just before its 250). PBEM_LOAD_CONNECTIONS and PBEM_LOAD_BATCH set
// smtp.connections and imap.batch, PBEM_LOAD_COPIES (on, off) smtp.copies
// of the process, PBEM_LOAD_TEXT=1 referee.text_mail (no HTML part); PBEM_LOAD_HEAPPROFILE=FILE writes a
// heap profile while the server still runs (in-process mode), and
// PBEM_LOAD_CPUPROFILE=FILE a CPU profile of the sustained phase alone
// (of the whole process: with PBEM_LOAD_PROCESS=0, pbem serve included),
// PBEM_LOAD_TRACE=FILE an execution trace of it (go tool trace), and
// PBEM_LOAD_LOG (debug, info, ...; error by default) the log level of
// pbem serve as a process, whose log goes to standard error. Deliveries
// go straight into the referee's inbox, as the embedded SMTP server puts
// them (Servers.Deliver), so that the driver's own SMTP logins do not load
// the two cores.
func TestLoadServe(t *testing.T) {
	if !*serveLoad {
		t.Skip("the load driver of make bench-serve; run with -serve-load")
	}
	n := loadInt("PBEM_LOAD_GAMES", 1000)
	rate := loadInt("PBEM_LOAD_RATE", 100)
	secs := loadInt("PBEM_LOAD_SECONDS", 10)
	stored := loadInt("PBEM_LOAD_STORED", 100000)
	active := loadInt("PBEM_LOAD_ACTIVE", 10000)

	d := startLoad(t, n)
	defer d.stop()
	where := "in the driver's process, on its own embedded mail servers"
	switch {
	case d.dv != nil:
		where = "as a process of its own, on Dovecot (IMAP) and the driver's recording SMTP relay"
	case d.proc != nil:
		where = "as a process of its own, on embedded mail servers in the driver's process"
	}
	fmt.Printf("pbem serve %s (mail kept %s, store on %s), imap.batch %d, smtp.connections %d: %d games set up by mail in %v\n",
		where, map[bool]string{true: "in memory", false: "durably"}[d.memoryMail], d.store.Backend(), d.cfg.IMAP.Batch, d.cfg.SMTP.Connections,
		n, d.setup.Round(time.Millisecond))
	if stored > 0 {
		start := time.Now()
		d.seed(stored, active)
		t.Logf("stored %d more games (%d under way) in %v", stored, active, time.Since(start).Round(time.Millisecond))
	}
	runtime.GC()

	// Burst: one move in every game at once.
	cpu := d.cpu()
	r := d.round(d.games)
	fmt.Printf("burst: %d moves in %d games: %.0f moves/s; delivery to every reply accepted: %s; last reply %v after the last delivery%s\n",
		len(r.lat), len(d.games), float64(len(r.lat))/r.end.Sub(r.first).Seconds(), pct(r.lat), r.end.Sub(r.lastDelivery).Round(time.Millisecond),
		d.cpuSince(cpu))

	// Steady: rate moves a second, each to a game with nothing under way.
	cpu = d.cpu()
	lat := d.steady(rate, time.Duration(secs)*time.Second)
	fmt.Printf("steady: %d moves at %d/s: delivery to every reply accepted: %s%s\n", len(lat), rate, pct(lat), d.cpuSince(cpu))

	// Sustained: each game moves again once its replies are out
	// (PBEM_LOAD_SUSTAINED seconds, PBEM_LOAD_SECONDS unless set; 0
	// skips it).
	if loadInt("PBEM_LOAD_SUSTAINED", secs) == 0 {
		return
	}
	secs = loadInt("PBEM_LOAD_SUSTAINED", secs)
	record(t, "PBEM_LOAD_CPUPROFILE", pprof.StartCPUProfile)
	record(t, "PBEM_LOAD_TRACE", trace.Start)
	cpu = d.cpu()
	moves, lat, took := d.sustained(time.Duration(secs) * time.Second)
	pprof.StopCPUProfile() // nothing if not started
	trace.Stop()           // nothing if not started
	fmt.Printf("sustained: %d moves in %v with %d games: %.0f moves/s; delivery to every reply accepted: %s%s\n",
		moves, took.Round(time.Millisecond), len(d.games), float64(moves)/took.Seconds(), pct(lat), d.cpuSince(cpu))

	if f := os.Getenv("PBEM_LOAD_HEAPPROFILE"); f != "" && d.proc == nil {
		// The heap while the server runs, by where it was allocated:
		// the embedded mail servers' mail apart from pbem's own.
		runtime.GC()
		out, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(out); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if d.proc != nil {
		pid := strconv.Itoa(d.proc.Process.Pid)
		fmt.Printf("memory: pbem serve's RSS %s (peak %s); the driver's process (driver, embedded mail servers with every mail) RSS %s, Go heap in use %d MB\n",
			procStatus(pid, "VmRSS"), procStatus(pid, "VmHWM"), procStatus("self", "VmRSS"), ms.HeapInuse>>20)
		fmt.Printf("pbem serve's counters: %s\n", d.counters())
		return
	}
	rss, hwm := procStatus("self", "VmRSS"), procStatus("self", "VmHWM")
	fmt.Printf("memory: RSS %s (peak %s) of the whole process (server, embedded mail servers with every mail, driver); Go heap in use %d MB\n",
		rss, hwm, ms.HeapInuse>>20)
	st := d.s.ref.Stats()
	fmt.Printf("referee: %d handled, %d conflicts, %d duplicates; poller: %d processed\n",
		st.Handled, st.Conflicts, st.Duplicates, d.s.metrics.Processed.Load())
}

// pct formats the p50, p99 and max of durations.
func pct(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p int) time.Duration { return s[min(len(s)-1, len(s)*p/100)].Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %v, p99 %v, max %v", at(50), at(99), s[len(s)-1].Round(100*time.Microsecond))
}

// procStatus reads a field of /proc/PID/status (PID a number or "self";
// "?" if it cannot).
func procStatus(pid, field string) string {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// loadDriver is pbem serve under load, and the games it plays.
type loadDriver struct {
	t          *testing.T
	cfg        *Config
	memoryMail bool
	mails      *embedded.Servers // the embedded mail servers, or nil on Dovecot
	dv         *dovecotLoad      // Dovecot and the recording relay (PBEM_LOAD_MAIL=dovecot)
	refFrom    string            // the referee's address, the envelope sender of its replies
	store      *archive.Store    // pbem's store (opened beside it in process mode)
	codec      notation.Codec
	setup      time.Duration

	// In-process mode: the server and its end.
	s      *server
	cancel context.CancelFunc
	done   chan error
	// Process mode: pbem serve and its /metrics address.
	proc     *exec.Cmd
	procDone chan error
	httpAddr string

	games   []int64
	seat    map[int64][2]string // inviter, invitee
	replyTo map[int64]map[string]string
	lines   map[int64]*engine.Line
	rnd     *rand.Rand

	mu      sync.Mutex
	waiting map[int64]*pendingMove // the move of a game waiting for replies
}

// pendingMove is a move delivered and the replies it has had.
type pendingMove struct {
	at      time.Time // delivered
	replies int
	last    time.Time
	done    chan struct{}
}

// repliesPerMove is how many mails a ply of a two-player game makes: the
// mover's confirmation and the opponent's news.
const repliesPerMove = 2

func startLoad(t *testing.T, n int) *loadDriver {
	cfg := &Config{DataDir: t.TempDir()}
	cfg.defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Log.Level = "error"
	cfg.Referee.RateLimitTotal = 1_000_000 // every game starts with a mail without a token
	cfg.Referee.RateLimit = 1_000_000      // and a player may start many (TestDefaultMemory)
	switch v := os.Getenv("PBEM_LOAD_STORE"); v {
	case "", "sqlite":
	case "postgres":
		cfg.Store = durablePostgres(t)
	default:
		t.Fatalf("PBEM_LOAD_STORE=%s; expected sqlite (the default) or postgres", v)
	}
	inProcess := loadInt("PBEM_LOAD_PROCESS", 1) == 0
	onDovecot := os.Getenv("PBEM_LOAD_MAIL") == "dovecot"
	if onDovecot && inProcess {
		t.Fatal("PBEM_LOAD_MAIL=dovecot runs pbem serve as a process of its own: unset PBEM_LOAD_PROCESS or set it to 1")
	}
	if inProcess {
		cfg.SMTP.Connections = embeddedSMTPConnections // as pbem serve without a configuration
	}
	cfg.SMTP.Connections = loadInt("PBEM_LOAD_CONNECTIONS", cfg.SMTP.Connections)
	cfg.IMAP.Batch = loadInt("PBEM_LOAD_BATCH", cfg.IMAP.Batch)
	cfg.Referee.TextMail = os.Getenv("PBEM_LOAD_TEXT") == "1" // plain text only, no HTML part or picture
	if v := os.Getenv("PBEM_LOAD_COPIES"); v != "" {
		cfg.SMTP.Copies = v // on or off: pbem serve as a process mails a copy of each reply to referee+sent@
	}
	var names []string
	for i := range 2 * n {
		names = append(names, "p"+strconv.Itoa(i))
	}
	d := &loadDriver{t: t, cfg: cfg, memoryMail: os.Getenv("PBEM_LOAD_MAIL") == "memory",
		seat: map[int64][2]string{}, lines: map[int64]*engine.Line{},
		waiting: map[int64]*pendingMove{}, rnd: rand.New(rand.NewPCG(1, 2))}
	d.refFrom = "referee@pbem.local"
	if onDovecot {
		d.refFrom = "referee@" + dovecottest.Domain
	}
	switch {
	case onDovecot:
		d.startDovecot()
	case inProcess:
		d.startInProcess(names)
	default:
		d.startProcess(names)
	}
	d.codec, _ = referee.Lookup("castles")
	start := time.Now()
	d.setUp(n)
	d.setup = time.Since(start)
	return d
}

// startInProcess runs pbem serve in this process on its embedded servers.
func (d *loadDriver) startInProcess(players []string) {
	d.done = make(chan error, 1)
	d.s = &server{cfg: d.cfg, out: io.Discard, embedded: true, players: players, onDelivery: d.delivered,
		memoryMail: d.memoryMail}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	ready := make(chan struct{})
	go func() { d.done <- d.s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-d.done:
		d.t.Fatalf("pbem serve: %v", err)
	}
	d.mails, d.store = d.s.mails, d.s.store
}

// startProcess runs the embedded mail servers in this process and pbem
// serve, built from this package, as a process of its own configured for
// them; it returns once pbem serve answers on /healthz.
func (d *loadDriver) startProcess(players []string) {
	t := d.t
	dir := t.TempDir()
	mailDir := filepath.Join(dir, "mail")
	if d.memoryMail {
		mailDir = ""
	}
	mails, err := embedded.Start(&embedded.Options{Players: players, Dir: mailDir, OnDelivery: d.delivered,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	d.mails = mails
	ref := mails.RefereeAddress()
	pw, _ := mails.Password(ref)
	d.runProcess(dir, mails.IMAPAddr(), mails.SMTPAddr(), ref, pw)
}

// runProcess builds pbem and runs it as pbem serve, configured for the
// IMAP and SMTP servers at imapAddr and smtpAddr (plain, logged in as ref
// with pw); it returns once pbem serve answers on /healthz.
func (d *loadDriver) runProcess(dir, imapAddr, smtpAddr, ref, pw string) {
	t := d.t
	bin := os.Getenv("PBEM_LOAD_BIN") // a pbem built before, to pair builds in one sitting
	if bin == "" {
		bin = filepath.Join(dir, "pbem")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.httpAddr = ln.Addr().String()
	ln.Close()
	store := ""
	if d.cfg.Store != "" {
		store = "store: " + d.cfg.Store + "\n"
	}
	cfg := fmt.Sprintf(`data_dir: %s
%sreferee:
  address: %s
  rate_limit_total: %d
  text_mail: %t
imap:
  addr: %s
  security: plain
  username: %s
  password_env: PBEM_LOAD_PASSWORD
  batch: %d
smtp:
  addr: %s
  security: plain
  username: %s
  password_env: PBEM_LOAD_PASSWORD
  connections: %d
  copies: %s
http:
  addr: %s
log:
  level: %s
`, d.cfg.DataDir, store, ref, d.cfg.Referee.RateLimitTotal, d.cfg.Referee.TextMail, imapAddr, ref, d.cfg.IMAP.Batch,
		smtpAddr, ref, d.cfg.SMTP.Connections, d.cfg.SMTP.Copies, d.httpAddr, cmp.Or(os.Getenv("PBEM_LOAD_LOG"), "error"))
	cfgPath := filepath.Join(dir, "pbem.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), "PBEM_LOAD_PASSWORD="+pw)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.proc, d.procDone = cmd, make(chan error, 1)
	go func() { d.procDone <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get("http://" + d.httpAddr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-d.procDone:
			t.Fatalf("pbem serve ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("pbem serve did not answer on /healthz")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d.store, err = archive.OpenStore(context.Background(), d.cfg.storeAddress(), nil); err != nil {
		t.Fatal(err)
	}
}

func (d *loadDriver) stop() {
	if d.proc == nil {
		d.cancel()
		<-d.done
		return
	}
	d.proc.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.procDone:
	case <-time.After(10 * time.Second):
		d.proc.Process.Kill()
		<-d.procDone
	}
	d.store.Close()
	if d.mails != nil {
		d.mails.Close()
	}
}

// delivered is the embedded servers' hook: a reply of the referee's, for
// the game its Reply-To names, was delivered.
func (d *loadDriver) delivered(from, rcpt string, raw []byte) {
	if !strings.EqualFold(from, d.refFrom) {
		return // a player's move
	}
	if strings.HasPrefix(strings.ToLower(rcpt), "referee+sent@") {
		return // the referee's copy of its reply (smtp.copies)
	}
	now := time.Now()
	game := replyGame(raw)
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.waiting[game]
	if p == nil {
		return
	}
	p.replies++
	p.last = now
	if p.replies == repliesPerMove {
		delete(d.waiting, game)
		close(p.done)
	}
}

// replyGame reads the game from a reply's Reply-To (referee+ID.TOKEN@),
// 0 if it names none.
func replyGame(raw []byte) int64 {
	_, after, ok := bytes.Cut(raw, []byte("\r\nReply-To: "))
	if !ok {
		return 0
	}
	_, after, ok = bytes.Cut(after, []byte("+"))
	if !ok {
		return 0
	}
	var id int64
	for _, c := range after {
		if c < '0' || c > '9' {
			break
		}
		id = 10*id + int64(c-'0')
	}
	return id
}

// cpuTimes is the CPU time used so far by pbem serve's process and by this
// one, in clock ticks.
type cpuTimes struct {
	pbem, self int64
	dovecot    map[string]int64
	disk       diskStats
	at         time.Time
}

func (d *loadDriver) cpu() cpuTimes {
	c := cpuTimes{self: procTicks("self"), at: time.Now()}
	if d.proc != nil {
		c.pbem = procTicks(strconv.Itoa(d.proc.Process.Pid))
	}
	if d.dv != nil {
		c.dovecot = groupTicks(d.dv.dv.Group())
		c.disk = readDiskStats()
	}
	return c
}

// groupTicks is the CPU time, in clock ticks, of the processes of group
// pgid by program (imap, lmtp, ...; the master is "dovecot"): their own and
// that of their children which ended.
func groupTicks(pgid int) map[string]int64 {
	if pgid == 0 {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	sum := map[string]int64{}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		before, rest, _ := bytes.Cut(data, []byte(") "))
		_, comm, _ := bytes.Cut(before, []byte(" ("))
		f := strings.Fields(string(rest))
		// state, ppid, pgrp, ...; utime, stime, cutime, cstime are the
		// 12th to 15th after the command
		if len(f) < 15 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		for _, i := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			sum[string(comm)] += v
		}
	}
	return sum
}

// dovecotCPU says the CPU seconds Dovecot's processes used between a and
// b: in all, then by program, the largest first.
func dovecotCPU(a, b map[string]int64) string {
	var total int64
	type part struct {
		name string
		t    int64
	}
	var parts []part
	for name, t := range b {
		if d := t - a[name]; d > 0 {
			total += d
			parts = append(parts, part{name, d})
		}
	}
	slices.SortFunc(parts, func(x, y part) int { return cmp.Compare(y.t, x.t) })
	var out []string
	for _, p := range parts[:min(4, len(parts))] {
		out = append(out, fmt.Sprintf("%s %.1f", p.name, float64(p.t)/100))
	}
	return fmt.Sprintf("%.1f s (%s)", float64(total)/100, strings.Join(out, ", "))
}

// diskStats sums what /proc/diskstats says of the machine's whole disks:
// write requests and flushes completed, and the time the disks were busy.
type diskStats struct{ writes, flushes, busyMS int64 }

func readDiskStats() diskStats {
	data, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return diskStats{}
	}
	var s diskStats
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		// major minor name, then reads (4 fields), writes completed,
		// merged, sectors, ms, in flight, io ms, weighted ms, discards
		// (4), flushes completed, flush ms
		if len(f) < 19 || f[1] != "0" || strings.HasPrefix(f[2], "loop") || strings.HasPrefix(f[2], "ram") {
			continue
		}
		w, _ := strconv.ParseInt(f[7], 10, 64)
		b, _ := strconv.ParseInt(f[12], 10, 64)
		fl, _ := strconv.ParseInt(f[18], 10, 64)
		s.writes, s.busyMS, s.flushes = s.writes+w, s.busyMS+b, s.flushes+fl
	}
	return s
}

// cpuSince says how much CPU pbem serve and the driver's process used
// since c (process mode only).
func (d *loadDriver) cpuSince(c cpuTimes) string {
	now := d.cpu()
	wall := now.at.Sub(c.at).Seconds()
	if d.proc == nil {
		self := float64(now.self-c.self) / 100
		return fmt.Sprintf("; CPU: %.1f s (%.0f%% of a core) in %.1f s on %d cores, the server, the mail servers and the driver together",
			self, 100*self/wall, wall, runtime.NumCPU())
	}
	pbem, self := float64(now.pbem-c.pbem)/100, float64(now.self-c.self)/100
	if d.dv != nil {
		return fmt.Sprintf("; CPU: pbem serve %.1f s (%.0f%% of a core), Dovecot %s, the driver and its relay %.1f s, in %.1f s on %d cores; "+
			"the machine's disk: %d writes, %d flushes, busy %.0f%% of the time; replies %.1f KB on average",
			pbem, 100*pbem/wall, dovecotCPU(c.dovecot, now.dovecot), self, wall, runtime.NumCPU(), now.disk.writes-c.disk.writes, now.disk.flushes-c.disk.flushes,
			float64(now.disk.busyMS-c.disk.busyMS)/10/wall, d.dv.meanReply()/1024)
	}
	return fmt.Sprintf("; CPU: pbem serve %.1f s (%.0f%% of a core), the driver and the mail servers %.1f s, in %.1f s on %d cores",
		pbem, 100*pbem/wall, self, wall, runtime.NumCPU())
}

// procTicks is the user and system time of /proc/PID/stat, in clock ticks
// (100 a second on Linux).
func procTicks(pid string) int64 {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: state is the
	// first, utime the 12th and stime the 13th.
	_, rest, _ := bytes.Cut(data, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// counters returns pbem serve's referee and poller counters from /metrics.
func (d *loadDriver) counters() string {
	resp, err := http.Get("http://" + d.httpAddr + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "pbem_") {
			continue
		}
		for _, name := range []string{"handled", "conflicts", "duplicates", "processed"} {
			if strings.Contains(strings.Fields(line)[0], name) {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

func (d *loadDriver) addr(i int) string { return "p" + strconv.Itoa(i) + "@" + d.domain() }

// domain is the players' and the referee's mail domain.
func (d *loadDriver) domain() string {
	if d.dv != nil {
		return dovecottest.Domain
	}
	return d.mails.Domain()
}

// refereeAddress is the referee's address.
func (d *loadDriver) refereeAddress() string {
	if d.dv != nil {
		return "referee@" + dovecottest.Domain
	}
	return d.mails.RefereeAddress()
}

// deliver puts a mail from a player into the referee's inbox: straight
// into the embedded servers' mailbox, or over LMTP into Dovecot's.
func (d *loadDriver) deliver(from, to, subject, body string) {
	o := &mail.Outgoing{From: mail.Address{Addr: from}, To: []mail.Address{{Addr: to}}, Subject: subject,
		Date: time.Now(), MessageID: mail.NewMessageID(d.domain()), Text: body}
	var err error
	if d.dv != nil {
		err = d.dv.deliver(from, []string{to}, mail.Compose(o))
	} else {
		err = d.mails.Deliver(from, []string{to}, mail.Compose(o))
	}
	if err != nil {
		d.t.Fatal(err)
	}
}

// replyTos reads the plus-address (with the token) of every player of
// every game from the outbox.
func (d *loadDriver) replyTos() map[int64]map[string]string {
	rows, err := d.store.DB().Query(`SELECT game_id, to_addrs, reply_to FROM outbox WHERE game_id > 0 AND reply_to != ''`)
	if err != nil {
		d.t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]map[string]string{}
	for rows.Next() {
		var g int64
		var to, rt string
		if err := rows.Scan(&g, &to, &rt); err != nil {
			d.t.Fatal(err)
		}
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

func (d *loadDriver) waitFor(what string, ok func() bool) {
	deadline := time.Now().Add(10 * time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			d.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setUp makes n games by mail: the inviter creates and confirms, the
// invitee accepts. Called again (TestDefaultMemory), it makes n more
// between the same players, once the earlier ones are over.
func (d *loadDriver) setUp(n int) {
	ref := d.refereeAddress()
	base := len(d.games)
	d.parallel(n, func(g int) { d.deliver(d.addr(2*g), ref, "new castles with "+d.addr(2*g+1), "") })
	d.waitFor("confirmations", func() bool { return len(d.replyTos()) == base+n })
	rt := d.replyTos()
	for g, m := range rt {
		if _, old := d.seat[g]; old {
			continue
		}
		for a := range m {
			i, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(a, "@"+d.domain()), "p"))
			d.seat[g] = [2]string{d.addr(i), d.addr(i + 1)}
		}
		d.games = append(d.games, g)
	}
	slices.Sort(d.games)
	fresh := d.games[base:]
	d.parallel(n, func(i int) { g := fresh[i]; d.deliver(d.seat[g][0], rt[g][d.seat[g][0]], "", "accept") })
	d.waitFor("invitations", func() bool {
		rt := d.replyTos()
		for _, g := range fresh {
			if len(rt[g]) < 2 {
				return false
			}
		}
		return true
	})
	rt = d.replyTos()
	d.parallel(n, func(i int) { g := fresh[i]; d.deliver(d.seat[g][1], rt[g][d.seat[g][1]], "", "accept") })
	d.waitFor("accepts", func() bool {
		var k int
		d.store.DB().QueryRow(`SELECT count(*) FROM games WHERE status = 'playing'`).Scan(&k)
		return k == n
	})
	d.waitFor("the start mails", func() bool { n, _ := d.store.Pending(context.Background()); return n == 0 })
	d.replyTo = d.replyTos()
	st, _ := d.codec.Rules().Start(engine.Options{})
	for _, g := range fresh {
		d.lines[g] = engine.NewLine(st)
	}
}

// parallel runs f(0..n-1) on 16 goroutines.
func (d *loadDriver) parallel(n int, f func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				f(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// seed copies the first game into stored more games: active of them under
// way, the others over, each with seats of its own. On PostgreSQL the
// tables' triggers are off meanwhile and the stamp is raised once: its
// trigger updates one row per row inserted, and 300,000 updates of one row
// in one transaction take minutes there (each walks the row's versions).
func (d *loadDriver) seed(stored, active int) {
	pg := d.store.Backend() == archive.Postgres
	db, err := d.store.DB().Begin()
	if err != nil {
		d.t.Fatal(err)
	}
	defer db.Rollback()
	if pg {
		if _, err := db.Exec(`ALTER TABLE games DISABLE TRIGGER USER; ALTER TABLE seats DISABLE TRIGGER USER`); err != nil {
			d.t.Fatal(err)
		}
	}
	src := d.games[0]
	const base = 1_000_000
	_, err = db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
INSERT INTO games (`+"id, game, status, options, offers, record, turn_start, deadline, reminded, due, thread, created, updated, version"+`)
SELECT ? + i, game, CASE WHEN i <= ? THEN status ELSE 'over' END, options, offers, record, turn_start, deadline, reminded,
	CASE WHEN i <= ? THEN due ELSE 0 END, thread || '.' || i, created, updated, version FROM games, n WHERE id = ?`,
		stored, base, active, active, src)
	if err != nil {
		d.t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO seats (game_id, seat, side, address, name, token, joined)
SELECT g.id, s.seat, s.side, 'x' || g.id || '.' || s.seat || '@' || ?, s.name, s.token, s.joined
FROM games g, seats s WHERE g.id > ? AND s.game_id = ?`, d.domain(), base, src)
	if err != nil {
		d.t.Fatal(err)
	}
	if pg {
		if _, err := db.Exec(`ALTER TABLE games ENABLE TRIGGER USER; ALTER TABLE seats ENABLE TRIGGER USER;
UPDATE stamp SET changes = changes + 1 WHERE id = 1`); err != nil {
			d.t.Fatal(err)
		}
	}
	if err := db.Commit(); err != nil {
		d.t.Fatal(err)
	}
}

// roundResult is what a round of moves took.
type roundResult struct {
	lat                      []time.Duration
	first, lastDelivery, end time.Time
}

// latency is the time from p's delivery to its last reply.
func (d *loadDriver) latency(p *pendingMove) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return p.last.Sub(p.at)
}

// round moves every game of gs once, at once, and waits for every reply.
func (d *loadDriver) round(gs []int64) roundResult {
	var res roundResult
	ps := make([]*pendingMove, len(gs))
	var lmu sync.Mutex
	res.first = time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := range 16 {
		r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
		wg.Go(func() {
			for i := range work {
				ps[i] = d.moveLocked(gs[i], r, &lmu)
			}
		})
	}
	for i := range gs {
		work <- i
	}
	close(work)
	wg.Wait()
	res.lastDelivery = time.Now()
	for _, p := range ps {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
		case <-time.After(5 * time.Minute):
			d.t.Fatal("timed out waiting for replies")
		}
		l := d.latency(p)
		res.lat = append(res.lat, l)
		d.mu.Lock()
		if p.last.After(res.end) {
			res.end = p.last
		}
		d.mu.Unlock()
	}
	return res
}

// moveLocked is move with the games' lines guarded by lmu (the line of a
// game is only touched by one goroutine at a time, but the map is shared).
func (d *loadDriver) moveLocked(g int64, r *rand.Rand, lmu *sync.Mutex) *pendingMove {
	lmu.Lock()
	l := d.lines[g]
	lmu.Unlock()
	if l.Outcome().Over {
		return nil
	}
	m := randomMove(l.State(), r)
	text := d.codec.Encode(l.State(), m)
	mover := d.seat[g][l.State().ToMove()]
	nl, err := l.Play(m)
	if err != nil {
		d.t.Fatal(err)
	}
	lmu.Lock()
	d.lines[g] = nl
	lmu.Unlock()
	p := &pendingMove{done: make(chan struct{})}
	d.mu.Lock()
	d.waiting[g] = p
	d.mu.Unlock()
	d.deliver(mover, d.replyTo[g][mover], "", text)
	d.mu.Lock()
	p.at = time.Now()
	d.mu.Unlock()
	return p
}

// steady delivers rate moves a second for dur, each to a game with no move
// waiting, and returns each move's latency.
func (d *loadDriver) steady(rate int, dur time.Duration) []time.Duration {
	if rate <= 0 {
		return nil
	}
	var lmu sync.Mutex
	var wg sync.WaitGroup
	var lat []time.Duration
	var latMu sync.Mutex
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(dur)
	next := 0
	r := rand.New(rand.NewPCG(3, 4))
	for time.Now().Before(end) {
		<-tick.C
		var g int64
		for range len(d.games) {
			g = d.games[next%len(d.games)]
			next++
			d.mu.Lock()
			busy := d.waiting[g] != nil
			d.mu.Unlock()
			if !busy {
				break
			}
		}
		wg.Go(func() {
			p := d.moveLocked(g, rand.New(rand.NewPCG(r.Uint64(), 0)), &lmu)
			if p == nil {
				return
			}
			<-p.done
			latMu.Lock()
			lat = append(lat, d.latency(p))
			latMu.Unlock()
		})
	}
	wg.Wait()
	return lat
}

// sustained keeps every game moving for dur: each moves again as soon as
// its replies are out. It returns the moves answered, their latencies and
// the time taken.
func (d *loadDriver) sustained(dur time.Duration) (moves int, lat []time.Duration, took time.Duration) {
	var lmu, latMu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(dur)
	for i, g := range d.games {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		wg.Go(func() {
			for time.Now().Before(end) {
				p := d.moveLocked(g, r, &lmu)
				if p == nil {
					return // over: the game leaves the load
				}
				<-p.done
				latMu.Lock()
				lat = append(lat, d.latency(p))
				moves++
				latMu.Unlock()
			}
		})
	}
	wg.Wait()
	return moves, lat, time.Since(start)
}

// durablePostgres starts a PostgreSQL cluster of the test's own on
// loopback, with PostgreSQL's durable defaults (archive/pgtest's clusters
// run with fsync off, which would flatter it beside SQLite's synced
// commits), and returns the URL of its database pbem; it is stopped and
// removed when the test ends. As root (which PostgreSQL refuses) it runs
// as the user postgres.
func durablePostgres(t *testing.T) string {
	bin := pgtest.Binaries()
	if bin == "" {
		t.Skip("PBEM_LOAD_STORE=postgres: PostgreSQL is not installed (apt-get install postgresql)")
	}
	dir, err := os.MkdirTemp("", "pbem-load-pg-")
	if err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, and no user postgres to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "pbem", "--auth=trust", "--encoding=UTF8", "--no-locale")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var log bytes.Buffer
	pg := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", dir,
		"-c", "shared_buffers=128MB", "-c", "max_connections=200", "-c", "log_min_messages=warning")
	pg.Stdout, pg.Stderr = &log, &log
	pg.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if err := pg.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { pg.Wait(); close(exited) }()
	t.Cleanup(func() {
		pg.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			pg.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	})
	base := fmt.Sprintf("postgres://pbem@127.0.0.1:%d/", port)
	admin, err := sql.Open("pgx", base+"postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for deadline := time.Now().Add(30 * time.Second); admin.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("postgres exited: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres not ready after 30s: %s", log.String())
		}
	}
	if _, err := admin.Exec(`CREATE DATABASE pbem`); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", base+"pbem?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE EXTENSION pg_trgm`); err != nil {
		t.Fatal(err)
	}
	return base + "pbem?sslmode=disable"
}

// record starts a recording of the run (a CPU profile, an execution trace)
// into the file the environment variable env names, when it is set; the
// caller stops it.
func record(t *testing.T, env string, start func(io.Writer) error) {
	f := os.Getenv(env)
	if f == "" {
		return
	}
	out, err := os.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	if err := start(out); err != nil {
		t.Fatalf("%s: %v", env, err)
	}
}
