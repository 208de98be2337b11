package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
	"pbem/referee"
)

func testConfig(t *testing.T) *Config {
	cfg := &Config{DataDir: t.TempDir()}
	cfg.defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Log.Level = "error"
	return cfg
}

// TestDemoPlaysByMail plays castles and a 3-seat rpp game through pbem
// serve on its embedded servers, every ply mailed by SMTP and every reply
// read back by IMAP.
func TestDemoPlaysByMail(t *testing.T) {
	var codecs []notation.Codec
	for _, id := range []string{"castles", "rpp"} {
		c, err := referee.Lookup(id)
		require.NoError(t, err)
		codecs = append(codecs, c)
	}
	var out bytes.Buffer
	require.NoError(t, demo(context.Background(), testConfig(t), &out, codecs, 3, 7))
	text := out.String()
	for _, want := range []string{
		"alice@pbem.local -> referee@pbem.local: new castles with bob@pbem.local first=alice@pbem.local",
		"bob@pbem.local -> referee@pbem.local: accept",
		"played @",                   // the setup ply echoed
		"Result 0-1, by resignation", // castles: First resigns at ply 4
		"new rpp with bob@pbem.local carol@pbem.local first=alice@pbem.local",
		"carol@pbem.local -> referee@pbem.local: G:",
		"[Game \"rpp\"]", // the archived record in the final mail
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "illegal")
	assert.NotContains(t, text, "internal error")
}

func TestServeHealthAndMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cfg: testConfig(t), out: io.Discard, embedded: true}
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
	base := "http://" + s.http.Addr().String()
	resp, err := http.Get(base + "/healthz")
	require.NoError(t, err)
	var health map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ok", health["status"])
	assert.Equal(t, "referee@pbem.local", health["referee"])

	// A help request by mail is processed and answered.
	p := &player{addr: "dave@pbem.local", pass: "dave", imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()}
	require.NoError(t, p.send(s.mails.RefereeAddress(), "help", "", nil))
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	m, err := p.wait(wctx, "")
	require.NoError(t, err)
	assert.Contains(t, m.Text, "new GAME with")

	resp, err = http.Get(base + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	metrics := string(body)
	for _, want := range []string{"pbem_referee_handled_total 1", "pbem_outbox_pending", "pbem_messages_processed_total 1"} {
		assert.True(t, strings.Contains(metrics, want), "metrics lack %q:\n%s", want, metrics)
	}
	cancel()
	require.NoError(t, <-done)
}
