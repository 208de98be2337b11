package mail

import (
	"slices"
	"strings"
	"unicode"
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
//   - quoted lines ("> ...", as [Parse] also writes the quotes of HTML mail);
//   - the attribution that introduces a quote ("On Mon, Alice wrote:", "Am
//     ... schrieb ...:", "Le ... a écrit :", "El ... escribió:", "Il ... ha
//     scritto:", "Op ... schreef ...:", "Em ... escreveu:", "Den ... skrev
//     ...:", "... kirjoitti:"), also when wrapped over two lines; an
//     attribution not followed by a quote ends the fresh text, as the
//     original follows it unmarked;
//   - everything from a marker of an original or forwarded message on:
//     "-----Original Message-----" and its translations, any
//     "----- ... -----" banner, Outlook's "________________________________"
//     rule, "Begin forwarded message:", and the header block Outlook and
//     others put above the original ("From: / Sent: / To: / Subject:",
//     "Von: / Gesendet:", "De : / Envoyé :", ...);
//   - the signature: from a "-- " line (or a bare "--", as some clients
//     send it) on, and from a client's tag line on ("Sent from my iPhone",
//     "Get Outlook for Android", "Sent with Proton Mail", "Von meinem iPhone
//     gesendet", "Envoyé de mon iPhone", ...).
//
// A line that names an address and ends with a colon ("21 Nov 2026
// 10:03 Bob <bob@example.org>:", "* Bob <bob@example.org> [2026-11-21]:")
// is an attribution too when a quote follows it.
//
// Lines keep their text (trailing spaces trimmed); runs of blank lines
// become one, and leading and trailing blank lines are dropped. The work is linear in the length of text.
func FreshText(text string) string {
	if len(text) > maxText {
		text = text[:maxText]
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	last := -1 // index in lines of out's last line, if not blank
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimPrefix(lines[i], "\ufeff")
		t := strings.TrimSpace(raw)
		if t == "" {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		if isQuoted(t) {
			continue
		}
		if isSignatureSeparator(raw) || isOriginalMarker(t) || isClientSignature(t) || headerBlock(lines, i) {
			break
		}
		if strings.HasSuffix(t, ":") {
			attribution := false
			if n := len(out); n > 0 && last == i-1 && startsAttribution(out[n-1]) && !startsAttribution(t) &&
				isAttribution(strings.TrimSpace(out[n-1])+" "+t) {
				out = out[:n-1] // the first half of a wrapped attribution
				attribution = true
			} else if isAttribution(t) || namesAddress(t) && startsQuote(lines[i+1:]) {
				attribution = true
			}
			if attribution {
				if startsQuote(lines[i+1:]) {
					continue
				}
				break
			}
		}
		out = append(out, strings.TrimRight(raw, " \t\u00a0"))
		last = i
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
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
	"sent from my ", "sent from outlook", "sent from mail", "obtener outlook para ", "obtenha o outlook para ", "ottieni outlook per ", "sent from yahoo mail", "sent from proton",
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

// isClientSignature reports a client's tag line.
func isClientSignature(t string) bool {
	if len(t) > 120 {
		return false
	}
	l := strings.ToLower(t)
	for _, p := range clientSignatures {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
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
// with a Sent/Date line and a To/Subject line among the next five lines.
func headerBlock(lines []string, i int) bool {
	if !slices.Contains(fromFields, fieldName(strings.TrimSpace(lines[i]))) {
		return false
	}
	date, other := false, false
	for _, l := range lines[i+1 : min(len(lines), i+6)] {
		f := fieldName(strings.TrimSpace(l))
		date = date || slices.Contains(dateFields, f)
		other = other || slices.Contains(otherFields, f)
	}
	return date && other
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
// attribution: it starts with one of attributionStarts or with a date.
func startsAttribution(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	if t[0] >= '0' && t[0] <= '9' {
		return true
	}
	first, _, _ := strings.Cut(strings.ToLower(t), " ")
	return slices.Contains(attributionStarts, strings.TrimRight(first, ","))
}

// attributionVerbs are what attributions say (lower case).
var attributionVerbs = []string{" wrote", "wrote:", " writes:", "schrieb", " a écrit", " a ecrit", "escribió", "escribio",
	"ha scritto", "schreef", "escreveu", " skrev", "kirjoitti", "napisał", "написал", "quoting ", "zitat von ",
	"citando "}

// namesAddress reports whether t holds a mail address in angle brackets.
func namesAddress(t string) bool {
	lt := strings.IndexByte(t, '<')
	return lt >= 0 && strings.Contains(t[lt:], "@") && strings.Contains(t[lt:], ">")
}

// isAttribution reports whether t (ending with a colon) introduces a
// quote.
func isAttribution(t string) bool {
	if len(t) > 400 || !strings.HasSuffix(t, ":") {
		return false
	}
	l := strings.ReplaceAll(strings.ToLower(t), "\u00a0", " ")
	for _, v := range attributionVerbs {
		if strings.Contains(l, v) {
			return true
		}
	}
	return false
}
