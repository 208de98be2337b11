package mail

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unflow decodes a format=flowed text/plain body (RFC 3676), as Thunderbird
// and others send by default: a line ending in a space continues on the
// next line of the same quote depth; space-stuffing is removed; with
// delsp, the trailing space is deleted when lines are joined. The signature
// separator "-- " is never joined. text has LF line endings.
func unflow(text string, delsp bool) string {
	lines := strings.Split(text, "\n")
	var out []string
	var cur strings.Builder
	curDepth, open := 0, false
	flush := func() {
		if open {
			out = append(out, strings.Repeat(">", curDepth)+prefixSpace(curDepth)+cur.String())
			cur.Reset()
			open = false
		}
	}
	for _, l := range lines {
		depth := 0
		for depth < len(l) && l[depth] == '>' {
			depth++
		}
		body := strings.TrimPrefix(l[depth:], " ") // space-stuffing
		if open && depth != curDepth {
			flush()
		}
		if body == "-- " {
			flush()
			out = append(out, strings.Repeat(">", depth)+prefixSpace(depth)+body)
			continue
		}
		flowed := strings.HasSuffix(body, " ")
		if flowed && delsp {
			body = body[:len(body)-1]
		}
		cur.WriteString(body)
		curDepth, open = depth, true
		if !flowed {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}

func prefixSpace(depth int) string {
	if depth > 0 {
		return " "
	}
	return ""
}

// FreshText returns the part of a reply's text that the sender wrote, for
// the mail that common clients write (Gmail, Apple Mail, Outlook,
// Thunderbird, K-9, mutt, Yahoo, Proton, webmail). It drops:
//
//   - quoted lines ("> ...", as [Parse] also writes the quotes of HTML
//     mail), and a line a client broke off a long quoted line without
//     quoting it (it starts in lower case, has two words or more, ends
//     with punctuation, and stands between a quoted line of 60
//     characters or more and another quoted line);
//   - the attribution that introduces a quote, found by its shape: a line
//     that holds an address and a date or a time and ends with a colon
//     (":" or "：") or with what attributions say ("wrote", "schrieb",
//     ...), also wrapped over up to three lines; or a line ending with a
//     colon that says what attributions say, or holds an address, a date
//     or a time, when a quote follows it. An attribution not followed by
//     a quote ends the fresh text, as the original follows it unmarked;
//     a "... wrote:" line with no address, date or quote after it is the
//     sender's own;
//   - everything from a marker of an original or forwarded message on:
//     "-----Original Message-----" and its translations, any
//     "----- ... -----" banner, Outlook's "________________________________"
//     rule, "Begin forwarded message:", and the header block clients put
//     above the original, found by its shape: three or more "Label: value"
//     lines in any script (a full-width colon too), one of which holds an
//     address, or a date and a time ("From: / Sent: / To: / Subject:",
//     "De : / Envoyé le : / À :", "发件人： / 发送时间： / 收件人：", ...), or
//     a From line ("From:", "De:", "Von:", ...) that holds an address; a
//     rule of dashes, underscores or equal signs right before them goes
//     with them;
//   - the signature: from a "-- " line (or a bare "--", as some clients
//     send it) on, from a client's tag line on ("Sent from my iPhone",
//     "Get Outlook for Android", "Sent with Proton Mail", "Von meinem iPhone
//     gesendet", "Envoyé de mon iPhone", ...: a short line without sentence
//     punctuation, so that "Sent from my desk, at last." is the sender's),
//     and from a short rule ("__", "====") followed by an address or a
//     link, as mailing lists add below the text.
//
// Lines keep their text (trailing spaces trimmed); runs of blank lines
// become one, and leading and trailing blank lines are dropped. The work is
// linear in the length of text.
func FreshText(text string) string {
	if len(text) > maxText {
		text = text[:maxText]
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	var from []int  // from[k] is the index in lines of out[k], -1 for a blank
	prevQuote := "" // the line before, if quoted
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimPrefix(lines[i], "\ufeff")
		t := strings.TrimSpace(raw)
		pq := prevQuote
		prevQuote = ""
		if t == "" {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
				from = append(from, -1)
			}
			continue
		}
		if isQuoted(t) {
			prevQuote = t
			continue
		}
		if pq != "" && continuesQuote(pq, t, lines[i+1:]) {
			continue
		}
		if isSignatureSeparator(raw) || isOriginalMarker(t) || isClientSignature(t) || endsText(lines, i) {
			break
		}
		if headerBlock(lines, i) {
			out, from = dropRules(out, from)
			break
		}
		if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == ">:" && strings.LastIndexByte(t, '<') > strings.LastIndexByte(t, '>') {
			t += ">:" // an address's end, taken for a quote
			i++
		}
		if endsLikeAttribution(t) {
			if k := attributionStart(t, out, from, i, startsQuote(lines[i+1:])); k >= 0 {
				out, from = out[:len(out)-k], from[:len(from)-k]
				if startsQuote(lines[i+1:]) {
					continue
				}
				break
			}
		}
		out = append(out, strings.TrimRight(raw, " \t\u00a0"))
		from = append(from, i)
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// attributionStart reports whether t, lines[i], ends an attribution that
// starts k lines before it (0, 1 or 2: the last lines of out, read from
// lines[i-k:i]), and returns k, or -1. quote tells whether a quote follows.
// A line before t belongs to the attribution when it ends with "<" (an
// address wrapped), ends with "," and holds a date or a time or starts as
// attributions do, or brings the date, time or address that the lines
// after it lack.
func attributionStart(t string, out []string, from []int, i int, quote bool) int {
	k := -1
	if isAttributionLine(t, quote) {
		k = 0
	}
	joined := t
	for j := 1; j <= 2; j++ {
		n := len(out) - j
		if n < 0 || from[n] != i-j || len(out[n]) > 200 || endsSentence(out[n]) {
			break
		}
		prev := strings.TrimSpace(out[n])
		cand := prev + " " + joined
		belongs := strings.HasSuffix(prev, "<") ||
			strings.HasSuffix(prev, ",") && (hasDateTime(prev) || startsAttribution(prev)) ||
			hasDateTime(prev) && !hasDateTime(joined) || hasAddress(prev) && !hasAddress(joined) ||
			k < 0 && startsAttribution(prev) && isAttributionLine(cand, quote)
		if !belongs {
			break
		}
		joined, k = cand, j
	}
	if k > 0 && !isAttributionLine(joined, quote) {
		return -1
	}
	return k
}

// continuesQuote reports whether t, an unquoted line right after the
// quoted line q, is the rest of q that a client broke off without quoting
// it: q is long (60 characters or more), t starts in lower case, has two
// words or more, ends with punctuation (as the rest of a sentence does,
// and a command does not: "accept draw" between two quoted lines is the
// sender's answer), and a quoted line follows it.
func continuesQuote(q, t string, rest []string) bool {
	content := strings.TrimSpace(strings.TrimLeft(q, "> "))
	if utf8.RuneCountInString(content) < 60 || len(rest) == 0 || !isQuoted(strings.TrimSpace(rest[0])) {
		return false
	}
	t = strings.TrimSpace(t)
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	return unicode.IsLower(first) && strings.ContainsAny(t, " \t") && strings.ContainsRune(".?!\"')]»”;,", last)
}

// endsSentence reports whether the line ends with sentence punctuation.
func endsSentence(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasSuffix(l, ".") || strings.HasSuffix(l, "!") || strings.HasSuffix(l, "?")
}

// isRule: a line of two or more dashes, underscores, equal signs, tildes
// or stars (not "--", the signature separator).
func isRule(t string) bool {
	return len(t) >= 2 && t != "--" && strings.Trim(t, "-_=~*") == ""
}

// dropRules drops the rules and blank lines at the end of out.
func dropRules(out []string, from []int) ([]string, []int) {
	for n := len(out); n > 0; n = len(out) {
		if t := strings.TrimSpace(out[n-1]); t != "" && !isRule(t) {
			break
		}
		out, from = out[:n-1], from[:n-1]
	}
	return out, from
}

// endsText reports whether lines[i] is a short rule followed, within the
// next three lines that are not blank, by an address or a link (a mailing
// list's footer) or a header block.
func endsText(lines []string, i int) bool {
	if !isRule(strings.TrimSpace(lines[i])) {
		return false
	}
	seen := 0
	for j := i + 1; j < len(lines) && j <= i+6 && seen < 3; j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		seen++
		if hasAddress(t) || strings.Contains(t, "http://") || strings.Contains(t, "https://") || headerBlock(lines, j) {
			return true
		}
	}
	return false
}

// isQuoted: "> quoted", also indented.
func isQuoted(t string) bool { return strings.HasPrefix(t, ">") }

// isSignatureSeparator: "-- " (RFC 3676), or "--" as some clients and
// quoted-printable round trips leave it.
func isSignatureSeparator(raw string) bool {
	return raw == "-- " || strings.TrimSpace(raw) == "--"
}

// forwardIntros are the lines (lower case, without the final colon) that
// introduce a forwarded message in Apple Mail and others.
var forwardIntros = []string{
	"begin forwarded message", "anfang der weitergeleiteten nachricht", "début du message réexpédié",
	"début du message transféré", "inicio del mensaje reenviado", "inizio messaggio inoltrato",
	"begin doorgestuurd bericht", "início da mensagem reencaminhada", "começo da mensagem encaminhada",
	"vidarebefordrat mejl", "start på videresendt besked", "videresendt besked", "videresendt melding",
	"välitetty viesti alkaa",
}

// isOriginalMarker reports a line after which the original or forwarded
// message follows.
func isOriginalMarker(t string) bool {
	if len(t) >= 10 && strings.Trim(t, "_") == "" {
		return true // Outlook's rule
	}
	if strings.HasPrefix(t, "---") && strings.HasSuffix(t, "---") {
		inner := strings.TrimSpace(strings.Trim(t, "-"))
		return len(inner) >= 3 && len(inner) <= 60 && strings.IndexFunc(inner, unicode.IsLetter) >= 0
	}
	if len(t) > 80 || !strings.HasSuffix(t, ":") {
		return false
	}
	l := strings.TrimSpace(strings.TrimSuffix(strings.ToLower(t), ":"))
	return slices.Contains(forwardIntros, l)
}

// clientSignatures start the tag lines clients add below the text (lower
// case).
var clientSignatures = []string{
	"sent from ", "sent from my ", "sent from outlook", "sent from mail", "obtener outlook para ", "obtenha o outlook para ", "ottieni outlook per ", "sent from yahoo mail", "sent from proton",
	"sent from protonmail", "sent from fastmail", "sent from the all-new aol", "sent from aol", "sent from samsung",
	"sent from my android", "sent via ", "sent with proton mail", "sent with protonmail", "sent using ",
	"get outlook for ", "get outlook mobile", "von meinem ", "gesendet von meinem ", "gesendet von outlook",
	"gesendet mit ", "outlook für ios", "outlook für android", "envoyé de mon ", "envoyé depuis mon ",
	"envoyé à partir de ", "télécharger outlook pour ", "obtenir outlook pour ", "enviado desde mi ",
	"enviado desde outlook", "enviado do meu ", "enviado de meu ", "enviado do outlook", "inviato da ",
	"inviato dal mio ", "scarica outlook per ", "verzonden vanaf mijn ", "verstuurd vanaf mijn ",
	"verzonden met ", "skickat från min ", "skickat från outlook", "sendt fra min ", "sendt fra outlook",
	"lähetetty iphonesta", "lähetetty androidista", "lähetetty puhelimesta", "lähetetty outlook",
}

// isClientSignature reports a client's tag line: one that starts like
// clientSignatures and is short, without sentence punctuation once links
// are set aside ("Sent from TypeApp<http://www.typeapp.com/>" is one,
// "Sent from my desk, it is easier." is not).
func isClientSignature(t string) bool {
	if len(t) > 120 {
		return false
	}
	l := strings.ToLower(t)
	tag := false
	for _, p := range clientSignatures {
		if strings.HasPrefix(l, p) {
			tag = true
			break
		}
	}
	if !tag {
		return false
	}
	words := 0
	for _, w := range strings.Fields(l) {
		if strings.ContainsAny(w, "<>@/") {
			continue // a link or an address
		}
		words++
		w = strings.TrimSuffix(w, ".")
		if strings.ContainsAny(w, ",;!?.") {
			return false
		}
	}
	return words <= 10
}

// headerFields: the names (lower case) of the header lines Outlook and
// others write above the original, in the languages of the attributions.
var (
	fromFields = []string{"from", "von", "de", "da", "van", "från", "fra", "lähettäjä", "od", "*from", "*von", "*de"}
	dateFields = []string{"sent", "date", "gesendet", "datum", "envoyé", "enviado", "fecha", "data", "inviato",
		"verzonden", "skickat", "sendt", "dato", "lähetetty", "päivämäärä", "enviada", "*sent", "*date", "*gesendet", "*envoyé"}
	otherFields = []string{"to", "subject", "an", "betreff", "à", "objet", "para", "asunto", "a", "oggetto", "aan",
		"onderwerp", "assunto", "till", "ämne", "til", "emne", "vastaanottaja", "aihe", "cc", "*to", "*subject"}
)

// fieldName is the lower-cased name of a "Name: value" line, or "".
func fieldName(t string) string {
	name, _, ok := strings.Cut(t, ":")
	if !ok || len(name) > 24 {
		return ""
	}
	return strings.TrimSpace(strings.ToLower(name))
}

// headerBlock reports whether lines[i] starts a header block: a From line
// with a Sent/Date line and a To/Subject line among the next five lines; a
// From line that holds an address; or three "Label: value" lines or more
// (blank lines between them allowed) among the next eight lines, one of
// which holds an address, or a date and a time (Windows Mail writes the
// addresses in links only).
func headerBlock(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	name, value, ok := labelLine(t)
	if !ok {
		return false
	}
	if slices.Contains(fromFields, name) && hasAddress(value) {
		return true
	}
	if slices.Contains(fromFields, name) {
		date, other := false, false
		for _, l := range lines[i+1 : min(len(lines), i+6)] {
			f := fieldName(strings.TrimSpace(l))
			date = date || slices.Contains(dateFields, f)
			other = other || slices.Contains(otherFields, f)
		}
		if date && other {
			return true
		}
	}
	labels, fact := 0, false
	for j := i; j < len(lines) && j < i+8; j++ {
		l := strings.TrimSpace(lines[j])
		if l == "" {
			continue
		}
		_, v, ok := labelLine(l)
		if !ok {
			break
		}
		labels++
		date, clock := dateTime(v)
		fact = fact || hasAddress(v) || date && clock
	}
	return labels >= 3 && fact
}

// labelLine splits a "Label: value" line ("*From:* x", "Envoyé le : x",
// "发件人： x"): the label, lower case and without stars, has letters of
// any script and at most three words, no digits, no address or link
// characters, and ends within the first 40 bytes.
func labelLine(t string) (name, value string, ok bool) {
	head := t[:min(len(t), 40)]
	k := strings.IndexAny(head, ":：")
	if k <= 0 {
		return "", "", false
	}
	name = strings.TrimSpace(strings.Trim(strings.TrimSpace(head[:k]), "*"))
	_, size := utf8.DecodeRuneInString(t[k:])
	value = strings.TrimSpace(strings.TrimLeft(t[k+size:], "* "))
	if utf8.RuneCountInString(name) < 2 || len(strings.Fields(name)) > 3 {
		return "", "", false
	}
	for _, c := range name {
		if !unicode.IsLetter(c) && c != ' ' && c != '-' && c != '\u00a0' {
			return "", "", false
		}
	}
	return strings.ToLower(name), value, true
}

// startsQuote reports whether the next non-blank line is quoted.
func startsQuote(rest []string) bool {
	for _, l := range rest {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		return isQuoted(t)
	}
	return false
}

// attributionStarts are the first words of attributions (lower case).
var attributionStarts = []string{"on", "am", "le", "el", "il", "op", "em", "den", "quoting", "zitat", "citando", "w", "*"}

// startsAttribution reports whether t may be the first line of a wrapped
// attribution: it starts with one of attributionStarts.
func startsAttribution(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	first, _, _ := strings.Cut(strings.ToLower(t), " ")
	return slices.Contains(attributionStarts, strings.TrimRight(first, ","))
}

// attributionVerbs are what attributions say (lower case).
var attributionVerbs = []string{" wrote", "wrote:", " writes:", "schrieb", " a écrit", " a ecrit", "escribió", "escribio",
	"ha scritto", "ha escrit", "schreef", "escreveu", " skrev", "kirjoitti", "napisał", " pisze", "написал", "quoting ",
	"zitat von ", "citando ", "írta", "写道", "작성", "のメッセージ"}

// attributionEnds are the verbs an attribution may end with, without a
// colon.
var attributionEnds = []string{" wrote", " schrieb", " a écrit", " escribió", " ha scritto", " schreef", " escreveu",
	" skrev", " kirjoitti", " napisał", " написал"}

// endsLikeAttribution reports whether t ends as an attribution may: with
// a colon (also a full-width one) or with one of attributionEnds.
func endsLikeAttribution(t string) bool {
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") {
		return true
	}
	l := strings.ToLower(t)
	for _, v := range attributionEnds {
		if strings.HasSuffix(l, v) {
			return true
		}
	}
	return false
}

// hasAddress reports whether t holds a mail address: a word with an "@"
// that has a character before and after it.
func hasAddress(t string) bool {
	for k := 0; k < len(t); {
		at := strings.IndexByte(t[k:], '@')
		if at < 0 {
			return false
		}
		at += k
		if at > 0 && at+1 < len(t) && !isSpaceOrBracket(t[at-1]) && !isSpaceOrBracket(t[at+1]) {
			return true
		}
		k = at + 1
	}
	return false
}

func isSpaceOrBracket(c byte) bool { return c == ' ' || c == '\t' || c == '<' || c == '>' || c == '@' }

// hasDateTime reports whether t holds a date or a time (see dateTime).
func hasDateTime(t string) bool {
	date, clock := dateTime(t)
	return date || clock
}

// dateTime reports whether t holds a date (a year 19xx or 20xx, or three
// numbers such as 19/03/14) and whether it holds a time (10:02, 17.50).
// Direction marks between the characters are ignored.
func dateTime(t string) (date, clock bool) {
	var nums [3]int // lengths of the last three runs of digits
	var seps [2]byte
	run := 0
	start := 0
	for i := 0; i <= len(t) && !(date && clock); i++ {
		var c byte
		if i < len(t) {
			c = t[i]
		}
		if c >= '0' && c <= '9' {
			if run == 0 {
				start = i
			}
			run++
			continue
		}
		if strings.HasPrefix(t[i:], "\u200e") || strings.HasPrefix(t[i:], "\u200f") {
			i += 2
			continue // direction marks
		}
		if run > 0 {
			if run == 4 && (t[start] == '1' && t[start+1] == '9' || t[start] == '2' && t[start+1] == '0') {
				date = true
			}
			nums[0], nums[1], nums[2] = nums[1], nums[2], run
			if nums[1] >= 1 && nums[1] <= 2 && nums[2] == 2 && (seps[1] == ':' || seps[1] == '.') {
				clock = true
			}
			if nums[0] >= 1 && nums[0] <= 2 && nums[1] >= 1 && nums[1] <= 2 && nums[2] >= 2 &&
				seps[0] == seps[1] && (seps[1] == '/' || seps[1] == '.' || seps[1] == '-') {
				date = true
			}
			run = 0
		}
		if c == ':' || c == '.' || c == '/' || c == '-' {
			seps[0], seps[1] = seps[1], c
		} else {
			nums = [3]int{}
			seps = [2]byte{}
		}
	}
	return date, clock
}

// isAttributionLine reports whether t introduces the original: it ends
// like an attribution and holds an address and a date or a time, or says
// what attributions say and holds one of them; or, when a quote follows
// (quote), it ends with a colon and says what attributions say or holds an
// address, a date or a time.
func isAttributionLine(t string, quote bool) bool {
	if len(t) > 400 || !endsLikeAttribution(t) {
		return false
	}
	addr, date := hasAddress(t), hasDateTime(t)
	if addr && date {
		return true
	}
	l := strings.ReplaceAll(strings.ToLower(t), "\u00a0", " ")
	says := false
	for _, v := range attributionVerbs {
		if strings.Contains(l, v) {
			says = true
			break
		}
	}
	if says && (addr || date) {
		return true
	}
	return quote && (strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：")) && (says || addr || date)
}
