package mail

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // registers charset decoders
	gomail "github.com/emersion/go-message/mail"
)

const (
	maxDepth = 16   // nesting depth of multiparts
	maxParts = 256  // parts in one message
	maxText  = 1e6  // bytes of decoded text kept
	maxRaw   = 32e6 // bytes of raw message accepted
)

// Parse parses a raw RFC 5322 message. It decodes RFC 2047 header words,
// transfer encodings (quoted-printable, base64) and charsets, and extracts
// the plain-text body: within multipart/alternative the text/plain part is
// preferred, otherwise HTML is converted to text; attachments and embedded
// messages are skipped.
//
// A message that cannot be parsed (malformed header or MIME structure, a bad
// transfer encoding, no From address) gives a [*ParseError], which is
// permanent. Even then Parse returns a non-nil *Inbound holding Raw and
// whatever header fields could be read, so that the caller can still reply
// to the sender.
func Parse(raw []byte) (*Inbound, error) {
	in := &Inbound{Raw: raw}
	if len(raw) > maxRaw {
		return in, &ParseError{Reason: fmt.Sprintf("message larger than %d bytes", int(maxRaw))}
	}
	e, err := message.Read(bytes.NewReader(raw))
	if e == nil {
		return in, &ParseError{Reason: "malformed header", Err: err}
	}
	perr := readHeader(in, gomail.Header{Header: e.Header})
	if err != nil && !message.IsUnknownCharset(err) {
		return in, &ParseError{Reason: "unknown transfer encoding", Err: err}
	}
	p := &textParts{}
	if err := p.walk(e, 0); err != nil {
		return in, err
	}
	in.Text = p.result()
	if perr != nil {
		return in, perr
	}
	return in, nil
}

// readHeader fills in the header fields of in. It returns a *ParseError if
// the message has no usable From address; other unreadable fields are kept
// raw or left empty.
func readHeader(in *Inbound, h gomail.Header) error {
	in.Subject = clean(decodeText(h.Get("Subject")))
	in.AuthResults = h.Values("Authentication-Results")
	if id, err := h.MessageID(); err == nil {
		in.MessageID = id
	} else {
		in.MessageID = looseMsgID(h.Get("Message-Id"))
	}
	if ids := msgIDList(h, "In-Reply-To"); len(ids) > 0 {
		in.InReplyTo = ids[0]
	}
	in.References = msgIDList(h, "References")
	// the form nearly every client writes, read at once; any other
	// through net/mail, which tries a dozen layouts, each failure an error
	// made and dropped
	if d, err := time.Parse(time.RFC1123Z, h.Get("Date")); err == nil {
		in.Date = d
	} else if d, err := h.Date(); err == nil {
		in.Date = d
	}
	in.To = addressList(h, "To")
	in.Cc = addressList(h, "Cc")
	in.ReplyTo = addressList(h, "Reply-To")
	for _, key := range []string{"Delivered-To", "X-Original-To"} {
		if v := h.Get(key); v != "" {
			in.DeliveredTo = bareAddr(v)
			break
		}
	}
	if in.DeliveredTo == "" {
		if len(in.To) > 0 {
			in.DeliveredTo = in.To[0].Addr
		} else if len(in.Cc) > 0 {
			in.DeliveredTo = in.Cc[0].Addr
		}
	}

	in.AutoSubmitted = strings.ToLower(strings.TrimSpace(firstWord(h.Get("Auto-Submitted"))))
	in.Precedence = strings.ToLower(strings.TrimSpace(h.Get("Precedence")))
	in.XAutoreply = h.Has("X-Autoreply") || h.Has("X-Autorespond")
	in.ListID = h.Has("List-Id")
	if rp := h.Get("Return-Path"); rp != "" {
		in.NullSender = strings.Trim(strings.TrimSpace(rp), "<>") == ""
	}
	if mt, _, err := h.ContentType(); err == nil {
		in.ContentType = strings.ToLower(mt)
	}

	v := h.Get("From")
	if v == "" {
		return &ParseError{Reason: "missing From"}
	}
	from, err := h.AddressList("From")
	if err != nil {
		return &ParseError{Reason: "malformed From " + quoteShort(v), Err: err}
	}
	if len(from) == 0 {
		return &ParseError{Reason: "missing From"}
	}
	in.From = Address{Name: clean(from[0].Name), Addr: clean(from[0].Address)}
	return nil
}

func decodeText(s string) string {
	dec := mime.WordDecoder{CharsetReader: message.CharsetReader}
	out, err := dec.DecodeHeader(s)
	if err != nil {
		return s
	}
	return out
}

