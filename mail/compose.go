package mail

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"

	"pbem/mail/envelope"
)

// Inline is a part an HTML body shows (an image), named by its Content-ID:
// its Data, or a Picture the Sender draws it from (SenderOptions.Draw). It
// is the one type the application's store uses too.
type Inline = envelope.Inline

// Compose renders o as a plain-text RFC 5322 message with CRLF line endings:
// From, To, Cc, Reply-To, Subject, Date, Message-ID, In-Reply-To,
// References, Auto-Submitted and X-Auto-Response-Suppress (when
// o.AutoSubmitted is set), MIME-Version and Content-Type text/plain;
// charset=utf-8.
//
// The body is sent as 7bit when it is ASCII, else as 8bit, so every line
// arrives exactly as written, trailing spaces included (the signature
// separator "-- " survives; quoted-printable would encode its space and
// some clients then lose it). Only a body with a line longer than 998 bytes,
// which SMTP cannot carry as is, is sent as base64. Header values are
// stripped of line breaks, and non-ASCII text is RFC 2047 encoded.
//
// With o.FlowWidth the text is sent format=flowed (see flowed): its
// wrapped prose lines end in a space, its other lines lose their trailing
// spaces, and lines beginning with a space, ">" or "From " get one more.
//
// When o.HTML is set the message is multipart/alternative: the text part as
// above, then the HTML part (quoted-printable), inside a multipart/related
// with the o.Inline parts (base64, Content-Disposition inline) when there
// are any. The boundaries derive from the Message-ID and the content.
//
// When o.Calendar is set the message is multipart/mixed: the body as
// above (text, or the multipart/alternative), then the calendar as a
// text/calendar; method=PUBLISH; charset=UTF-8 part (RFC 6047), inline.
// o.Unsubscribe gives List-Unsubscribe, and List-Unsubscribe-Post when it
// has an https address (RFC 8058).
//
// Compose is deterministic: the same Outgoing gives the same bytes, provided
// o.Date is set. An inline part without Data is sent empty:
// [ComposeDrawing] draws it from its Picture.
func Compose(o *Outgoing) []byte { return ComposeDrawing(o, nil) }

