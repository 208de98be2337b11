package web

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pbem/archive"
)

// post sends a one-click POST to path with body of content type ctype.
func post(t *testing.T, h http.Handler, path, ctype, body string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// TestOneClickUnsubscribe: the POST of RFC 8058 (form or multipart)
// to the address of a List-Unsubscribe stops exactly its kind for exactly
// its address; GET shows a form and changes nothing; a forged, altered or
// other kind's token, or a POST without the One-Click body, is refused
// and changes nothing.
func TestOneClickUnsubscribe(t *testing.T) {
	fx := newFixture(t)
	ctx := t.Context()
	secret, err := fx.store.Secret(ctx, archive.UnsubscribeSecretName)
	if err != nil {
		t.Fatal(err)
	}
	const addr = "olga@example.org"
	kinds := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, a := range []string{addr, "pat@example.org"} {
			for _, k := range archive.UnsubscribeKinds {
				off, err := fx.store.Unsubscribed(ctx, a, k)
				if err != nil {
					t.Fatal(err)
				}
				if off {
					out[a+" "+k] = true
				}
			}
		}
		return out
	}
	const form = "application/x-www-form-urlencoded"
	good := "/unsubscribe?" + archive.UnsubscribeQuery(secret, addr, archive.UnsubWatch)
	tok := archive.UnsubscribeToken(secret, addr, archive.UnsubWatch)

	code, body, _ := get(t, fx.srv, good)
	if code != http.StatusOK || !strings.Contains(body, `<form method="post"`) || !strings.Contains(body, "List-Unsubscribe") {
		t.Fatalf("GET %s = %d, want 200 and a form that posts:\n%s", good, code, body)
	}
	if !strings.Contains(body, `action="?a=olga%40example.org&amp;k=watch&amp;t=`+tok+`"`) {
		t.Errorf("the form does not post to the address it was opened at:\n%s", body)
	}
	if got := kinds(); len(got) != 0 {
		t.Fatalf("GET unsubscribed %v", got)
	}

	for _, bad := range []struct{ path, ctype, body string }{
		{"/unsubscribe?" + archive.UnsubscribeQueryOf(addr, archive.UnsubWatch, tok[:len(tok)-1]+"x"), form, "List-Unsubscribe=One-Click"},
		{"/unsubscribe?" + archive.UnsubscribeQueryOf(addr, archive.UnsubDigest, tok), form, "List-Unsubscribe=One-Click"},
		{"/unsubscribe?" + archive.UnsubscribeQueryOf("pat@example.org", archive.UnsubWatch, tok), form, "List-Unsubscribe=One-Click"},
		{"/unsubscribe?" + archive.UnsubscribeQuery([]byte("another secret"), addr, archive.UnsubWatch), form, "List-Unsubscribe=One-Click"},
		{"/unsubscribe?" + archive.UnsubscribeQueryOf(addr, "all", archive.UnsubscribeToken(secret, addr, "all")), form, "List-Unsubscribe=One-Click"},
		{"/unsubscribe", form, "List-Unsubscribe=One-Click"},
		{good, form, "List-Unsubscribe=Yes"},
		{good, form, ""},
	} {
		code, body := post(t, fx.srv, bad.path, bad.ctype, bad.body)
		if code != http.StatusNotFound && code != http.StatusBadRequest {
			t.Errorf("POST %s %q = %d, want 404 or 400:\n%s", bad.path, bad.body, code, body)
		}
		if got := kinds(); len(got) != 0 {
			t.Fatalf("POST %s %q unsubscribed %v", bad.path, bad.body, got)
		}
	}
	if code, _, _ := get(t, fx.srv, "/unsubscribe?"+archive.UnsubscribeQueryOf(addr, archive.UnsubWatch, tok[:len(tok)-1]+"x")); code != http.StatusNotFound {
		t.Errorf("GET with an altered token = %d, want 404", code)
	}

	if code, body := post(t, fx.srv, good, form, "List-Unsubscribe=One-Click"); code != http.StatusOK || !strings.Contains(body, "Unsubscribed") {
		t.Fatalf("POST %s = %d:\n%s", good, code, body)
	}
	if got := kinds(); len(got) != 1 || !got[addr+" watch"] {
		t.Fatalf("after the POST the unsubscriptions are %v, want %s watch only", got, addr)
	}

	// multipart/form-data, as some mail providers send it
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("List-Unsubscribe", "One-Click")
	mw.Close()
	digest := "/unsubscribe?" + archive.UnsubscribeQuery(secret, addr, archive.UnsubDigest)
	if code, body := post(t, fx.srv, digest, mw.FormDataContentType(), b.String()); code != http.StatusOK {
		t.Fatalf("multipart POST %s = %d:\n%s", digest, code, body)
	}
	if got := kinds(); len(got) != 2 || !got[addr+" digest"] {
		t.Fatalf("after the second POST the unsubscriptions are %v", got)
	}
}