// clean makes s valid UTF-8 on one line.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsAny(s, "\r\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return strings.TrimSpace(s)
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func addressList(h gomail.Header, key string) []Address {
	list, err := h.AddressList(key)
	if err != nil {
		// Keep what can be read one address at a time.
		for _, part := range strings.Split(h.Get(key), ",") {
			if a, err := gomail.ParseAddress(part); err == nil {
				list = append(list, a)
			}
		}
	}
	out := make([]Address, 0, len(list))
	for _, a := range list {
		out = append(out, Address{Name: clean(a.Name), Addr: clean(a.Address)})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// bareAddr extracts the address from a field such as Delivered-To, which
// normally holds a bare address but may hold "<addr>" or "Name <addr>".
func bareAddr(v string) string {
	if a, err := gomail.ParseAddress(v); err == nil {
		return clean(a.Address)
	}
	v = strings.TrimSpace(v)
	if i := strings.LastIndexByte(v, '<'); i >= 0 {
		v = v[i+1:]
		if j := strings.IndexByte(v, '>'); j >= 0 {
			v = v[:j]
		}
	}
	return clean(v)
}

func msgIDList(h gomail.Header, key string) []string {
	if ids, err := h.MsgIDList(key); err == nil {
		return ids
	}
	var ids []string
	for _, f := range strings.Fields(h.Get(key)) {
		if id := looseMsgID(f); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// looseMsgID salvages an identifier from a malformed Message-ID field.
func looseMsgID(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		v = v[i+1:]
		if j := strings.IndexByte(v, '>'); j >= 0 {
			v = v[:j]
		}
	}
	return strings.Join(strings.Fields(clean(v)), "")
}

// textParts collects the text of a MIME tree.
type textParts struct {
	plain, html []string
	parts       int
	size        int
}

func (p *textParts) result() string {
	if len(p.plain) > 0 {
		return strings.Join(p.plain, "\n")
	}
	return strings.Join(p.html, "\n")
}

// walk visits e. Within multipart/alternative it keeps the text/plain
// alternative if there is one, else the HTML one.
func (p *textParts) walk(e *message.Entity, depth int) error {
	p.parts++
	if p.parts > maxParts {
		return &ParseError{Reason: fmt.Sprintf("more than %d MIME parts", maxParts)}
	}
	if depth > maxDepth {
		return &ParseError{Reason: fmt.Sprintf("MIME parts nested deeper than %d", maxDepth)}
	}
	mediaType, params, err := e.Header.ContentType()
	if err != nil {
		if e.Header.Get("Content-Type") != "" && strings.HasPrefix(strings.ToLower(strings.TrimSpace(e.Header.Get("Content-Type"))), "multipart/") {
			return &ParseError{Reason: "malformed Content-Type " + quoteShort(e.Header.Get("Content-Type")), Err: err}
		}
		mediaType = "text/plain" // RFC 2045 default; be lenient
	}
	if mediaType == "" {
		mediaType = "text/plain"
	}
	disp, _, _ := e.Header.ContentDisposition()
	attachment := strings.EqualFold(disp, "attachment")

	if mr := e.MultipartReader(); mr != nil {
		if params["boundary"] == "" {
			return &ParseError{Reason: "multipart without boundary"}
		}
		alternative := mediaType == "multipart/alternative"
		var alts []*textParts
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if part == nil {
				return &ParseError{Reason: "broken " + mediaType + " structure", Err: err}
			}
			if err != nil && !message.IsUnknownCharset(err) {
				return &ParseError{Reason: "part with unknown transfer encoding", Err: err}
			}
			if alternative {
				sub := &textParts{parts: p.parts, size: p.size}
				if err := sub.walk(part, depth+1); err != nil {
					return err
				}
				p.parts, p.size = sub.parts, sub.size
				alts = append(alts, sub)
			} else if err := p.walk(part, depth+1); err != nil {
				return err
			}
		}
		if alternative {
			p.pickAlternative(alts)
		}
		return nil
	}

	switch {
	case attachment, !strings.HasPrefix(mediaType, "text/"):
		// Skip the body, but check that it decodes.
		if _, err = io.Copy(io.Discard, e.Body); err != nil {
			return bodyError(mediaType, err)
		}
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(e.Body, maxText+1))
	if err != nil {
		return bodyError(mediaType, err)
	}
	if p.size += len(body); p.size > maxText {
		return &ParseError{Reason: fmt.Sprintf("text longer than %d bytes", int(maxText))}
	}
	text := normalizeText(body)
	switch mediaType {
	case "text/html":
		p.html = append(p.html, htmlToText(text))
	case "text/plain", "text/enriched", "text/markdown":
		if strings.EqualFold(params["format"], "flowed") {
			text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
		}
		p.plain = append(p.plain, text)
	default:
		// text/calendar, text/csv and friends are attachments in disguise.
	}
	return nil
}

func bodyError(mediaType string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{Reason: "unterminated multipart (" + mediaType + " part cut short)", Err: err}
	}
	return &ParseError{Reason: "undecodable " + mediaType + " part", Err: err}
}

func (p *textParts) pickAlternative(alts []*textParts) {
	// Prefer the first alternative with plain text, then one with HTML.
	for _, a := range alts {
		if len(a.plain) > 0 {
			p.plain = append(p.plain, a.plain...)
			return
		}
	}
	for _, a := range alts {
		if len(a.html) > 0 {
			if len(p.plain) > 0 {
				p.plain = append(p.plain, a.html...)
			} else {
				p.html = append(p.html, a.html...)
			}
			return
		}
	}
}

// normalizeText makes body valid UTF-8 with LF line endings.
func normalizeText(body []byte) string {
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	s := string(body)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return s
}

// firstWord returns the text before the first ";" (Auto-Submitted may carry
// parameters: "auto-replied; owner-email=...").
func firstWord(v string) string {
	w, _, _ := strings.Cut(v, ";")
	return w
}
