package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/dovecottest"
	"pbem/referee"
)

// relay is an SMTP server that hands every message to Dovecot over LMTP,
// standing in for the mail provider's submission server.
type relay struct{ dv *dovecottest.Server }

func (r relay) NewSession(*smtp.Conn) (smtp.Session, error) { return &relaySession{dv: r.dv}, nil }

type relaySession struct {
	dv   *dovecottest.Server
	from string
	to   []string
}

func (s *relaySession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *relaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *relaySession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return s.dv.TryDeliver(s.from, s.to, raw)
}
func (s *relaySession) Reset()        { s.from, s.to = "", nil }
func (s *relaySession) Logout() error { return nil }

// TestWholeGameOnDovecot plays a whole castles game by mail against a real
// Dovecot: the referee reads its inbox with IDLE (the fallback poll is an
// hour, so only IDLE can deliver in time), replies go out by SMTP and come
// back to the players through Dovecot.
func TestWholeGameOnDovecot(t *testing.T) {
	dv := dovecottest.Start(t, "referee", "alice", "bob")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := smtp.NewServer(relay{dv})
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	refAddr := "referee@" + dovecottest.Domain
	cfg := testConfig(t)
	cfg.Referee.Address = refAddr
	cfg.IMAP.Addr, cfg.IMAP.Security, cfg.IMAP.Username = dv.IMAPAddr, "plain", refAddr
	cfg.IMAP.PollInterval = time.Hour
	cfg.SMTP.Addr, cfg.SMTP.Security = ln.Addr().String(), "plain"
	t.Setenv(cfg.IMAP.PasswordEnv, dv.Password(refAddr))
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cfg: cfg, out: io.Discard}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}

	var ps []*player
	for _, name := range []string{"alice", "bob"} {
		addr := name + "@" + dovecottest.Domain
		ps = append(ps, &player{addr: addr, pass: dv.Password(addr), imapAddr: dv.IMAPAddr, smtpAddr: ln.Addr().String()})
	}
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)
	var out bytes.Buffer
	start := time.Now()
	require.NoError(t, playByMail(ctx, &out, refAddr, ps, codec, 400, rand.New(rand.NewPCG(3, 0))))
	t.Logf("a whole castles game by mail through Dovecot in %v", time.Since(start))
	text := out.String()
	assert.Contains(t, text, "Game over after")
	assert.Contains(t, text, "three points")
	assert.NotContains(t, text, "illegal")
	cancel()
	require.NoError(t, <-done)
}
