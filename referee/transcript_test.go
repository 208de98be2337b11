package referee_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pbem/archive"
	"pbem/engine/bot"
	"pbem/engine/enginetest"
	"pbem/notation"
	"pbem/referee"
)

var update = flag.Bool("update", false, "rewrite the expected replies of the transcripts in testdata")

// Transcripts are txtar files under testdata: a comment, an optional
// "options" file, then steps, each a file named N.in (a request: header
// lines, a blank line, the body), N.tick (a "time:" line), N.admin (pbem
// admin commands, one a line, a minute apart), N.analyses (the queued
// analyses done, in order) or N.dump (what to print
// from the store: "game ID", "archive", "player ADDR", "digest ADDR", "audit ID"), followed
// by N.out: the mails the step queued (or the dump). Run with -update to
// rewrite the .out files.
//
// Request headers: from, to, subject, message-id ("none" for none),
// in-reply-to, references, time (RFC 3339, or +DURATION after the last
// step; default one minute after it), size, body-size (pads the body to
// that many bytes), auto-submitted, precedence, x-autoreply,
// content-type, null-sender, list-id. In a request, {token ID ADDR} is
// the token of ADDR in game ID and {plus ID ADDR} its plus-address;
// {admintoken ADDR} is the token last mailed to the admin ADDR.
func TestTranscripts(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		files, err := filepath.Glob("testdata/*.txtar")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatal("no transcripts in testdata")
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".txtar")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runTranscript(t, db, file)
			})
		}
	})
}

// start is the time of the first step.
var start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// testLookup knows the toy game and castles (from the catalog, once it is
// there); the transcripts do not depend on the rest of the catalog.
func testLookup(id string) (notation.Codec, error) {
	switch strings.ToLower(id) {
	case "toy":
		return enginetest.Toy{}, nil
	case "castles", "ziggurat", "elevation", "ziggurat43", "rpp":
		return referee.Lookup(id)
	}
	return nil, fmt.Errorf("unknown game %q; expected one of toy, castles", id)
}

// testGames lists toy only, so that help is the same whatever the catalog
// holds.
func testGames() []notation.Codec { return []notation.Codec{enginetest.Toy{}} }

type harness struct {
	t     testing.TB
	ctx   context.Context
	store *archive.Store
	ref   *referee.Referee
	clock *fakeClock
	now   time.Time
	// where and opts open the store and make the referee again (restart).
	where string
	opts  *referee.Options
}

func newHarness(t testing.TB, db store, opts map[string]string) *harness {
	ctx := context.Background()
	clock := &fakeClock{now: start}
	where := db.Where(t)
	store, err := archive.OpenStore(ctx, where, &archive.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	o := &referee.Options{
		Address: "referee@pbem.example",
		Lookup:  testLookup,
		Games:   testGames,
		Clock:   clock,
		Rand:    rand.NewChaCha8([32]byte{1, 2, 3}),
		Secret:  []byte("the transcripts' secret"),
	}
	// The calendar keys are the store's, as pbem serve passes them, so
	// that the store finds the player of a key the referee mailed.
	if o.CalendarSecret, err = store.Secret(ctx, archive.CalendarSecretName); err != nil {
		t.Fatal(err)
	}
	// A fixed key for the unsubscribe tokens, so that the mails of two
	// harnesses (one by one, batched) are the same.
	o.UnsubscribeSecret = []byte("the transcripts' unsubscribe secret")
	if k := opts["secret"]; k != "" {
		o.Secret = []byte(k)
	}
	for k, v := range opts {
		if k == "web-base-url" {
			o.WebBaseURL = v
			continue
		}
		if k == "admins" {
			o.Admins = strings.Fields(v)
			continue
		}
		if k == "secret" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("option %s: %v", k, err)
		}
		switch k {
		case "rate-limit":
			o.RateLimit = n
		case "token-rate-limit":
			o.TokenRateLimit = n
		case "rate-limit-total":
			o.RateLimitTotal = n
		case "max-body":
			o.MaxBody = n
		case "vacation-days":
			o.VacationDays = n
		case "max-observers":
			o.MaxObservers = n
		case "invites-per-message":
			o.InvitesPerMessage = n
		case "invites-per-window":
			o.InvitesPerWindow = n
		case "max-bot-games":
			o.MaxBotGames = n
		case "max-bot-games-total":
			o.MaxBotGamesTotal = n
		default:
			t.Fatalf("unknown option %s", k)
		}
	}
	ref, err := referee.New(store, o)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, ctx: ctx, store: store, ref: ref, clock: clock, now: start, where: where, opts: o}
}

