package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"pbem/archive"
	"pbem/mail"
	"pbem/mail/embedded"
	"pbem/referee"
)

// Default ports of the embedded mail servers, so a mail client can be
// pointed at them once and for all.
const (
	embeddedIMAPPort = 1143
	embeddedSMTPPort = 1587
	// embeddedWebAddr serves the game pages of pbem serve without a
	// configuration.
	embeddedWebAddr = "127.0.0.1:8026"
	// embeddedSMTPConnections is smtp.connections on the embedded
	// servers: connections on loopback within the process cost little,
	// and the deliveries of many share one fsync of the servers' journal
	// (a configured server keeps defaultSMTPConnections).
	embeddedSMTPConnections = 32
	// embeddedMemoryLimit is the Go runtime's soft memory limit of pbem
	// serve without a configuration (unless GOMEMLIMIT sets one).
	embeddedMemoryLimit = 100 << 20
)

// Default bounds of the wait before a reply the SMTP server did not take is
// tried again (smtp.retry_min, smtp.retry_max): a short outage delays mail
// by about as long as it lasts; a long one is retried every quarter hour.
const (
	smtpRetryMin = time.Second
	smtpRetryMax = 15 * time.Minute
)

func runServe(c *cli, args []string) int {
	fs := c.flags("serve")
	config := fs.String("config", "", "configuration `file` (YAML, see docs/OPERATING.md); without one, pbem runs its own mail servers on loopback")
	data := fs.String("data", "", "data `dir`ectory (default: the config's data_dir, else ./pbem-data)")
	httpAddr := fs.String("http", "", "loopback `addr`ess of /healthz and /metrics (default 127.0.0.1:8025)")
	webAddr := fs.String("web", "", "`addr`ess of the read-only game pages (default: the config's web.addr; without a config 127.0.0.1:8026; \"off\": none)")
	imapPort := fs.Int("imap-port", embeddedIMAPPort, "IMAP port of the embedded mail server (0: any free port)")
	smtpPort := fs.Int("smtp-port", embeddedSMTPPort, "SMTP port of the embedded mail server (0: any free port)")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "pbem serve: unexpected argument %q\n", pos[0])
		return 2
	}
	var cfg *Config
	if *config != "" {
		var err error
		if cfg, err = loadConfig(*config); err != nil {
			fmt.Fprintf(c.stderr, "pbem serve: %v\n", err)
			return 2
		}
		if err := cfg.checkSecrets(os.Getenv); err != nil {
			fmt.Fprintf(c.stderr, "pbem serve: %s: %v\n", *config, err)
			return 2
		}
	} else {
		cfg = &Config{}
		cfg.defaults()
	}
	if *data != "" {
		cfg.DataDir = *data
	}
	if *config == "" {
		cfg.Web.Addr = embeddedWebAddr // the embedded defaults show their games on the web too
		cfg.SMTP.Connections = embeddedSMTPConnections
	}
	switch *webAddr {
	case "":
	case "off":
		cfg.Web.Addr = ""
	default:
		cfg.Web.Addr = *webAddr
	}
	if *httpAddr != "" {
		cfg.HTTP.Addr = *httpAddr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &server{cfg: cfg, out: c.stdout, embedded: *config == "", imapPort: *imapPort, smtpPort: *smtpPort, configPath: *config}
	s.hup = hangups() // before anything starts: an early SIGHUP must not end the process
	defer signal.Stop(s.hup)
	if err := s.run(ctx, nil); err != nil {
		fmt.Fprintf(c.stderr, "pbem serve: %v\n", err)
		return 1
	}
	return 0
}

