package mail_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

// TestSenderConnections: several connections deliver a batch; the replies
// to one recipient arrive in the outbox's order, a reply to two recipients
// included, and each is sent once and recorded as sent.
func TestSenderConnections(t *testing.T) {
	for _, log := range []bool{false, true} {
		t.Run(fmt.Sprintf("accepted log %v", log), func(t *testing.T) {
			s := startServers(t, nil)
			st := newStore()
			players := []string{"alice", "bob", "carol"}
			var ids []string
			for i := range 12 {
				p := players[i%3]
				ids = append(ids, st.queue(p+"@pbem.local", fmt.Sprintf("%s %d", p, i)))
			}
			// One reply to alice and bob, then more to each.
			st.mu.Lock()
			st.outbox[len(st.outbox)-1].o.Cc = []mail.Address{{Addr: "alice@pbem.local"}}
			st.mu.Unlock()
			for i := 12; i < 18; i++ {
				p := players[i%3]
				ids = append(ids, st.queue(p+"@pbem.local", fmt.Sprintf("%s %d", p, i)))
			}
			var amu sync.Mutex
			accepted := map[string]int{}
			opts := &mail.SenderOptions{Connections: 3, BatchSize: 7, Accepted: func(id string) {
				amu.Lock()
				accepted[id]++
				amu.Unlock()
			}}
			if log {
				opts.AcceptedLog = filepath.Join(t.TempDir(), "accepted.log")
			}
			_, err := newSender(t, s, st, opts).SendDue(context.Background())
			require.NoError(t, err)
			for _, id := range ids {
				assert.True(t, st.isSent(id), "reply %s recorded as sent", id)
				assert.Equal(t, 1, accepted[id], "reply %s reported accepted once", id)
			}
			want := map[string][]string{}
			for i := range 18 {
				p := players[i%3]
				want[p] = append(want[p], fmt.Sprintf("%s %d", p, i))
				if i == 11 {
					want["alice"] = append(want["alice"], "carol 11")
				}
			}
			for _, p := range players {
				pw, _ := s.Password(p)
				var got []string
				for _, raw := range fetchAll(t, s.IMAPAddr(), p+"@pbem.local", pw, "INBOX") {
					in, err := mail.Parse(raw)
					require.NoError(t, err)
					got = append(got, in.Text)
				}
				for i := range got {
					got[i] = trimText(got[i])
				}
				assert.Equal(t, want[p], got, "%s's mail, in order", p)
			}
		})
	}
}

// trimText is the first line of a mail's text.
func trimText(s string) string {
	for i, c := range s {
		if c == '\r' || c == '\n' {
			return s[:i]
		}
	}
	return s
}

// proxy forwards TCP connections to addr, counts them and can cut them.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	n     int
	conns []net.Conn
}

func newProxy(t *testing.T, addr string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.n++
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) dials() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// cut closes every connection, as a server does to idle clients.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestSenderKeepsConnections: the connections of one SendDue serve the
// next; one the server closed meanwhile is replaced, with no reply
// failing.
func TestSenderKeepsConnections(t *testing.T) {
	s := startServers(t, nil)
	p := newProxy(t, s.SMTPAddr())
	st := newStore()
	snd := newSender(t, s, st, &mail.SenderOptions{Addr: p.ln.Addr().String()})
	send := func(text string) string {
		id := st.queue("alice@pbem.local", text)
		_, err := snd.SendDue(context.Background())
		require.NoError(t, err)
		require.True(t, st.isSent(id))
		return id
	}
	send("one")
	send("two")
	assert.Equal(t, 1, p.dials(), "the second SendDue reuses the connection")
	p.cut()
	send("three")
	assert.Equal(t, 2, p.dials(), "a connection the server closed is replaced")
	assert.Zero(t, st.retryCount(), "no reply failed")
	pw, _ := s.Password("alice")
	assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), 3)
}
