package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/mail"
	"pbem/mail/embedded"
)

// startServe runs pbem serve on its embedded servers until the test ends.
func startServe(t *testing.T, cfg *Config) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cfg: cfg, out: io.Discard, embedded: true, imapPort: 0, smtpPort: 0}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s
}

func getHealth(t *testing.T, s *server) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get("http://" + s.http.Addr().String() + "/healthz")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return resp.StatusCode, h
}

func metricsOf(t *testing.T, s *server) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + s.http.Addr().String() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := map[string]float64{}
	counters := regexp.MustCompile(`(?m)^# TYPE (\S+) counter$`)
	for _, c := range counters.FindAllStringSubmatch(string(body), -1) {
		v := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c[1]) + ` (\S+)$`).FindStringSubmatch(string(body))
		require.NotNil(t, v, "counter %s has no value", c[1])
		m[c[1]], _ = strconv.ParseFloat(v[1], 64)
	}
	return m
}

// TestHealthzReportsAnOutage: /healthz answers 503 with its reasons when the
// IMAP session has been down longer than the fallback poll interval and
// when a reply has waited for delivery too long; 200 before.
func TestHealthzReportsAnOutage(t *testing.T) {
	cfg := testConfig(t)
	cfg.IMAP.PollInterval = 200 * time.Millisecond
	s := startServe(t, cfg)
	s.grace = time.Minute
	code, h := getHealth(t, s)
	require.Equal(t, http.StatusOK, code, h)
	assert.Equal(t, "ok", h["status"])
	assert.Nil(t, h["reasons"])

	// The mail servers go away; a reply queued ten minutes ago cannot leave.
	s.mails.Close()
	ctx := context.Background()
	require.NoError(t, s.store.Commit(ctx, &archive.Change{MessageID: "queued-before", Outbox: []*archive.Outgoing{{Mail: mail.Outgoing{
		MessageID: "<old@pbem.local>", From: archive.Address{Addr: "referee@pbem.local"},
		To: []archive.Address{{Addr: "alice@pbem.local"}}, Subject: "x", Text: "x", Date: time.Now().Add(-10 * time.Minute),
	}}}}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, h = getHealth(t, s)
		if code == http.StatusServiceUnavailable && len(h["reasons"].([]any)) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, http.StatusServiceUnavailable, code, h)
	assert.Equal(t, "unhealthy", h["status"])
	reasons := fmt.Sprint(h["reasons"])
	assert.Contains(t, reasons, "imap: no session with "+cfg.IMAP.Addr)
	assert.Contains(t, reasons, "smtp: a reply has waited for delivery for 10m")
}

// TestEveryCounterMoves drives pbem serve through what each exported
// counter counts and fails on a counter that stays at zero, or on a new
// counter this test does not know.
func TestEveryCounterMoves(t *testing.T) {
	cfg := testConfig(t)
	cfg.IMAP.TrustedAuthservID = "mx.pbem.local"
	s := startServe(t, cfg)
	ref := s.mails.RefereeAddress()
	raw := func(from, id, extra, body string) []byte {
		return []byte(strings.ReplaceAll(fmt.Sprintf("From: %s\nTo: %s\nSubject: help\nMessage-ID: <%s@pbem.local>\n%sDate: Tue, 24 Nov 2026 10:00:00 +0000\n\n%s\n", from, ref, id, extra, body), "\n", "\r\n"))
	}
	deliver := func(b []byte) { require.NoError(t, s.mails.Deliver("x@pbem.local", []string{ref}, b)) }

	deliver(raw("dave@pbem.local", "help-1", "", "help"))                                     // handled, queued, sent
	deliver(raw("dave@pbem.local", "help-1", "", "help"))                                     // the same message again
	deliver(raw("carol@pbem.local", "auto-1", "Auto-Submitted: auto-replied\n", "I am away")) // ignored
	deliver(raw("bob@pbem.local", "broken-1", "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n", "%%% not base64 %%%"))
	// Failed by the trusted server: neither read nor answered.
	deliver(raw("mallory@pbem.local", "forged-1", "Authentication-Results: mx.pbem.local; spf=fail smtp.mailfrom=pbem.local; dmarc=fail header.from=pbem.local\n", "help"))
	for i := range 32 { // over the per-sender limit of unauthenticated mail
		deliver(raw("eve@pbem.local", fmt.Sprintf("flood-%d", i), "", "help"))
	}
	wait := func(what string, ok func(map[string]float64) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			m := metricsOf(t, s)
			if ok(m) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: counters %v", what, m)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("every message processed", func(m map[string]float64) bool {
		return m["pbem_messages_processed_total"]+m["pbem_messages_rejected_total"] >= 37 && m["pbem_replies_sent_total"] >= 1
	})
	// The unreadable mail is answered in plain words.
	bob := &player{addr: "bob@pbem.local", pass: "bob", imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	reply, err := bob.wait(wctx, "")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(reply.Text), " ")
	assert.Contains(t, text, "could not read your message: its structure or encoding is damaged")
	assert.NotContains(t, text, "mail: cannot parse")
	s.mails.DropIMAPConnections()
	wait("a reconnect", func(m map[string]float64) bool { return m["pbem_imap_reconnects_total"] >= 1 })

	// Counters that need a fault this process cannot cause from outside are
	// moved by the tests named here.
	elsewhere := map[string]string{
		"pbem_handler_temporary_failures_total": "mail.TestPollerTemporaryError",
		"pbem_handler_panics_total":             "mail.TestPollerHandlerPanic",
		"pbem_replies_failed_total":             "mail.TestSenderPermanentFailure",
		"pbem_referee_panics_total":             "referee.TestPanicIsRecovered",
		"pbem_referee_conflicts_total":          "referee.TestConflictIsRetried",
		"pbem_reply_copies_expunged_total":      "mail.TestPollerExpungesSettledCopies (copies go with a configured SMTP server)",
		"pbem_replies_resent_total":             "mail.TestSenderAfterCrashFindsCopies",
	}
	m := metricsOf(t, s)
	require.NotEmpty(t, m)
	for name, v := range m {
		if test, ok := elsewhere[name]; ok {
			assert.Zero(t, v, "%s moved here; it is left to %s", name, test)
			continue
		}
		assert.Positive(t, v, "counter %s never moved", name)
	}
}