// server is `pbem serve`: the referee joined to a mailbox. It is the only
// place that knows both the referee and the mail transport.
type server struct {
	cfg                *Config
	out                io.Writer
	embedded           bool
	imapPort, smtpPort int
	players            []string                            // embedded player accounts (default: the demo players)
	onSent             func(id string, game int64)         // called when the SMTP server accepted a reply and it is noted (benchmarks)
	grace              time.Duration                       // outboxGrace unless set (tests)
	memoryMail         bool                                // embedded mail servers without their journal (load tests)
	onDelivery         func(from, rcpt string, raw []byte) // embedded.Options.OnDelivery (load tests)

	configPath string // reloaded on SIGHUP ("": none)
	unlock     func() // releases the data directory's lock (lockData)
	level      slog.LevelVar
	hup        chan os.Signal // SIGHUP (runServe); nil: none

	log     *slog.Logger
	store   *archive.Store
	ref     *referee.Referee
	metrics *mail.Metrics
	sender  *mail.Sender
	poller  *mail.Poller
	copies  *mail.Copies // the replies' copies in the referee's mailbox; nil when smtp.copies is off
	bots    *botWorker
	elect   *elector          // the lease of several instances on PostgreSQL; nil on SQLite
	mails   *embedded.Servers // nil with a configured mailbox
	http    net.Listener
	started time.Time

	mu       sync.Mutex
	lastTick time.Time
	tickErr  error
}

func (s *server) logger() *slog.Logger {
	s.level.Set(logLevels[s.cfg.Log.Level])
	o := &slog.HandlerOptions{Level: &s.level} // SIGHUP sets it again
	if s.cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, o))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, o))
}

// procsPerCore is how many Go processors (GOMAXPROCS) pbem serve runs a
// core, unless GOMAXPROCS says otherwise. Much of a move's way waits in
// fsync (the store's commit, the mail journal, the poller's IMAP
// changes), and a processor whose thread blocks in a system call is
// handed on only when the runtime's monitor notices, 20 us to 10 ms
// later: with one a core, the cores idle while goroutines wait to run.
// Two a core keep them busy; more did no better (docs/PERFORMANCE.md,
// bench-serve).
const procsPerCore = 2

var procsOnce sync.Once

// moreProcs sets GOMAXPROCS to procsPerCore times the runtime's default
// (the cores it may use), once a process.
func moreProcs() {
	procsOnce.Do(func() { runtime.GOMAXPROCS(procsPerCore * runtime.GOMAXPROCS(0)) })
}

