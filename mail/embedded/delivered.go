package embedded

import (
	"bytes"
	"strings"
	"sync"
)

// recentDeliveries is how many SMTP deliveries Servers.Delivered remembers.
// A client asks about the messages it was sending when it stopped, which
// are among the last the servers delivered before the journal's end.
const recentDeliveries = 1 << 14

// recent remembers the keys (deliveryKey) of the last recentDeliveries
// deliveries made over SMTP, live and replayed from the journal, oldest
// forgotten first.
type recent struct {
	mu   sync.Mutex
	set  map[string]struct{}
	ring []string
	next int
}

func newRecent() *recent {
	return &recent{set: make(map[string]struct{}, recentDeliveries), ring: make([]string, recentDeliveries)}
}

func (r *recent) add(key string) {
	if r == nil || key == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.set[key]; ok {
		return
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.set, old)
	}
	r.ring[r.next] = key
	r.set[key] = struct{}{}
	r.next = (r.next + 1) % len(r.ring)
}

func (r *recent) has(key string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.set[key]
	return ok
}

// deliveryKey names an SMTP delivery by envelope sender (lower case), the
// recipient's local part and the message's Message-ID (without angle
// brackets); "" when the message has no Message-ID.
func deliveryKey(from, local, messageID string) string {
	messageID = strings.TrimSpace(messageID)
	messageID = strings.TrimSuffix(strings.TrimPrefix(messageID, "<"), ">")
	if messageID == "" {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(from)) + "\x00" + local + "\x00" + messageID
}

// Delivered reports whether the SMTP server delivered a message with the
// given Message-ID from the envelope sender from to rcpt, among its last
// few thousand deliveries, including those before a restart (with
// Options.Dir; without it, nothing is remembered). A client that stopped
// while sending (its process was killed between the server's 250 and its
// own note of it) asks it, after a restart, whether the message is there
// before it sends it again: mail.SenderOptions.Delivered.
func (s *Servers) Delivered(from, rcpt, messageID string) bool {
	local, ok := s.local(rcpt)
	if !ok {
		return false
	}
	key := deliveryKey(from, local, messageID)
	return key != "" && s.recent.has(key)
}

// headerMessageID returns the Message-ID field of raw's header ("" if it
// has none), reading no further than the header's end. It is for
// Servers.Deliver, which parses nothing else; the SMTP session takes it
// from the header it parses anyway.
func headerMessageID(raw []byte) string {
	for len(raw) > 0 {
		line := raw
		rest := []byte(nil)
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, rest = raw[:i], raw[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return "" // the end of the header
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(bytes.TrimSpace(name)), "Message-Id") {
			return string(bytes.TrimSpace(value))
		}
		raw = rest
	}
	return ""
}