// TestHealthzReportsStuckMail: /healthz answers 503 while a message in the
// inbox has failed more than the poller's StuckAfter times (it is still
// retried), and 200 again once it went through.
func TestHealthzReportsStuckMail(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testConfig(t)
	store, err := archive.Open(ctx, cfg.DataDir, nil)
	require.NoError(t, err)
	defer store.Close()
	mails, err := embedded.Start(&embedded.Options{})
	require.NoError(t, err)
	defer mails.Close()
	pass, _ := mails.Password("referee")
	poller, err := mail.NewPoller(&mail.PollerOptions{
		Addr: mails.IMAPAddr(), Security: mail.SecurityPlain, Username: mails.RefereeAddress(), Password: pass,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 40 * time.Millisecond, StuckAfter: 2,
	})
	require.NoError(t, err)
	var failing atomic.Bool
	failing.Store(true)
	done := make(chan error, 1)
	go func() {
		done <- poller.Run(ctx, mail.HandlerFunc(func(context.Context, *mail.Inbound) error {
			if failing.Load() {
				return errors.New("database is locked")
			}
			return nil
		}))
	}()
	defer func() { cancel(); <-done }()
	s := &server{cfg: cfg, store: store, poller: poller, started: time.Now()}
	health := func() (int, map[string]any) {
		w := httptest.NewRecorder()
		s.mux().ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
		var h map[string]any
		require.NoError(t, json.NewDecoder(w.Body).Decode(&h))
		return w.Code, h
	}
	waitFor := func(code int) map[string]any {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, h := health()
			if got == code {
				return h
			}
			if time.Now().After(deadline) {
				t.Fatalf("/healthz answers %d %v, want %d", got, h, code)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	code, h := health()
	require.Equal(t, http.StatusOK, code, h)

	raw := strings.ReplaceAll("From: dave@pbem.local\nTo: "+mails.RefereeAddress()+"\nSubject: help\nMessage-ID: <stuck-1@pbem.local>\n\nhelp\n", "\n", "\r\n")
	require.NoError(t, mails.Deliver("dave@pbem.local", []string{mails.RefereeAddress()}, []byte(raw)))
	h = waitFor(http.StatusServiceUnavailable)
	assert.Equal(t, "unhealthy", h["status"])
	assert.Equal(t, "[imap: 1 message(s) in the inbox failed more than 2 times (still retried)]", fmt.Sprint(h["reasons"]))

	failing.Store(false)
	h = waitFor(http.StatusOK)
	assert.Nil(t, h["reasons"])
}