// start brings up every part: mail servers (embedded mode), store,
// referee, sender, poller and the HTTP listener.
func (s *server) start(ctx context.Context) error {
	if s.log == nil {
		s.log = s.logger()
	}
	s.started = time.Now()
	s.metrics = &mail.Metrics{}
	if os.Getenv("GOMAXPROCS") == "" {
		moreProcs()
	}
	imapSec, smtpSec := mail.Security(s.cfg.IMAP.Security), mail.Security(s.cfg.SMTP.Security)
	imapPass, smtpPass := os.Getenv(s.cfg.IMAP.PasswordEnv), os.Getenv(s.cfg.SMTP.PasswordEnv)
	if s.embedded {
		if os.Getenv("GOMEMLIMIT") == "" {
			// The default keeps everything in one small process: the
			// collector works harder rather than let it grow.
			debug.SetMemoryLimit(embeddedMemoryLimit)
		}
		dir := filepath.Join(s.cfg.DataDir, "mail")
		if s.memoryMail {
			dir = ""
		}
		srv, err := embedded.Start(&embedded.Options{IMAPPort: s.imapPort, SMTPPort: s.smtpPort, Players: s.players, Logger: s.log,
			Dir: dir, OnDelivery: s.onDelivery})
		if err != nil {
			return fmt.Errorf("embedded mail servers: %w (use --imap-port 0 --smtp-port 0 for free ports)", err)
		}
		s.mails = srv
		s.cfg.Referee.Address = srv.RefereeAddress()
		s.cfg.IMAP.Addr, s.cfg.SMTP.Addr = srv.IMAPAddr(), srv.SMTPAddr()
		s.cfg.IMAP.Username, s.cfg.SMTP.Username = srv.RefereeAddress(), srv.RefereeAddress()
		imapSec, smtpSec = mail.SecurityPlain, mail.SecurityPlain
		imapPass, _ = srv.Password("referee")
		smtpPass = imapPass
	}
	// One referee a data directory: pbem restore refuses while it runs.
	unlock, err := lockData(s.cfg.DataDir)
	if err != nil {
		return err
	}
	s.unlock = unlock
	store, err := archive.OpenStore(ctx, s.cfg.storeAddress(), nil)
	if err != nil {
		return err
	}
	s.store = store
	if store.Backend() == archive.Postgres {
		// Several instances may share the store: this one writes only
		// while it holds the lease (run), fenced by its epoch.
		store.Fence(0)
		s.elect = newElector(store, s.log)
	}
	ro := refereeOptions(s.cfg)
	ro.Logger = s.log
	if err := storeSecrets(ctx, store, ro); err != nil {
		return err
	}
	s.ref, err = referee.New(store, ro)
	if err != nil {
		return err
	}
	retryMin, retryMax := s.cfg.SMTP.RetryMin, s.cfg.SMTP.RetryMax
	if retryMin == 0 {
		retryMin = smtpRetryMin
	}
	if retryMax == 0 {
		retryMax = max(smtpRetryMax, retryMin)
	}
	ob := outbox{store, s.onSent, &sync.Map{}, s.refused}
	var accepted func(string)
	if s.onSent != nil {
		accepted = ob.accepted
	}
	var delivered func(from, rcpt, messageID string) bool
	if s.mails != nil {
		// The embedded servers say which replies they hold: none is
		// sent twice after a crash.
		delivered = s.mails.Delivered
	}
	po := &mail.PollerOptions{
		Addr: s.cfg.IMAP.Addr, Security: imapSec, Username: s.cfg.IMAP.Username, Password: imapPass,
		Mailbox: s.cfg.IMAP.Mailbox, ProcessedMailbox: s.cfg.IMAP.Processed, RejectedMailbox: s.cfg.IMAP.Rejected,
		PollInterval: s.cfg.IMAP.PollInterval, Rejecter: mail.RejecterFunc(s.reject), Metrics: s.metrics, Logger: s.log,
		BatchSize: s.cfg.IMAP.Batch,
	}
	so := &mail.SenderOptions{
		Addr: s.cfg.SMTP.Addr, Security: smtpSec, Username: s.cfg.SMTP.Username, Password: smtpPass,
		Helo: s.cfg.SMTP.Helo, BackoffMin: retryMin, BackoffMax: retryMax, Metrics: s.metrics, Logger: s.log,
		AcceptedLog: filepath.Join(s.cfg.DataDir, "smtp-accepted.log"), Connections: s.cfg.SMTP.Connections,
		BatchSize: 4 * s.cfg.IMAP.Batch, Accepted: accepted, Delivered: delivered, Draw: drawPicture,
	}
	// The embedded mailbox is in memory: processed mail leaves it (the
	// store holds what it did).
	po.ExpungeProcessed = s.mails != nil
	if s.mails != nil {
		// The embedded servers are in this process: replies are handed
		// to them as their SMTP server would take them, without SMTP.
		mails := s.mails
		so.Direct = func(from string, rcpts []string, raw []byte) error {
			err := mails.Deliver(from, rcpts, raw)
			if errors.Is(err, embedded.ErrNoMailbox) {
				return mail.Permanent(err)
			}
			return err
		}
	}
	if delivered == nil && s.cfg.SMTP.Copies == "on" {
		// Any other server: a copy of every reply in the referee's own
		// mailbox says which ones it took.
		if s.copies, err = s.newCopies(); err != nil {
			return err
		}
		so.Copies, po.Copies = s.copies, s.copies
	}
	s.sender, err = mail.NewSender(ob, so)
	if err != nil {
		return err
	}
	s.poller, err = mail.NewPoller(po)
	if err != nil {
		return err
	}
	if publicHTTP(s.cfg.HTTP.Addr) {
		s.log.Warn("the health and metrics address is not loopback: /healthz and /metrics are public", "http.addr", s.cfg.HTTP.Addr)
	}
	s.http, err = net.Listen("tcp", s.cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("health and metrics endpoint: %w (choose another with --http)", err)
	}
	return nil
}

