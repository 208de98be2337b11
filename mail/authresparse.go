package mail

import "strings"

// authResult is one result (resinfo) of an Authentication-Results field
// (RFC 8601 section 2.2): method=value, its reason and its properties.
type authResult struct {
	method, value string // lower case: "dkim", "pass"
	reason        string
	props         []authProp
}

// authProp is one property of a result: ptype.property=pvalue, the key in
// lower case ("header.from"), the value with quoted strings unquoted, and
// the domain the value names (after its last '@' outside quoted strings).
type authProp struct {
	key, value, domain string
}

// prop returns the domain named by the first property key of r ("" if
// none).
func (r authResult) prop(key string) string {
	for _, p := range r.props {
		if p.key == key {
			return p.domain
		}
	}
	return ""
}

// authToken is a lexical token of an Authentication-Results field: a word
// (a run of characters that are none of the below), a quoted string (its
// text unquoted) or one of the separators ; = . / @. space says whether
// white space or a comment came before it.
type authToken struct {
	text   string
	quoted bool
	sep    byte // ';', '=', '.', '/', '@', or 0 for a word or quoted string
	space  bool
}

// lexAuthResults splits an Authentication-Results field into tokens,
// dropping comments (which nest, and hold quoted pairs) and white space:
// a ';' or '=' inside a quoted string or a comment is text, never a
// separator. ok is false when a quoted string or comment is not closed.
func lexAuthResults(v string) (toks []authToken, ok bool) {
	space := false
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			space = true
			i++
		case c == '(':
			depth := 0
			for ; i < len(v); i++ {
				switch v[i] {
				case '\\':
					i++
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 {
					break
				}
			}
			if depth != 0 {
				return toks, false
			}
			i++
			space = true
		case c == '"':
			var b strings.Builder
			closed := false
			for i++; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
					b.WriteByte(v[i])
					continue
				}
				if v[i] == '"' {
					closed = true
					i++
					break
				}
				b.WriteByte(v[i])
			}
			if !closed {
				return toks, false
			}
			toks = append(toks, authToken{text: b.String(), quoted: true, space: space})
			space = false
		case strings.IndexByte(";=./@", c) >= 0:
			toks = append(toks, authToken{text: string(c), sep: c, space: space})
			space = false
			i++
		default:
			j := i
			for j < len(v) && strings.IndexByte(" \t\r\n(\";=./@", v[j]) < 0 {
				j++
			}
			toks = append(toks, authToken{text: v[i:j], space: space})
			space = false
			i = j
		}
	}
	return toks, true
}

// parseAuthResults reads an Authentication-Results field: its
// authentication service identifier and its results. A field that starts
// with a result (method=value) has the identifier [NoAuthservID]; a field
// that cannot be read (an unclosed quoted string or comment) has its
// identifier and a single result "unreadable", which fails. Results that
// cannot be read (a method it does not know written oddly, say) are left
// out; they do not hide the others.
func parseAuthResults(field string) (id string, results []authResult) {
	toks, ok := lexAuthResults(field)
	var segs [][]authToken
	start := 0
	for i, t := range toks {
		if t.sep == ';' {
			segs = append(segs, toks[start:i])
			start = i + 1
		}
	}
	segs = append(segs, toks[start:])
	head := segs[0]
	if len(head) == 0 {
		return "", nil
	}
	if len(head) > 1 && head[1].sep == '=' || len(head) > 3 && head[1].sep == '/' && head[3].sep == '=' {
		id = NoAuthservID // a result: no identifier written
	} else {
		id, _ = joinTokens(head)
		segs = segs[1:]
	}
	if !ok {
		return id, []authResult{{method: "unreadable", value: "fail"}}
	}
	for _, seg := range segs {
		if r, ok := parseResinfo(seg); ok {
			results = append(results, r)
		}
	}
	return id, results
}

// joinTokens joins the tokens up to the first that has white space before
// it (a value such as mx.example.org or bounce+x=y@example.org, written
// as several tokens) and returns the text and the domain it names: the
// text after its last '@' outside quoted strings, lower case, or the
// whole text when it has none. n is the number of tokens used.
func joinTokens(toks []authToken) (text string, n int) {
	var b strings.Builder
	for n < len(toks) && (n == 0 || !toks[n].space) && toks[n].sep != ';' {
		b.WriteString(toks[n].text)
		n++
	}
	return b.String(), n
}

// parseResinfo reads one result: method[/version]=value, then reason=value
// and ptype.property=value properties. ok is false when it does not start
// with method=value; what cannot be read as a property is skipped.
func parseResinfo(toks []authToken) (r authResult, ok bool) {
	word := func(i int) bool { return i < len(toks) && toks[i].sep == 0 && !toks[i].quoted }
	if !word(0) {
		return r, false
	}
	r.method = strings.ToLower(toks[0].text)
	i := 1
	if i < len(toks) && toks[i].sep == '/' {
		if !word(i + 1) {
			return r, false
		}
		i += 2
	}
	if i >= len(toks) || toks[i].sep != '=' || !word(i+1) {
		return r, false
	}
	r.value = strings.ToLower(toks[i+1].text)
	i += 2
	for i < len(toks) {
		// key: words joined by dots, ptype.property (or a bare name)
		var key strings.Builder
		for word(i) && (key.Len() == 0 || !toks[i].space || toks[i-1].sep == '.') || i < len(toks) && toks[i].sep == '.' && key.Len() > 0 {
			key.WriteString(toks[i].text)
			i++
		}
		if key.Len() == 0 || i >= len(toks) || toks[i].sep != '=' || i+1 >= len(toks) {
			if key.Len() == 0 {
				i++ // not a property: skip a token and read on
			}
			continue
		}
		i++
		val, n := joinTokens(toks[i:])
		p := authProp{key: strings.ToLower(key.String()), value: val, domain: valueDomain(toks[i : i+n])}
		i += n
		if p.key == "reason" {
			r.reason = p.value
			continue
		}
		r.props = append(r.props, p)
	}
	return r, true
}

// valueDomain returns the domain a property value names: the text after
// its last '@' outside quoted strings, or the whole value when it has
// none, lower case and without a trailing dot.
func valueDomain(toks []authToken) string {
	at := -1
	for i, t := range toks {
		if t.sep == '@' {
			at = i
		}
	}
	if at < 0 {
		v, _ := joinTokens(toks)
		return domainOf(v)
	}
	v, _ := joinTokens(toks[at+1:])
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
}
