package mail

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Address is a mailbox: a display name (possibly empty) and an address.
type Address struct {
	Name string
	Addr string
}

// String formats a as it would appear in a header field, e.g.
// `"Alice" <alice@example.org>`.
func (a Address) String() string {
	return formatAddress(a)
}

// Inbound is a parsed inbound message.
type Inbound struct {
	// From is the author (the first address of the From field).
	From Address
	// ReplyTo is the Reply-To field, if any.
	ReplyTo []Address
	// To and Cc are the visible recipients.
	To, Cc []Address
	// DeliveredTo is the address the message reached this mailbox at,
	// taken from Delivered-To, else X-Original-To, else the first To (or
	// Cc) address. It keeps any plus-detail, e.g. referee+12.k7x9q@host.
	DeliveredTo string
	// Subject is the decoded subject (RFC 2047 words decoded).
	Subject string
	// MessageID, InReplyTo and References hold message identifiers without
	// angle brackets.
	MessageID  string
	InReplyTo  string
	References []string
	// Date is the Date field; zero if absent or unreadable.
	Date time.Time
	// Text is the plain-text body in UTF-8 with LF line endings: the
	// text/plain part, else the HTML part converted to text.
	Text string
	// Raw is the message as received.
	Raw []byte

	// Header facts that tell automatic mail apart (RFC 3834): the values of
	// Auto-Submitted and Precedence (lower case, "" when absent), whether an
	// X-Autoreply or X-Autorespond field or a List-Id is present, whether the
	// envelope sender (Return-Path) is null (<>), and the top-level media
	// type ("multipart/report" for a bounce).
	AutoSubmitted string
	Precedence    string
	XAutoreply    bool
	ListID        bool
	NullSender    bool
	ContentType   string

	// UID, UIDValidity and Mailbox say where the poller found the message;
	// zero for a message given to Parse directly.
	UID         uint32
	UIDValidity uint32
	Mailbox     string
	// Received is the server's INTERNALDATE (delivery time), if known.
	Received time.Time
}

// Key returns a stable identifier for deduplication: "<message-id>" when
// the message has a Message-ID, otherwise "sha256:" and the hex SHA-256 of
// the raw message.
func (m *Inbound) Key() string {
	if m.MessageID != "" {
		return "<" + m.MessageID + ">"
	}
	sum := sha256.Sum256(m.Raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Outgoing is a reply in the outbox. Every field is fixed when the reply is
// created, so a retried delivery sends the same bytes (see [Compose]).
type Outgoing struct {
	// ID identifies the outbox row; it is opaque to this package.
	ID string
	// From is the author; its address is also the SMTP envelope sender.
	From Address
	// To and Cc are the recipients (the SMTP envelope recipients too).
	To, Cc []Address
	// ReplyTo, if set, is where replies should go (e.g. a plus-address
	// that routes the answer to one game).
	ReplyTo *Address
	Subject string
	// Date is the creation time. Compose uses the current time if it is
	// zero, which makes retries differ in this field: set it.
	Date time.Time
	// MessageID, without angle brackets, is fixed by the caller at creation
	// (see [NewMessageID]); it is what lets a duplicate be recognised.
	MessageID  string
	InReplyTo  string
	References []string
	// Text is the body: UTF-8 text, lines separated by LF or CRLF.
	Text string
	// Attempts is the number of failed delivery attempts so far, as kept by
	// the outbox; the Sender uses it for backoff and to give up on
	// permanent failures.
	Attempts int
}

// Recipients returns the envelope recipients of o: To then Cc.
func (o *Outgoing) Recipients() []string {
	rcpts := make([]string, 0, len(o.To)+len(o.Cc))
	for _, a := range o.To {
		rcpts = append(rcpts, a.Addr)
	}
	for _, a := range o.Cc {
		rcpts = append(rcpts, a.Addr)
	}
	return rcpts
}