// run starts pbem serve and runs it until ctx ends. ready, when not nil,
// is called once everything listens (tests use it).
func (s *server) run(ctx context.Context, ready func(*server)) error {
	defer s.close()
	if err := s.start(ctx); err != nil {
		return err
	}
	if s.mails != nil {
		fmt.Fprintln(s.out, s.mails.Instructions())
	}
	fmt.Fprintf(s.out, "pbem serve: referee %s, data in %s\n", s.cfg.Referee.Address, s.store.Path())
	fmt.Fprintf(s.out, "pbem serve: health http://%s/healthz, metrics http://%s/metrics\n", s.http.Addr(), s.http.Addr())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	s.bots = newBotWorker(s.ref, s.log, s.sender.Wake) // before the web API, which wakes it
	if err := s.startWeb(ctx, &wg); err != nil {
		return err
	}
	hs := &http.Server{Handler: s.mux(), ReadHeaderTimeout: 5 * time.Second}
	wg.Go(func() { hs.Serve(s.http) })
	wg.Go(func() { s.reloads(ctx) })
	if s.elect != nil {
		// The mailbox, the referee's writes and the outbox are the
		// leader's; until then this instance serves the web pages.
		wg.Go(func() { s.elect.run(ctx, s.lead) })
	} else {
		wg.Go(func() { s.lead(ctx, nil) })
	}
	if ready != nil {
		ready(s)
	}
	<-ctx.Done()
	sc, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	hs.Shutdown(sc)
	wg.Wait() // lead drained the outbox if this instance led
	s.log.Info("pbem serve stopped")
	return nil
}

func (s *server) close() {
	if s.store != nil {
		s.store.Close()
	}
	if s.mails != nil {
		s.mails.Close()
	}
	if s.unlock != nil {
		s.unlock()
	}
}

// handle gives one message to the referee. nil means its effect and replies
// are committed; the poller then marks it \Seen and moves it to Processed.
// A store failure is returned: the message stays unseen and is retried.
func (s *server) handle(ctx context.Context, in *mail.Inbound) error {
	ctx, cancel := inHand(ctx)
	defer cancel()
	if err := s.ref.Handle(ctx, s.request(in)); err != nil {
		return s.refused(err)
	}
	s.sender.Wake()
	s.bots.Wake() // the move may have given a bot the turn
	return nil
}

// handler gives the poller's messages to the referee, a fetched batch at
// once (one transaction for all).
type handler struct{ s *server }

func (h handler) Handle(ctx context.Context, in *mail.Inbound) error { return h.s.handle(ctx, in) }

// HandleBatch gives a batch of messages to the referee, which commits them
// together; an error of one message leaves it unseen for a retry, the
// others are marked.
func (h handler) HandleBatch(ctx context.Context, ins []*mail.Inbound) []error {
	ctx, cancel := inHand(ctx)
	defer cancel()
	reqs := make([]referee.Request, len(ins))
	for i, in := range ins {
		reqs[i] = h.s.request(in)
	}
	errs := h.s.ref.HandleBatch(ctx, reqs)
	for _, err := range errs {
		h.s.refused(err)
	}
	h.s.sender.Wake()
	h.s.bots.Wake()
	return errs
}

var _ mail.BatchHandler = handler{}

// reject answers a message the transport could not read.
func (s *server) reject(ctx context.Context, in *mail.Inbound, reason error) error {
	// The sender reads what was wrong in plain words; the log keeps the
	// internal reason.
	s.log.Info("message not readable", "message", in.MessageID, "reason", reason)
	if err := s.ref.Reject(ctx, s.request(in), mail.ForSender(reason)); err != nil {
		return s.refused(err)
	}
	s.sender.Wake()
	return nil
}