// restart closes the store and opens it again under a new referee, as
// pbem serve does after a crash or a restart: what the referee knows then
// is what the store kept.
func (h *harness) restart() *referee.Referee {
	h.t.Helper()
	if err := h.store.Close(); err != nil {
		h.t.Fatal(err)
	}
	store, err := archive.OpenStore(h.ctx, h.where, &archive.Options{Now: h.clock.Now})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { store.Close() })
	h.store = store
	ref, err := referee.New(store, h.opts)
	if err != nil {
		h.t.Fatal(err)
	}
	return ref
}

func runTranscript(t *testing.T, db store, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseTxtar(data)
	opts := map[string]string{}
	files := ar.files
	if len(files) > 0 && files[0].name == "options" {
		for _, l := range strings.Split(strings.TrimSpace(files[0].data), "\n") {
			k, v, _ := strings.Cut(l, ":")
			opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		files = files[1:]
	}
	if game, ok := opts["requires"]; ok {
		delete(opts, "requires")
		if _, err := referee.Lookup(game); err != nil {
			t.Skipf("%s is not in the catalog yet: %v", game, err)
		}
	}
	h := newHarness(t, db, opts)
	var out []txtarFile
	if len(ar.files) > len(files) {
		out = append(out, ar.files[0])
	}
	failed := false
	for i := 0; i < len(files); i++ {
		f := files[i]
		step, kind, ok := strings.Cut(f.name, ".")
		if !ok || kind == "out" {
			t.Fatalf("%s: unexpected file %q; expected N.in, N.tick or N.dump", file, f.name)
		}
		got := h.step(step, kind, f.data)
		var want string
		if i+1 < len(files) && files[i+1].name == step+".out" {
			want = files[i+1].data
			i++
		}
		out = append(out, f, txtarFile{name: step + ".out", data: got})
		if got != want && !*update {
			failed = true
			t.Errorf("%s: step %s: replies differ (-want +got):\n%s", file, f.name, diff(want, got))
		}
	}
	if n := h.ref.Stats().Panics; n > 0 {
		t.Errorf("%s: the referee recovered %d panics", file, n)
	}
	if *update {
		ar.files = out
		if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if failed {
		t.Log("run go test ./referee -run TestTranscripts -update to accept the new replies")
	}
}

// step runs one step and returns its output.
func (h *harness) step(name, kind, data string) string {
	h.t.Helper()
	switch kind {
	case "in":
		req := h.request(name, data)
		h.clock.set(h.now)
		if err := h.ref.Handle(h.ctx, req); err != nil {
			return "error: " + err.Error() + "\n"
		}
		return h.mails()
	case "tick":
		hdr, _ := splitHeader(data)
		h.advance(hdr["time"])
		h.clock.set(h.now)
		if err := h.ref.Tick(h.ctx, h.now); err != nil {
			return "error: " + err.Error() + "\n"
		}
		return h.mails()
	case "dump":
		return h.dump(data)
	case "admin":
		// pbem admin: one command a line, by the operator on the server.
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
			h.now = h.now.Add(time.Minute)
			h.clock.set(h.now)
			words, err := referee.AdminWords(l)
			if err == nil {
				var text string
				text, err = h.ref.Admin(h.ctx, "cli:operator", words)
				if err == nil {
					fmt.Fprintf(&b, "admin %s: %s\n", l, text)
				}
			}
			if err != nil {
				fmt.Fprintf(&b, "admin %s: error: %v\n", l, err)
			}
		}
		return b.String() + h.mails()
	case "bots":
		// The bot worker of pbem serve: every bot to move plays, until
		// a person is to move everywhere.
		hdr, _ := splitHeader(data)
		h.advance(hdr["time"])
		h.clock.set(h.now)
		for range 500 {
			turns, err := h.ref.BotTurns(h.ctx)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			if len(turns) == 0 {
				break
			}
			for _, tn := range turns {
				p, err := bot.New(tn.Level, uint64(tn.Game)<<16|uint64(tn.Ply))
				if err != nil {
					h.t.Fatal(err)
				}
				m, err := p.MoveFor(h.ctx, tn.Line, tn.Seat)
				if err != nil {
					h.t.Fatalf("bot in game %d: %v", tn.Game, err)
				}
				if err := h.ref.PlayBot(h.ctx, tn.Game, tn.Ply, tn.Codec.Encode(tn.Line.State(), m)); err != nil {
					return "error: " + err.Error() + "\n"
				}
			}
		}
		return h.mails()
	case "analyses":
		// The analysis worker of pbem serve: every queued analysis, in
		// order.
		hdr, _ := splitHeader(data)
		h.advance(hdr["time"])
		h.clock.set(h.now)
		for range 100 {
			ran, err := h.ref.RunAnalysis(h.ctx)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			if !ran {
				break
			}
		}
		return h.mails()
	}
	h.t.Fatalf("unknown step kind %q", kind)
	return ""
}

// advance moves the time to an absolute time, +DURATION, or a minute on.
func (h *harness) advance(v string) {
	h.t.Helper()
	switch {
	case v == "":
		h.now = h.now.Add(time.Minute)
	case strings.HasPrefix(v, "+"):
		d, err := parseDuration(v[1:])
		if err != nil {
			h.t.Fatalf("time %q: %v", v, err)
		}
		h.now = h.now.Add(d)
	default:
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			h.t.Fatalf("time %q: %v", v, err)
		}
		h.now = t
	}
}