// ComposeDrawing is [Compose] with the inline parts that have no Data
// drawn from their Picture by draw (when it is not nil), as the mail is
// composed: a mail whose drawing fails (an error, or no bytes) goes as
// text only, without the HTML that would show a broken image. The Sender
// composes with SenderOptions.Draw.
func ComposeDrawing(o *Outgoing, draw func(picture []byte) ([]byte, error)) []byte {
	var h gomail.Header
	date := o.Date
	if date.IsZero() {
		date = time.Now()
	}
	text, textType := o.Text, "text/plain; charset=utf-8"
	if o.FlowWidth > 0 {
		text, textType = flowed(text, o.FlowWidth), textType+"; format=flowed"
	}
	body, cte := encodeBody(text)
	ctype := textType
	o = drawInline(o, draw)
	seed := ""
	if o.HTML != "" {
		seed = boundarySeed(o, body)
		ctype = fmt.Sprintf("multipart/alternative; boundary=\"=_alt_%s\"", seed)
	}

	mixed := ""
	if o.Calendar != "" {
		mixed = mixedSeed(o, body)
	}

	// textproto writes fields in reverse order of addition.
	switch {
	case mixed != "":
		h.Set("Content-Type", fmt.Sprintf("multipart/mixed; boundary=\"=_mix_%s\"", mixed))
	case seed == "":
		h.Set("Content-Transfer-Encoding", cte)
		h.Set("Content-Type", ctype)
	default:
		h.Set("Content-Type", ctype)
	}
	h.Set("MIME-Version", "1.0")
	if u := oneLine(o.Unsubscribe); u != "" {
		if strings.Contains(u, "<https://") {
			h.Set("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
		}
		h.Set("List-Unsubscribe", u)
	}
	if a := oneLine(o.AutoSubmitted); a != "" {
		// RFC 3834 for robots that read it; Exchange reads only its own
		// field, which asks it to send no out-of-office or delivery
		// reports back.
		h.Set("X-Auto-Response-Suppress", "All")
		h.Set("Auto-Submitted", a)
	}
	if len(o.References) > 0 {
		h.Set("References", msgIDs(o.References))
	}
	if o.InReplyTo != "" {
		h.Set("In-Reply-To", msgIDs([]string{o.InReplyTo}))
	}
	if o.MessageID != "" {
		h.Set("Message-Id", msgIDs([]string{o.MessageID}))
	}
	h.Set("Date", date.Format("Mon, 02 Jan 2006 15:04:05 -0700"))
	h.Set("Subject", mime.QEncoding.Encode("utf-8", oneLine(o.Subject)))
	if o.ReplyTo != nil {
		h.Set("Reply-To", formatAddress(*o.ReplyTo))
	}
	if len(o.Cc) > 0 {
		h.Set("Cc", formatAddresses(o.Cc))
	}
	h.Set("To", formatAddresses(o.To))
	h.Set("From", formatAddress(o.From))

	// room for the header and everything after it, grown once: the
	// inline parts in base64 (4 characters for 3 bytes, lines of 76 and
	// CRLF) with their headers
	size := 1024 + len(body) + len(o.Calendar)
	if seed != "" {
		size += 2*len(o.HTML) + 512
		for _, in := range o.Inline {
			size += (len(in.Data)+2)/3*4 + (len(in.Data)/57+1)*2 + 256 + len(in.Filename) + len(in.ContentID)
		}
	}
	var buf bytes.Buffer
	buf.Grow(size)
	if err := writeHeader(&buf, h); err != nil {
		// Only invalid UTF-8 in header keys fails, and ours are constants.
		panic("mail: Compose: " + err.Error())
	}
	if mixed != "" {
		fmt.Fprintf(&buf, "This is a message in MIME format: the mail, then its event for a calendar.\r\n\r\n--=_mix_%s\r\n", mixed)
		if seed == "" {
			fmt.Fprintf(&buf, "Content-Type: %s\r\nContent-Transfer-Encoding: %s\r\n\r\n", ctype, cte)
		} else {
			fmt.Fprintf(&buf, "Content-Type: %s\r\n\r\n", ctype)
		}
	}
	if seed == "" {
		buf.Write(body)
	} else {
		alternative(&buf, o, body, cte, textType, seed)
	}
	if mixed != "" {
		calendarPart(&buf, o.Calendar, mixed)
	}
	return buf.Bytes()
}

// mixedSeed is what the boundary of a multipart/mixed message with a
// calendar part derives from: its Message-ID, content and calendar.
func mixedSeed(o *Outgoing, text []byte) string {
	sum := sha256.New()
	io.WriteString(sum, "mixed\x00"+o.MessageID)
	sum.Write(text)
	io.WriteString(sum, o.HTML)
	io.WriteString(sum, o.Calendar)
	return hex.EncodeToString(sum.Sum(nil))[:24]
}

// calendarPart ends a multipart/mixed message (boundary "=_mix_"+seed)
// with cal as its text/calendar part. An iCalendar object's lines are at
// most 75 octets and end in CRLF (RFC 5545 3.1), so it goes as it is:
// 7bit when ASCII, else 8bit; a bare LF becomes CRLF.
func calendarPart(b *bytes.Buffer, cal, seed string) {
	cal = strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(cal, "\uFFFD"), "\r\n", "\n"), "\n", "\r\n")
	if !strings.HasSuffix(cal, "\r\n") {
		cal += "\r\n"
	}
	cte := "7bit"
	for i := 0; i < len(cal); i++ {
		if cal[i] >= 0x80 {
			cte = "8bit"
			break
		}
	}
	// the CRLF before a boundary is the delimiter's (RFC 2046 5.1.1)
	fmt.Fprintf(b, "\r\n--=_mix_%s\r\nContent-Type: text/calendar; method=PUBLISH; charset=UTF-8\r\nContent-Transfer-Encoding: %s\r\n", seed, cte)
	b.WriteString("Content-Disposition: inline; filename=\"deadline.ics\"\r\n\r\n")
	b.WriteString(cal)
	fmt.Fprintf(b, "\r\n--=_mix_%s--\r\n", seed)
}

// drawInline returns o with the Data of its inline parts drawn from their
// Picture, or o as text only when a drawing fails (its HTML would show a
// broken image). o itself is not changed.
func drawInline(o *Outgoing, draw func(picture []byte) ([]byte, error)) *Outgoing {
	if draw == nil || !slices.ContainsFunc(o.Inline, func(in Inline) bool { return in.Data == nil }) {
		return o
	}
	c := *o
	c.Inline = slices.Clone(o.Inline)
	for i := range c.Inline {
		in := &c.Inline[i]
		if in.Data != nil {
			continue
		}
		data, err := draw(in.Picture)
		if err != nil || data == nil {
			c.HTML, c.Inline = "", nil
			return &c
		}
		in.Data = data
	}
	return &c
}

// boundarySeed is what the boundaries of a multipart/alternative
// message with text (the text part, encoded) derive from: its
// Message-ID and content.
func boundarySeed(o *Outgoing, text []byte) string {
	sum := sha256.New()
	io.WriteString(sum, o.MessageID)
	sum.Write(text)
	io.WriteString(sum, o.HTML)
	for _, in := range o.Inline {
		sum.Write(in.Data)
	}
	return hex.EncodeToString(sum.Sum(nil))[:24]
}