// copyAddress is where the copies of the replies go: smtp.copy_to, else
// the referee's address with +sent.
func (s *server) copyAddress() string {
	if s.cfg.SMTP.CopyTo != "" {
		return s.cfg.SMTP.CopyTo
	}
	local, domain, _ := strings.Cut(s.cfg.Referee.Address, "@")
	return local + "+sent@" + domain
}

// newCopies is the copy protocol of the replies (smtp.copies): each goes
// to copyAddress too, and a copy is mail from the referee's own address
// (which the referee never answers) with a Message-ID the referee marked
// (referee.OwnMessageID), so that mail forged with the id of a reply from
// before the marks (or any other) never makes it count as sent. With
// several instances the store says too which replies another instance
// sent, and keeps a copy until the store records its reply.
func (s *server) newCopies() (*mail.Copies, error) {
	o := mail.CopiesOptions{To: s.copyAddress(), From: s.cfg.Referee.Address, Own: s.ref.OwnMessageID, Wait: s.cfg.SMTP.CopyWait}
	if s.elect != nil {
		o.Sent, o.Unsettled = s.store.SentMessageIDs, s.store.Unsettled
	}
	return mail.NewCopies(o)
}

// request turns a parsed mail into a referee request, with the sender
// verdict of the trusted receiving server (imap.trusted_authserv_id).
func (s *server) request(in *mail.Inbound) referee.Request {
	in.Authenticate(s.cfg.IMAP.TrustedAuthservID)
	q := request(in)
	if in.Verdict != mail.VerdictNone {
		q.Verdict = in.Verdict.String()
	}
	q.VerdictReason = in.VerdictReason
	return q
}

// request turns a parsed mail into a referee request.
func request(in *mail.Inbound) referee.Request {
	id := in.MessageID
	if id == "" {
		id = in.Key()
	}
	return referee.Request{
		From: referee.Address{Name: in.From.Name, Addr: in.From.Addr}, To: in.DeliveredTo,
		Subject: in.Subject, Body: mail.FreshText(in.Text), MessageID: id, InReplyTo: in.InReplyTo,
		References: in.References, Received: in.Received, Size: len(in.Raw),
		AutoSubmitted: in.AutoSubmitted, Precedence: in.Precedence, XAutoreply: in.XAutoreply,
		ContentType: in.ContentType, NullSender: in.NullSender, ListID: in.ListID,
	}
}

// ticks runs the referee's clocks (reminders, time forfeits) and prunes
// old bookkeeping once a day.
// analysisPoll is how often the analysis worker looks for queued
// analyses when it found none.
const analysisPoll = 10 * time.Second

// analyses does the queued analyses (analyse GAMEID by mail), one at a
// time on one goroutine, so that they take at most one core; RunAnalysis
// waits before each ply while the referee handles a move, so moves always
// go first.
func (s *server) analyses(ctx context.Context) {
	for ctx.Err() == nil {
		ran, err := s.ref.RunAnalysis(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Error("analysis failed", "err", err)
		}
		if ran {
			s.sender.Wake()
		}
		if ran && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(analysisPoll):
		}
	}
}