// parseDuration also knows days: 3d12h.
func parseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if i := strings.Index(s, "d"); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			return 0, err
		}
		d = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
	}
	if s == "" {
		return d, nil
	}
	x, err := time.ParseDuration(s)
	return d + x, err
}

var placeholderRE = regexp.MustCompile(`\{(token|plus) (\d+) ([^ }]+)\}`)

// adminTokenRE is {admintoken ADDR}: the newest token mailed to the admin
// ADDR for a command by mail not yet confirmed.
var adminTokenRE = regexp.MustCompile(`\{admintoken ([^ }]+)\}`)

func (h *harness) expand(s string) string {
	s = h.expandTournaments(s)
	s = adminTokenRE.ReplaceAllStringFunc(s, func(m string) string {
		var tok string
		// The newest: by time, then by insertion, which the row's place
		// (SQLite's rowid, PostgreSQL's ctid) tells of rows never updated.
		place := "rowid"
		if h.store.Backend() == archive.Postgres {
			place = "ctid"
		}
		err := h.store.DB().QueryRow(`SELECT token FROM admin_pending WHERE admin = ? AND done = 0 ORDER BY created DESC, `+place+` DESC LIMIT 1`,
			strings.ToLower(adminTokenRE.FindStringSubmatch(m)[1])).Scan(&tok)
		if err != nil {
			h.t.Fatalf("%s: %v", m, err)
		}
		return tok
	})
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		p := placeholderRE.FindStringSubmatch(m)
		id, _ := strconv.ParseInt(p[2], 10, 64)
		g, err := h.store.Game(h.ctx, id)
		if err != nil {
			h.t.Fatalf("%s: %v", m, err)
		}
		tokens := map[string]string{}
		for _, st := range g.Seats {
			tokens[strings.ToLower(st.Player.Addr)] = st.Token
		}
		for _, o := range g.Observers {
			tokens[strings.ToLower(o.Addr)] = o.Token
		}
		if tok, ok := tokens[strings.ToLower(p[3])]; ok {
			if p[1] == "token" {
				return tok
			}
			return fmt.Sprintf("referee+%d.%s@pbem.example", id, tok)
		}
		h.t.Fatalf("%s: no such player or watcher", m)
		return ""
	})
}