// alternative writes to b the body of a multipart/alternative message
// whose boundaries derive from seed: the text part (text, already encoded
// as cte), then the HTML part with its inline parts.
func alternative(b *bytes.Buffer, o *Outgoing, text []byte, cte, textType, seed string) {
	outer, inner := "=_alt_"+seed, "=_rel_"+seed
	b.WriteString("This is a message in MIME format: a text part and an HTML part.\r\n")
	fmt.Fprintf(b, "\r\n--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: %s\r\n\r\n", outer, textType, cte)
	b.Write(text)
	fmt.Fprintf(b, "\r\n--%s\r\n", outer)
	if len(o.Inline) > 0 {
		fmt.Fprintf(b, "Content-Type: multipart/related; boundary=\"%s\"; type=\"text/html\"\r\n\r\n--%s\r\n", inner, inner)
	}
	b.WriteString("Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(b)
	html := strings.ReplaceAll(strings.ToValidUTF8(o.HTML, "\uFFFD"), "\r\n", "\n")
	qp.Write([]byte(strings.ReplaceAll(html, "\n", "\r\n")))
	qp.Close()
	b.WriteString("\r\n")
	for _, in := range o.Inline {
		ct := oneLine(in.ContentType)
		if ct == "" {
			ct = "application/octet-stream"
		}
		fmt.Fprintf(b, "--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: base64\r\nContent-ID: %s\r\n", inner, ct, msgIDs([]string{in.ContentID}))
		if in.Filename != "" {
			fmt.Fprintf(b, "Content-Disposition: inline; filename=\"%s\"\r\n", strings.NewReplacer(`"`, "", `\\`, "").Replace(oneLine(in.Filename)))
		} else {
			b.WriteString("Content-Disposition: inline\r\n")
		}
		b.WriteString("\r\n")
		// lines of 76 characters, 57 bytes each, encoded in place
		for data := in.Data; ; data = data[57:] {
			line := data[:min(57, len(data))]
			b.Write(base64.StdEncoding.AppendEncode(b.AvailableBuffer(), line))
			b.WriteString("\r\n")
			if len(data) <= 57 {
				break
			}
		}
	}
	if len(o.Inline) > 0 {
		fmt.Fprintf(b, "--%s--\r\n", inner)
	}
	fmt.Fprintf(b, "--%s--\r\n", outer)
}

// flowed writes text as format=flowed (RFC 3676, without DelSp): a line
// that was wrapped at width (the next line's first word would not have
// fitted on it) ends in a space, a soft break that a reader may re-flow;
// every other line is a hard break, its trailing spaces dropped, but the
// signature separator "-- "; a line beginning with a space, ">" or "From "
// is space-stuffed. Indented lines (boards, tables) are never joined, nor
// joined to.
func flowed(text string, width int) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "-- " {
			continue
		}
		l = strings.TrimRight(l, " ")
		if i+1 < len(lines) {
			next := lines[i+1]
			word, _, _ := strings.Cut(next, " ")
			if l != "" && word != "" && next != "-- " && !strings.HasPrefix(l, " ") &&
				utf8.RuneCountInString(l)+1+utf8.RuneCountInString(word) > width {
				l += " "
			}
		}
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, ">") || strings.HasPrefix(l, "From ") {
			l = " " + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// encodeBody returns the body with CRLF line endings, ending in CRLF, and its
// Content-Transfer-Encoding.
func encodeBody(text string) ([]byte, string) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.ReplaceAll(text, "\x00", "")
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	ascii, long := true, false
	for _, l := range lines {
		if len(l) > 998 {
			long = true
		}
		for i := 0; i < len(l); i++ {
			if l[i] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
	}
	if long {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Join(lines, "\r\n") + "\r\n"))
		var b strings.Builder
		for len(enc) > 76 {
			b.WriteString(enc[:76])
			b.WriteString("\r\n")
			enc = enc[76:]
		}
		b.WriteString(enc)
		b.WriteString("\r\n")
		return []byte(b.String()), "base64"
	}
	body := []byte(strings.Join(lines, "\r\n") + "\r\n")
	if ascii {
		return body, "7bit"
	}
	return body, "8bit"
}

// oneLine removes line breaks and control characters from a header value.
func oneLine(s string) string { return envelope.OneLine(s) }

func formatAddress(a Address) string { return a.String() }

func formatAddresses(list []Address) string {
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = formatAddress(a)
	}
	return strings.Join(parts, ", ")
}

// msgIDs formats identifiers as "<a> <b>", dropping characters that cannot
// appear in one.
func msgIDs(ids []string) string {
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.Map(func(r rune) rune {
			if r <= ' ' || r == '<' || r == '>' || r == 0x7f {
				return -1
			}
			return r
		}, id)
		if id != "" {
			parts = append(parts, "<"+id+">")
		}
	}
	return strings.Join(parts, " ")
}

// NewMessageID returns a fresh Message-ID (without angle brackets) for the
// given domain: 24 random hex digits, "@", domain. Create it once, when the
// reply is created, and store it with the reply.
func NewMessageID(domain string) string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	if domain == "" {
		domain = "localhost"
	}
	return hex.EncodeToString(b[:]) + "@" + domain
}

func writeHeader(buf *bytes.Buffer, h gomail.Header) error {
	return textproto.WriteHeader(buf, h.Header.Header)
}
