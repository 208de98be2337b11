package embedded

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recent forgets the oldest deliveries first, and a key given twice
// takes one place.
func TestRecentForgetsOldestFirst(t *testing.T) {
	r := newRecent()
	key := func(i int) string { return deliveryKey("referee@pbem.local", "alice", strconv.Itoa(i)+"@x") }
	for i := range recentDeliveries {
		r.add(key(i))
		r.add(key(i))
	}
	assert.True(t, r.has(key(0)))
	assert.True(t, r.has(key(recentDeliveries-1)))
	r.add(key(recentDeliveries))
	assert.False(t, r.has(key(0)), "the oldest is forgotten")
	assert.True(t, r.has(key(1)))
	assert.True(t, r.has(key(recentDeliveries)))
	assert.Len(t, r.set, recentDeliveries)
	var none *recent
	none.add(key(1))
	assert.False(t, none.has(key(1)))
}

func TestHeaderMessageID(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"From: a@b\r\nMessage-ID: <x@y>\r\n\r\nbody", "<x@y>"},
		{"message-id:   <x@y>  \nSubject: s\n\n", "<x@y>"},
		{"Subject: s\r\n\r\nMessage-ID: <in@body>\r\n", ""},
		{"Subject: s", ""},
		{"", ""},
	} {
		t.Run(c.raw, func(t *testing.T) { assert.Equal(t, c.want, headerMessageID([]byte(c.raw))) })
	}
}
