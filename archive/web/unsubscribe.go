package web

import (
	"errors"
	"html/template"
	"net/http"

	"pbem/archive"
)

// unsubscribeBody is the largest body a one-click POST may have: RFC
// 8058's is "List-Unsubscribe=One-Click", as a form, plain or multipart.
const unsubscribeBody = 4 << 10

// unsubscribeWhat names each kind of mail on the pages.
var unsubscribeWhat = map[string]string{
	archive.UnsubWatch:      "the mail of the games you watch",
	archive.UnsubDigest:     "the daily digest of your games",
	archive.UnsubTournament: "the daily standings of your tournaments",
}

var unsubscribePage = template.Must(template.New("unsubscribe").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>{{.Title}}: unsubscribe</title></head>
<body><main>
{{if .Done}}<h1>Unsubscribed</h1>
<p>{{.Addr}} will get no more of {{.What}}. The mail of your own games keeps coming.</p>
{{else}}<h1>Unsubscribe</h1>
<p>Stop {{.What}} to {{.Addr}}? The mail of your own games keeps coming.</p>
<form method="post" action="{{.Action}}"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button></form>
{{end}}</main></body></html>
`))

// unsubscribe serves /unsubscribe?a=ADDR&k=KIND&t=TOKEN, the one-click
// address of the List-Unsubscribe of watcher mail and digests (RFC
// 8058). POST with the body List-Unsubscribe=One-Click records that ADDR
// wants no more mail of KIND (that kind only); GET shows a page whose
// button does that POST, and changes nothing itself (a link checker or a
// mail scanner opening the address unsubscribes no one). A token that is
// not ADDR's and KIND's is 404, and changes nothing.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	addr, kind, token := q.Get("a"), q.Get("k"), q.Get("t")
	err := s.store.CheckUnsubscribe(r.Context(), addr, kind, token)
	if errors.Is(err, archive.ErrBadUnsubscribe) {
		err = errHidden
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := struct {
		Title, Addr, What, Action string
		Done                      bool
	}{Title: s.opts.Title, Addr: addr, What: unsubscribeWhat[kind], Action: "?" + archive.UnsubscribeQueryOf(addr, kind, token)}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, unsubscribeBody)
		if err := r.ParseMultipartForm(unsubscribeBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			s.fail(w, r, errBadRequest{"the body is no form: expected List-Unsubscribe=One-Click"})
			return
		}
		if r.PostForm.Get("List-Unsubscribe") != "One-Click" {
			s.fail(w, r, errBadRequest{"the body is not List-Unsubscribe=One-Click (RFC 8058)"})
			return
		}
		if err := s.store.Unsubscribe(r.Context(), addr, kind, token); err != nil {
			s.fail(w, r, err)
			return
		}
		v.Done = true
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := unsubscribePage.Execute(w, v); err != nil {
		s.opts.Logger.Error("web: template failed", "page", "unsubscribe", "err", err)
	}
}