func (s *server) ticks(ctx context.Context) {
	t := time.NewTicker(s.cfg.TickInterval)
	defer t.Stop()
	var lastPrune time.Time
	for {
		now := time.Now()
		err := s.refused(s.ref.Tick(ctx, now))
		if err != nil && ctx.Err() == nil {
			s.log.Error("clock tick failed", "err", err)
		} else {
			s.sender.Wake()
		}
		if now.Sub(lastPrune) > 24*time.Hour {
			// Processed message ids are kept a year: a message redelivered
			// after that would be answered again, not applied twice (its
			// game has moved on and the ply number no longer fits).
			if n, err := s.store.Prune(ctx, now.AddDate(-1, 0, 0)); err != nil && ctx.Err() == nil {
				s.log.Error("prune failed", "err", err)
			} else if n > 0 {
				s.log.Info("pruned old bookkeeping", "rows", n)
			}
			lastPrune = now
		}
		s.mu.Lock()
		s.lastTick, s.tickErr = now, err
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// outboxGrace is how long a reply may wait for delivery before /healthz
// reports the outbox as stuck.
const outboxGrace = 5 * time.Minute

// health says what is wrong with the server, if anything: the store cannot
// be read, the IMAP session has been down longer than the fallback poll
// interval, messages in the inbox keep failing (more than the poller's
// StuckAfter times), or a reply has waited longer than outboxGrace. An
// empty list means healthy.
func (s *server) health(ctx context.Context, now time.Time) []string {
	var bad []string
	if err := s.store.DB().PingContext(ctx); err != nil {
		bad = append(bad, "store unavailable: "+err.Error())
	}
	leading, _ := s.leadership()
	if since, down := s.poller.Down(); leading && down && now.Sub(since) > s.cfg.IMAP.PollInterval {
		bad = append(bad, fmt.Sprintf("imap: no session with %s for %s (since %s)",
			s.cfg.IMAP.Addr, now.Sub(since).Round(time.Second), since.UTC().Format(time.RFC3339)))
	}
	if n, after := s.poller.Stuck(); leading && n > 0 {
		bad = append(bad, fmt.Sprintf("imap: %d message(s) in the inbox failed more than %d times (still retried)", n, after))
	}
	if oldest, ok, err := s.store.OldestPending(ctx); err == nil && ok && now.Sub(oldest) > s.outboxGrace() {
		bad = append(bad, fmt.Sprintf("smtp: a reply has waited for delivery for %s (since %s)",
			now.Sub(oldest).Round(time.Second), oldest.UTC().Format(time.RFC3339)))
	}
	return bad
}

func (s *server) outboxGrace() time.Duration {
	if s.grace > 0 {
		return s.grace
	}
	return outboxGrace
}

// mux serves /healthz (JSON: 200 "ok", or 503 with the reasons) and
// /metrics (Prometheus text format).
func (s *server) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		status, code := "ok", http.StatusOK
		bad := s.health(ctx, time.Now())
		if len(bad) > 0 {
			status, code = "unhealthy", http.StatusServiceUnavailable
		}
		s.mu.Lock()
		last, tickErr := s.lastTick, s.tickErr
		s.mu.Unlock()
		body := map[string]any{
			"status": status, "referee": s.cfg.Referee.Address,
			"uptime_seconds": int(time.Since(s.started).Seconds()), "last_tick": last.UTC().Format(time.RFC3339),
		}
		if len(bad) > 0 {
			body["reasons"] = bad
		}
		if tickErr != nil {
			body["tick_error"] = tickErr.Error()
		}
		leading, epoch := s.leadership()
		body["leader"] = leading // a standby serves the web pages only
		if s.elect != nil {
			body["epoch"] = epoch
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(body)
	})
	m.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		st := s.ref.Stats()
		s.metrics.Queued.Store(st.Queued) // the referee queues replies when it commits
		s.metrics.WritePrometheus(w, "pbem_")
		for _, c := range []struct {
			name, help string
			v          int64
		}{
			{"pbem_referee_handled_total", "Requests committed.", st.Handled},
			{"pbem_referee_ignored_total", "Bounces, auto-replies and loops not answered.", st.Ignored},
			{"pbem_referee_duplicates_total", "Messages already processed.", st.Duplicates},
			{"pbem_referee_rate_limited_total", "Messages over the per-sender rate limit.", st.Limited},
			{"pbem_referee_panics_total", "Bugs recovered (nothing applied).", st.Panics},
			{"pbem_referee_unverified_total", "Messages not read for their sender verdict (Authentication-Results).", st.Unverified},
			{"pbem_referee_conflicts_total", "Commits retried after a concurrent change.", st.Conflicts},
		} {
			fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.v)
		}
		leading, epoch := s.leadership()
		fmt.Fprintf(w, "# HELP pbem_leader Whether this instance leads (reads the mailbox, writes, sends).\n# TYPE pbem_leader gauge\npbem_leader %d\n", b2i(leading))
		fmt.Fprintf(w, "# HELP pbem_leader_epoch The epoch of the lease this instance holds or last held (0: SQLite, no lease).\n# TYPE pbem_leader_epoch gauge\npbem_leader_epoch %d\n", epoch)
		if s.elect != nil {
			fmt.Fprintf(w, "# HELP pbem_leader_terms_total Terms of leadership this instance began.\n# TYPE pbem_leader_terms_total counter\npbem_leader_terms_total %d\n", s.elect.terms.Load())
		}
		if n, err := s.store.Pending(r.Context()); err == nil {
			fmt.Fprintf(w, "# HELP pbem_outbox_pending Replies waiting for delivery.\n# TYPE pbem_outbox_pending gauge\npbem_outbox_pending %d\n", n)
		}
	})
	return m
}

