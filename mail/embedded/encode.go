package embedded

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"
	"unicode/utf8"
)

// A record's JSON is written by hand, byte for byte what encoding/json
// writes for it (encode_test.go holds the two together): encoding/json's
// reflection took about as long as the rest of a delivery's journaling.
// Records are read back with encoding/json, so journals written before,
// and by this code, replay alike, and one written now replays in an
// older version too.

// appendFrame appends rec framed as a journal record (length, CRC-32,
// JSON, a zero byte, the message's bytes) to buf.
func appendFrame(buf []byte, rec *record) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf, err := appendRecordJSON(buf, rec)
	if err != nil {
		return buf[:start], err
	}
	buf = append(buf, 0)
	buf = append(buf, rec.raw...)
	size := len(buf) - start - 8
	if size > maxRecord {
		return buf[:start], fmt.Errorf("embedded: journal record of %d bytes; the most is %d", size, maxRecord)
	}
	binary.BigEndian.PutUint32(buf[start:], uint32(size))
	binary.BigEndian.PutUint32(buf[start+4:], crc32.ChecksumIEEE(buf[start+8:]))
	return buf, nil
}

// appendRecordJSON appends json.Marshal(rec) to b.
func appendRecordJSON(b []byte, rec *record) ([]byte, error) {
	start := len(b)
	b = append(b, `{"op":`...)
	b = appendJSONString(b, rec.Op)
	if rec.Acct != "" {
		b = append(b, `,"acct":`...)
		b = appendJSONString(b, rec.Acct)
	}
	b = append(b, `,"mailbox":`...)
	b = appendJSONString(b, rec.Mailbox)
	if rec.Dest != "" {
		b = append(b, `,"dest":`...)
		b = appendJSONString(b, rec.Dest)
	}
	if len(rec.UIDs) > 0 {
		b = append(b, `,"uids":[`...)
		for i, r := range rec.UIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Start":`...)
			b = strconv.AppendUint(b, uint64(r.Start), 10)
			b = append(b, `,"Stop":`...)
			b = strconv.AppendUint(b, uint64(r.Stop), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(rec.Flags) > 0 {
		b = appendJSONStrings(append(b, `,"flags":`...), rec.Flags)
	}
	if rec.StoreOp != 0 {
		b = append(b, `,"store_op":`...)
		b = strconv.AppendInt(b, int64(rec.StoreOp), 10)
	}
	if !rec.Time.IsZero() {
		b = append(b, `,"time":"`...)
		t0 := len(b)
		b = rec.Time.AppendFormat(b, time.RFC3339Nano)
		if !strictRFC3339(b[t0:]) {
			// a time JSON refuses, or writes otherwise: its error
			meta, err := json.Marshal(rec)
			return append(b[:start], meta...), err
		}
		b = append(b, '"')
	}
	if rec.At != nil {
		b = append(b, `,"at":`...)
		b = strconv.AppendInt(b, *rec.At, 10)
	}
	if rec.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, rec.Key)
	}
	if len(rec.Keys) > 0 {
		b = appendJSONStrings(append(b, `,"keys":`...), rec.Keys)
	}
	return append(b, '}'), nil
}

// strictRFC3339 reports whether t, a time as AppendFormat(RFC3339Nano)
// writes it, is one time.Time.MarshalJSON takes: a year of four digits,
// a zone offset of whole minutes under 24 hours.
func strictRFC3339(t []byte) bool {
	if len(t) < len("2006-01-02T15:04:05Z") || t[4] != '-' {
		return false
	}
	if t[len(t)-1] == 'Z' {
		return true
	}
	z := t[len(t)-len("-07:00"):]
	return (z[0] == '+' || z[0] == '-') && z[3] == ':' && (z[1]-'0')*10+(z[2]-'0') < 24
}

// appendJSONStrings appends ss as encoding/json writes a list of strings.
func appendJSONStrings[S ~string](b []byte, ss []S) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, string(s))
	}
	return append(b, ']')
}

// appendJSONString appends s as encoding/json writes a string (HTML
// characters escaped, invalid UTF-8 as U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
