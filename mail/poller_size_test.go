package mail_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

// imapProxy sits between a poller and the IMAP server: it records each
// command line the client sends and the bytes the server sent in answer
// (until the next command).
type imapProxy struct {
	ln   net.Listener
	addr string // the server's

	mu    sync.Mutex
	cmds  []string
	bytes []int64 // bytes[i] answered cmds[i]; bytes before any command are dropped
	// dropOn, if set, makes the proxy cut the connection instead of
	// passing on the first command containing it.
	dropOn string
}

func newIMAPProxy(t *testing.T, addr string) *imapProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &imapProxy{ln: ln, addr: addr}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(client)
		}
	}()
	return p
}

func (p *imapProxy) Addr() string { return p.ln.Addr().String() }

func (p *imapProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.addr)
	if err != nil {
		return
	}
	defer server.Close()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				p.mu.Lock() // counted before the client can see it
				if len(p.bytes) > 0 {
					p.bytes[len(p.bytes)-1] += int64(n)
				}
				p.mu.Unlock()
				if _, err := client.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	r := bufio.NewReader(client)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			p.mu.Lock()
			p.cmds = append(p.cmds, strings.TrimRight(line, "\r\n"))
			p.bytes = append(p.bytes, 0)
			drop := p.dropOn != "" && strings.Contains(line, p.dropOn)
			if drop {
				p.dropOn = ""
			}
			p.mu.Unlock()
			if drop {
				return
			}
			if _, err := io.WriteString(server, line); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// bodyFetches returns the FETCH commands that ask for whole bodies
// (BODY.PEEK[] without a <partial>), with the bytes of their answers.
func (p *imapProxy) bodyFetches() (cmds []string, bytes []int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.cmds {
		if strings.Contains(c, "FETCH") && strings.Contains(c, "BODY.PEEK[]") && !strings.Contains(c, "BODY.PEEK[]<") {
			cmds, bytes = append(cmds, c), append(bytes, p.bytes[i])
		}
	}
	return cmds, bytes
}

// total returns the bytes the server sent.
func (p *imapProxy) total() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, b := range p.bytes {
		n += b
	}
	return n
}

// bigMove returns a message from bob of about size bytes.
func bigMove(id string, size int) []byte {
	var b strings.Builder
	b.WriteString(fmt.Sprintf("From: Bob <bob@pbem.local>\r\nTo: referee@pbem.local\r\nSubject: game 12\r\nMessage-ID: <%s>\r\n\r\ne4\r\n", id))
	for b.Len() < size {
		b.WriteString(strings.Repeat("x", 76) + "\r\n")
	}
	return []byte(b.String())
}

// A message larger than MaxMessageBytes is rejected by its RFC822.SIZE: its
// body is never fetched, its sender is told the size and the limit.
func TestPollerOversizeNotFetched(t *testing.T) {
	s := startServers(t, nil)
	proxy := newIMAPProxy(t, s.IMAPAddr())
	const limit = 50000
	big := bigMove("big-1@pbem.local", 400000)
	require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, big))
	small, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))

	rec := newRecorder(nil)
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.Addr = proxy.Addr()
	opts.MaxMessageBytes = limit
	opts.Rejecter = rej
	runPoller(t, opts, rec)

	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 1 }, "not moved to Rejected")
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not processed")
	require.Equal(t, 1, rec.calls())
	assert.Equal(t, small, rec.last().MessageID)
	require.Equal(t, 1, rej.len())
	assert.Equal(t, "bob@pbem.local", rej.got[0].From.Addr, "the sender is known, so a reply can be sent")
	assert.Equal(t, "big-1@pbem.local", rej.got[0].MessageID)
	var perr *mail.ParseError
	require.ErrorAs(t, rej.reasons[0], &perr)
	var size, max int
	_, err := fmt.Sscanf(perr.Reason, "message of %d bytes is larger than %d bytes", &size, &max)
	require.NoError(t, err, "reason %q", perr.Reason)
	assert.GreaterOrEqual(t, size, len(big), "the reason says the size (as delivered, with the server's fields)")
	assert.Equal(t, limit, max, "the reason says the limit")
	assert.Less(t, proxy.total(), int64(len(big)/2), "the server sent the big message's body")
}

// A batch of messages each under MaxMessageBytes but together over
// MaxBatchBytes is fetched and handled in parts, each under the bound.
func TestPollerBatchFetchedInParts(t *testing.T) {
	s := startServers(t, nil)
	proxy := newIMAPProxy(t, s.IMAPAddr())
	const each, limit, batchLimit = 30000, 50000, 100000
	var ids []string
	for i := range 7 {
		id := fmt.Sprintf("part-%d@pbem.local", i)
		ids = append(ids, id)
		require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, bigMove(id, each)))
	}
	b := &batcher{fn: func(*mail.Inbound) error { return nil }}
	opts := fastPoller(t, s)
	opts.Addr = proxy.Addr()
	opts.MaxMessageBytes = limit
	opts.MaxBatchBytes = batchLimit
	runPoller(t, opts, b)

	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 7 }, "not all processed")
	cmds, bytes := proxy.bodyFetches()
	require.NotEmpty(t, cmds)
	for i, c := range cmds {
		assert.LessOrEqual(t, bytes[i], int64(batchLimit+4000), "answer to %q", c)
	}
	assert.GreaterOrEqual(t, len(cmds), 3, "bodies fetched in %d commands: %q", len(cmds), cmds)
	var got []string
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, batch := range b.batches {
		assert.LessOrEqual(t, len(batch), batchLimit/each, "batch %v", batch)
		got = append(got, batch...)
	}
	got = append(got, b.singles...)
	assert.ElementsMatch(t, ids, got)
}

// The connection breaks after a message too large to read was rejected
// and before it was moved: on the next connection it is recognised from
// its head (not fetched whole), and moved without a second rejection.
func TestPollerOversizeMovedAfterReconnect(t *testing.T) {
	s := startServers(t, nil)
	proxy := newIMAPProxy(t, s.IMAPAddr())
	proxy.dropOn = "MOVE"
	for i, id := range []string{"big-1@pbem.local", ""} {
		big := bigMove(id, 200000)
		if id == "" { // no Message-ID: the key is a hash of the head
			big = []byte(strings.Replace(string(big), "Message-ID: <>\r\n", "", 1))
		}
		require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, big), "message %d", i)
	}
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.Addr = proxy.Addr()
	opts.MaxMessageBytes = 50000
	opts.Rejecter = rej
	rec := newRecorder(nil)
	runPoller(t, opts, rec)

	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 2 }, "not moved to Rejected")
	assert.Equal(t, 2, rej.len(), "each message rejected once")
	assert.Equal(t, 0, rec.calls())
	assert.Equal(t, int64(1), opts.Metrics.Reconnects.Load())
	cmds, _ := proxy.bodyFetches()
	assert.Empty(t, cmds, "whole bodies fetched")
	assert.Less(t, proxy.total(), int64(2*200000), "the server sent whole bodies")
}
