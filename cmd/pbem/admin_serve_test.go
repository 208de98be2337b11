package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/mail"
	"pbem/referee"
)

// TestReloadAdmins: SIGHUP's reload makes the admins of the file the ones
// the running referee answers.
func TestReloadAdmins(t *testing.T) {
	cfg := testConfig(t)
	s := startServe(t, cfg)
	ctx := context.Background()
	ask := func(id string) string {
		t.Helper()
		require.NoError(t, s.ref.Handle(ctx, referee.Request{From: referee.Address{Addr: "carol@pbem.local"}, To: "referee@pbem.local",
			Body: "admin block @spam.example \"advertising\"\n", MessageID: id}))
		var body string
		require.NoError(t, s.store.DB().QueryRow(`SELECT body FROM outbox WHERE in_reply_to = ?`, id).Scan(&body))
		return body
	}
	assert.Contains(t, ask("before@test"), "found no command", "carol is no admin yet")

	path := filepath.Join(t.TempDir(), "pbem.yaml")
	require.NoError(t, os.WriteFile(path, []byte("referee:\n  address: referee@pbem.local\nimap:\n  addr: 127.0.0.1:1\nsmtp:\n  addr: 127.0.0.1:1\nadmins:\n  - carol@pbem.local\nlog:\n  level: debug\n"), 0o600))
	s.configPath = path
	require.Equal(t, slog.LevelError, s.level.Level())
	s.reload()
	assert.Contains(t, ask("after@test"), "admin confirm ", "carol is an admin after the reload")
	assert.Equal(t, slog.LevelDebug, s.level.Level(), "log.level is reloaded too")
	s.level.Set(slog.LevelError)

	// A file that does not load changes nothing.
	require.NoError(t, os.WriteFile(path, []byte("admins: carol\n"), 0o600))
	s.reload()
	assert.Contains(t, ask("broken@test"), "admin confirm ")
}

// TestStopDrains: a stopping server finishes the message in hand though
// its context is cancelled, and sends what its outbox holds before it
// exits.
func TestStopDrains(t *testing.T) {
	cfg := testConfig(t)
	cfg.IMAP.PollInterval = time.Hour // only the drain sends what is queued below
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cfg: cfg, out: io.Discard, embedded: true}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	<-ready

	// The message in hand, its context cancelled by the stop.
	raw := "From: alice@pbem.local\r\nTo: referee@pbem.local\r\nSubject: games\r\nMessage-ID: <in-hand@test>\r\n\r\ngames\r\n"
	in, err := mail.Parse([]byte(raw))
	require.NoError(t, err)
	stopped, stop := context.WithCancel(context.Background())
	stop()
	errs := handler{s}.HandleBatch(stopped, []*mail.Inbound{in, in})
	require.Equal(t, []error{nil, nil}, errs)
	seen, err := s.store.Seen(context.Background(), "<in-hand@test>")
	require.NoError(t, err)
	require.True(t, seen, "the message in hand was committed")

	// Replies queued without waking the sender.
	for i := range 3 {
		require.NoError(t, s.ref.Handle(context.Background(), referee.Request{From: referee.Address{Addr: "bob@pbem.local"},
			To: "referee@pbem.local", Body: "games", MessageID: fmt.Sprintf("queued-%d@test", i)}))
	}
	cancel()
	require.NoError(t, <-done)
	st, err := archive.Open(context.Background(), cfg.DataDir, nil)
	require.NoError(t, err)
	defer st.Close()
	n, err := st.Pending(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "the outbox was sent before the server stopped")
	var bodies int
	require.NoError(t, st.DB().QueryRow(`SELECT COUNT(*) FROM outbox WHERE status = 'sent' AND in_reply_to LIKE 'queued-%'`).Scan(&bodies))
	assert.Equal(t, 3, bodies)
}

// TestServeRefusesNewerSchema: pbem serve does not start on a store a
// newer pbem wrote.
func TestServeRefusesNewerSchema(t *testing.T) {
	cfg := testConfig(t)
	st, err := archive.Open(context.Background(), cfg.DataDir, nil)
	require.NoError(t, err)
	_, err = st.DB().Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, 'from the future', 0)`, archive.SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	s := &server{cfg: cfg, out: io.Discard, embedded: true}
	err = s.run(context.Background(), func(*server) { t.Error("serve started") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("newer than this program's %d; upgrade pbem", archive.SchemaVersion()))
}

// TestAdminByRealMail: an admin of the configuration sends a command to
// pbem serve by SMTP, gets its token by IMAP, confirms it in a reply, and
// the command is carried out; the same command from another account only
// gets "no command".
func TestAdminByRealMail(t *testing.T) {
	cfg := testConfig(t)
	cfg.Admins = []string{"dave@pbem.local"}
	s := startServe(t, cfg)
	ref := s.mails.RefereeAddress()
	dave := &player{addr: "dave@pbem.local", pass: "dave", imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()}
	carol := &player{addr: "carol@pbem.local", pass: "carol", imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	require.NoError(t, carol.send(ref, "block", "admin block @spam.example \"advertising\"", nil))
	m, err := carol.wait(ctx, "")
	require.NoError(t, err)
	assert.Contains(t, m.Text, "found no command")

	require.NoError(t, dave.send(ref, "block", "admin block @spam.example \"advertising\"", nil))
	m, err = dave.wait(ctx, "admin confirm ")
	require.NoError(t, err)
	blocked, err := s.store.Blocked(context.Background(), "x@spam.example")
	require.NoError(t, err)
	require.False(t, blocked, "not before its confirmation")
	var token string
	for l := range strings.SplitSeq(m.Text, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "admin" && f[1] == "confirm" {
			token = f[2]
		}
	}
	require.NotEmpty(t, token, m.Text)
	require.NoError(t, dave.send(ref, "", "admin confirm "+token, m))
	m, err = dave.wait(ctx, "Done:")
	require.NoError(t, err)
	assert.Contains(t, m.Text, "blocked @spam.example")
	blocked, err = s.store.Blocked(context.Background(), "x@spam.example")
	require.NoError(t, err)
	assert.True(t, blocked)
	as, err := s.store.Audits(context.Background(), 0)
	require.NoError(t, err)
	require.Len(t, as, 1)
	assert.Equal(t, "dave@pbem.local", as[0].Actor)
}