func splitHeader(data string) (map[string]string, string) {
	hdr := map[string]string{}
	head, body, _ := strings.Cut(data, "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if l == "" {
			continue
		}
		k, v, _ := strings.Cut(l, ":")
		hdr[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return hdr, body
}

func (h *harness) request(name, data string) referee.Request {
	h.t.Helper()
	hdr, body := splitHeader(h.expand(data))
	h.advance(hdr["time"])
	q := referee.Request{
		To:        "referee@pbem.example",
		Subject:   hdr["subject"],
		Body:      body,
		MessageID: name + "@test.example",
		Received:  h.now,
	}
	if from := hdr["from"]; from != "" {
		if i := strings.Index(from, "<"); i >= 0 {
			q.From = referee.Address{Name: strings.TrimSpace(from[:i]), Addr: strings.Trim(from[i:], "<> ")}
		} else {
			q.From = referee.Address{Addr: from}
		}
	}
	yes := func(k string) bool { return hdr[k] == "yes" }
	for k, v := range hdr {
		switch k {
		case "from", "subject", "time":
		case "to":
			q.To = v
		case "message-id":
			q.MessageID = v
			if v == "none" {
				q.MessageID = ""
			}
		case "in-reply-to":
			q.InReplyTo = v
		case "references":
			q.References = strings.Fields(v)
		case "size":
			q.Size, _ = strconv.Atoi(v)
		case "body-size":
			n, _ := strconv.Atoi(v)
			line := strings.Repeat("x", 71) + "\n"
			var b strings.Builder
			b.WriteString(q.Body)
			for b.Len() < n {
				b.WriteString(line)
			}
			q.Body = b.String()[:n]
		case "auto-submitted":
			q.AutoSubmitted = v
		case "precedence":
			q.Precedence = v
		case "x-autoreply":
			q.XAutoreply = yes(k)
		case "content-type":
			q.ContentType = v
		case "null-sender":
			q.NullSender = yes(k)
		case "list-id":
			q.ListID = yes(k)
		default:
			h.t.Fatalf("step %s: unknown header %q", name, k)
		}
	}
	return q
}

// mails prints the mails queued and marks them sent.
func (h *harness) mails() string {
	h.t.Helper()
	due, err := h.store.Due(h.ctx, h.now.Add(1000*24*time.Hour), 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(due) == 0 {
		return "(no mail)\n"
	}
	var b strings.Builder
	for i, o := range due {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, ">>> To: %s\n", addrs(o.To))
		fmt.Fprintf(&b, "Subject: %s\n", o.Subject)
		if o.ReplyTo != nil {
			fmt.Fprintf(&b, "Reply-To: %s\n", o.ReplyTo.Addr)
		}
		fmt.Fprintf(&b, "Message-ID: <%s>\n", o.MessageID)
		if o.InReplyTo != "" {
			fmt.Fprintf(&b, "In-Reply-To: <%s>\n", o.InReplyTo)
		}
		if len(o.References) > 0 {
			fmt.Fprintf(&b, "References: <%s>\n", strings.Join(o.References, "> <"))
		}
		if o.Unsubscribe != "" {
			fmt.Fprintf(&b, "List-Unsubscribe: %s\n", o.Unsubscribe)
		}
		if o.Calendar != "" {
			fmt.Fprintf(&b, "Calendar: %s\n", calendarSummary(h.t, o.Calendar))
		}
		fmt.Fprintf(&b, "\n%s", o.Text)
		if !strings.HasSuffix(o.Text, "\n") {
			b.WriteString("\n")
		}
		if err := h.store.Sent(h.ctx, o.ID); err != nil {
			h.t.Fatal(err)
		}
		h.checkTokens(o)
		h.checkTournamentMail(o)
		for _, l := range strings.Split(o.Text, "\n") {
			// A position text is one token to copy whole, on one line
			// (as the record writer leaves a token longer than a line).
			if strings.HasPrefix(l, "Position: ") || strings.HasPrefix(l, "[Position \"") {
				continue
			}
			if len([]rune(l)) > 79 {
				h.t.Errorf("mail to %s has a line of %d columns: %q", addrs(o.To), len([]rune(l)), l)
			}
		}
	}
	return b.String()
}

// checkTokens: a mail never shows the token of a player other than its
// recipient.
func (h *harness) checkTokens(o archive.Outgoing) {
	h.t.Helper()
	ids := map[int64]bool{o.GameID: true}
	for _, m := range regexp.MustCompile(`#(\d+)`).FindAllStringSubmatch(o.Subject+o.Text, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids[id] = true
	}
	for id := range ids {
		g, err := h.store.Game(h.ctx, id)
		if err != nil {
			continue
		}
		reply := ""
		if o.ReplyTo != nil {
			reply = o.ReplyTo.Addr
		}
		secrets := map[string]string{}
		player := false
		for _, st := range g.Seats {
			secrets[strings.ToLower(st.Player.Addr)] = st.Token
			player = player || strings.EqualFold(st.Player.Addr, o.To[0].Addr)
		}
		for _, w := range g.Observers {
			secrets[strings.ToLower(w.Addr)] = w.Token
		}
		for addr, tok := range secrets {
			if !strings.EqualFold(addr, o.To[0].Addr) && strings.Contains(o.Subject+o.Text+reply, tok) {
				h.t.Errorf("mail to %s shows the token of %s in game %d:\n%s\n%s", o.To[0].Addr, addr, id, o.Subject, o.Text)
			}
		}
		// Privacy: whoever does not play a game never reads its players'
		// addresses.
		if !player {
			for _, st := range g.Seats {
				if strings.Contains(strings.ToLower(o.Subject+o.Text), strings.ToLower(st.Player.Addr)) {
					h.t.Errorf("mail to %s, who does not play game %d, shows the address of %s:\n%s\n%s", o.To[0].Addr, id, st.Player.Addr, o.Subject, o.Text)
				}
			}
		}
	}
}

func addrs(as []archive.Address) string {
	var s []string
	for _, a := range as {
		if a.Name != "" {
			s = append(s, fmt.Sprintf("%s <%s>", a.Name, a.Addr))
		} else {
			s = append(s, a.Addr)
		}
	}
	return strings.Join(s, ", ")
}

// dump prints what the store holds.
func (h *harness) dump(data string) string {
	h.t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && f[0] == "game":
			id, _ := strconv.ParseInt(f[1], 10, 64)
			g, err := h.store.Game(h.ctx, id)
			if err != nil {
				fmt.Fprintf(&b, "game %d: %v\n", id, err)
				continue
			}
			fmt.Fprintf(&b, "game %d: %s %s, options %+v\n", g.ID, g.Game, g.Status, g.Options)
			for i, st := range g.Seats {
				fmt.Fprintf(&b, "  seat %d %s: %s <%s> joined=%v\n", i, st.Side, st.Player.Name, st.Player.Addr, st.Joined)
			}
			for _, o := range g.Observers {
				fmt.Fprintf(&b, "  observer %s\n", o.Addr)
			}
			for _, o := range g.Offers {
				fmt.Fprintf(&b, "  offer %+v\n", o)
			}
			fmt.Fprintf(&b, "  turn %s, deadline %s, reminded %d, due %s\n", ts(g.TurnStart), ts(g.Deadline), g.Reminded, ts(g.Due))
			fmt.Fprintf(&b, "  record:\n%s", indentText(g.Record))
		case len(f) == 1 && f[0] == "archive":
			es, err := h.store.Entries(h.ctx, 0, 100)
			if err != nil {
				h.t.Fatal(err)
			}
			for _, e := range es {
				var tags []string
				for _, t := range e.Tags {
					tags = append(tags, t.Name+"="+t.Value)
				}
				fmt.Fprintf(&b, "archive %d: game %d %s %s rated=%v hash=%s\n  tags: %s\n%s", e.ID, e.GameID, e.Game, e.Result, e.Rated,
					e.Hash[:12], strings.Join(tags, "; "), indentText(e.Record))
				if e.Hash != archive.Hash(e.Record) {
					h.t.Errorf("archive %d: hash %s is not that of the record", e.ID, e.Hash)
				}
				checkRecord(h.t, e.Record)
			}
			if len(es) == 0 {
				b.WriteString("archive: empty\n")
			}
		case len(f) == 2 && f[0] == "player":
			p, err := h.store.Player(h.ctx, f[1])
			if err != nil {
				h.t.Fatal(err)
			}
			fmt.Fprintf(&b, "player %s: %q vacation until %s, %d days in %d\n", p.Address.Addr, p.Address.Name, ts(p.VacationUntil), p.VacationDays, p.VacationYear)
		case len(f) == 2 && f[0] == "digest":
			p, err := h.store.Player(h.ctx, f[1])
			if err != nil {
				h.t.Fatal(err)
			}
			fmt.Fprintf(&b, "digest %s: hour %q, last %q, time zone %q\n", p.Address.Addr, p.Digest, p.DigestSent, p.TZ)
		case len(f) == 2 && f[0] == "standings":
			h.dumpStandings(&b, f[1])
		case len(f) == 2 && f[0] == "audit":
			id, _ := strconv.ParseInt(f[1], 10, 64)
			as, err := h.store.Audits(h.ctx, id)
			if err != nil {
				h.t.Fatal(err)
			}
			for _, a := range as {
				fmt.Fprintf(&b, "audit %d: %s %s %q game %d: %q\n", a.ID, ts(a.At), a.Actor, a.Action, a.GameID, a.Reason)
			}
			if len(as) == 0 {
				b.WriteString("audit: empty\n")
			}
		default:
			h.t.Fatalf("dump: unknown line %q", l)
		}
	}
	return b.String()
}

