package mail

import (
	"errors"
	"testing"
)

// TestForSender: the reply to an unreadable message speaks the sender's
// language, never an internal message such as "text longer than 1000000
// bytes".
func TestForSender(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&ParseError{Reason: "text longer than 1048576 bytes"}, "the text of your message is longer than 1 MiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "text longer than 1000000 bytes"}, "the text of your message is longer than 976 KiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "message larger than 10485760 bytes"}, "your message is larger than 10 MiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "message larger than 32000000 bytes"}, "your message is larger than 30.5 MiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "message of 10276044 bytes is larger than 10485760 bytes"}, "your message is 9.8 MiB, larger than 10 MiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "message of 400014 bytes is larger than 50000 bytes"}, "your message is 390 KiB, larger than 48 KiB, the most the referee reads; send your commands in a short plain-text mail"},
		{&ParseError{Reason: "more than 256 MIME parts"}, "your message has more than 256 parts (attachments); send your commands in a plain-text mail without attachments"},
		{&ParseError{Reason: "MIME parts nested deeper than 16"}, "your message nests parts (forwards or attachments) more than 16 deep; send your commands in a plain-text mail"},
		{&ParseError{Reason: "missing From"}, "its From line is missing or not a mail address, so the referee cannot tell who sent it"},
		{&ParseError{Reason: `malformed From "x"`, Err: errors.New("mail: no angle-addr")}, "its From line is missing or not a mail address, so the referee cannot tell who sent it"},
		{&ParseError{Reason: "undecodable text/plain part", Err: errors.New("illegal base64 data at input byte 3")}, "its structure or encoding is damaged (undecodable text/plain part), so the referee cannot read its text; send your commands in a plain-text mail"},
		{errors.New("boom"), "the referee could not read it as a mail message"},
	} {
		if got := ForSender(c.err); got != c.want {
			t.Errorf("ForSender(%v) =\n%q, want\n%q", c.err, got, c.want)
		}
	}
}
