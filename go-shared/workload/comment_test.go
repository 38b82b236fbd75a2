package workload

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The same vectors check workload::comment: one rule for all. Each is [form body, outcome],
// the outcome {"author_name", "body"} or {"error"}.
func TestParseComment(t *testing.T) {
	data, err := os.ReadFile("../../workload/testdata/comment-forms.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors [][2]json.RawMessage
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 30 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		var form string
		var want map[string]string
		if err := json.Unmarshal(v[0], &form); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(v[1], &want); err != nil {
			t.Fatal(err)
		}
		got, err := ParseComment([]byte(form))
		if message, bad := want["error"]; bad {
			if fe, ok := err.(*FormError); !ok || fe.Message != message || fe.Status != 400 {
				t.Errorf("form %q: got %+v, %v; want 400 %q", form, got, err, message)
			}
			continue
		}
		if err != nil || got.AuthorName != want["author_name"] || got.Body != want["body"] {
			t.Errorf("form %q: got %+v, %v; want %q", form, got, err, want)
		}
	}
}

func TestParseCommentLimit(t *testing.T) {
	form := func(n int) []byte { return []byte("author_name=a&body=" + strings.Repeat("b", n-19)) }
	if _, err := ParseComment(form(FormLimit + 1)); err != ErrTooLarge {
		t.Errorf("a form of %d bytes: %v, want 413", FormLimit+1, err)
	}
	if _, err := ParseComment(form(FormLimit)); err == ErrTooLarge {
		t.Errorf("a form of %d bytes is within the limit", FormLimit)
	}
}

func TestIsForm(t *testing.T) {
	for _, v := range []string{
		"application/x-www-form-urlencoded",
		"Application/X-WWW-Form-URLEncoded",
		"application/x-www-form-urlencoded; charset=UTF-8",
		" application/x-www-form-urlencoded\t;charset=utf-8",
	} {
		if !IsForm(v) {
			t.Errorf("IsForm(%q) = false", v)
		}
	}
	for _, v := range []string{"", "text/plain", "multipart/form-data; boundary=x", "application/x-www-form-urlencodedx", "application/json"} {
		if IsForm(v) {
			t.Errorf("IsForm(%q) = true", v)
		}
	}
}