// checkRecord validates an archived record with the record checker.
func checkRecord(t testing.TB, record string) {
	t.Helper()
	notation.CheckFile("archive", []byte(record), testLookup, func(c *notation.Checked) {
		for _, p := range c.Problems {
			t.Errorf("archived record is invalid: %s\n%s", p, record)
		}
	})
}

func ts(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func indentText(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" {
			b.WriteString("\n")
		} else {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

// diff is a minimal line diff: the first differing line with context.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := max(0, i-3)
	var b strings.Builder
	for _, l := range w[from:i] {
		b.WriteString("  " + l + "\n")
	}
	for _, l := range w[i:min(len(w), i+8)] {
		b.WriteString("- " + l + "\n")
	}
	for _, l := range g[i:min(len(g), i+8)] {
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}

// A txtar archive (golang.org/x/tools/txtar, which is not a dependency):
// a comment, then files, each introduced by a "-- NAME --" line.
type txtar struct {
	comment string
	files   []txtarFile
}

type txtarFile struct {
	name, data string
}

func parseTxtar(data []byte) *txtar {
	a := &txtar{}
	var cur *txtarFile
	var buf bytes.Buffer
	flush := func() {
		if cur == nil {
			a.comment = buf.String()
		} else {
			cur.data = buf.String()
			a.files = append(a.files, *cur)
		}
		buf.Reset()
	}
	for _, l := range strings.SplitAfter(string(data), "\n") {
		trim := strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(trim, "-- ") && strings.HasSuffix(trim, " --") && len(trim) > 6 {
			flush()
			cur = &txtarFile{name: strings.TrimSpace(trim[3 : len(trim)-3])}
			continue
		}
		buf.WriteString(l)
	}
	flush()
	return a
}

func (a *txtar) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func TestTxtarRoundTrip(t *testing.T) {
	in := "comment\n-- a.in --\nx\n-- a.out --\ny\nz\n"
	if got := string(parseTxtar([]byte(in)).format()); got != in {
		t.Errorf("format(parse(%q)) = %q", in, got)
	}
	a := parseTxtar([]byte(in))
	if !slices.EqualFunc(a.files, []txtarFile{{"a.in", "x\n"}, {"a.out", "y\nz\n"}}, func(x, y txtarFile) bool { return x == y }) {
		t.Errorf("parse = %+v", a.files)
	}
}
