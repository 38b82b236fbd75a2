package blog

import (
	"encoding/json"
	"html/template"
	"os"
	"strings"
	"testing"
)

// The canonical escaping (docs/spec.md §3) is html/template's; templates/src/escape.rs checks the
// Rust escaper against the same vectors.
func TestEscapeVectors(t *testing.T) {
	data, err := os.ReadFile("../../templates/testdata/escape-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors [][2]string
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 10 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	p := template.Must(template.New("p").Parse("<p>{{.}}</p>"))
	for _, v := range vectors {
		var out strings.Builder
		if err := p.Execute(&out, v[0]); err != nil {
			t.Fatal(err)
		}
		if want := "<p>" + v[1] + "</p>"; out.String() != want {
			t.Errorf("input %q: got %q, want %q", v[0], out.String(), want)
		}
	}
}