// outbox adapts the store's outbox to the mail sender.
type outbox struct {
	s      *archive.Store
	onSent func(id string, game int64)
	games  *sync.Map // id -> game of the replies due, while onSent is set
	// refused is server.refused: a mark the fence refused ends the
	// leadership (nil: none).
	refused func(error) error
}

// check passes err on, telling refused first.
func (o outbox) check(err error) error {
	if o.refused != nil {
		return o.refused(err)
	}
	return err
}

// accepted calls onSent.
func (o outbox) accepted(id string) {
	g, _ := o.games.LoadAndDelete(id)
	n, _ := g.(int64)
	o.onSent(id, n)
}

func (o outbox) Due(ctx context.Context, now time.Time, limit int) ([]mail.Outgoing, error) {
	rows, err := o.s.Due(ctx, now, limit)
	if err != nil {
		return nil, err
	}
	out := make([]mail.Outgoing, len(rows))
	for i := range rows {
		out[i] = outgoing(&rows[i])
		if o.onSent != nil {
			o.games.Store(rows[i].ID, rows[i].GameID)
		}
	}
	return out, nil
}

// drawPicture is SenderOptions.Draw: a board's picture drawn from the
// drawing its outbox row stores (referee.Draw), in the lane that sends it.
func drawPicture(p []byte) ([]byte, error) { return referee.Draw(&archive.Inline{Picture: p}) }

// outgoing is the mail of an outbox row as the referee sends it. The
// referee wraps its prose at referee.Width: sent flowed, a phone re-flows
// it while boards and tables keep their lines. Every mail the referee
// sends is automatic (RFC 3834): the row says whether it answers a
// message (auto-replied) or was sent on the referee's own account, by the
// clock (auto-generated). A row that does not say is an answer when it is
// in reply to something other than its game's thread (the first of
// References, under which the referee files what it sends on its own).
func outgoing(r *archive.Outgoing) mail.Outgoing {
	o := r.Mail
	o.FlowWidth = referee.Width
	if o.AutoSubmitted == "" {
		o.AutoSubmitted = mail.AutoGenerated
		thread := r.GameID != 0 && len(r.References) > 0 && r.InReplyTo == r.References[0]
		if r.InReplyTo != "" && !thread {
			o.AutoSubmitted = mail.AutoReplied
		}
	}
	return o
}

func (o outbox) Sent(ctx context.Context, id string) error {
	return o.check(o.s.Sent(ctx, id))
}

// SentBatch records several replies as sent in one transaction.
func (o outbox) SentBatch(ctx context.Context, ids []string) error {
	_, err := o.s.SentBatch(ctx, ids) // a reply gone meanwhile (pruned) needs no mark
	return o.check(err)
}

func (o outbox) NextDue(ctx context.Context) (time.Time, bool, error) {
	return o.s.NextAttempt(ctx)
}
func (o outbox) Retry(ctx context.Context, id string, at time.Time, lastErr string) error {
	return o.check(o.s.Retry(ctx, id, at, lastErr))
}
func (o outbox) Failed(ctx context.Context, id, lastErr string) error {
	return o.check(o.s.Failed(ctx, id, lastErr))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
