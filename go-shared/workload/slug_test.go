package workload

import (
	"encoding/json"
	"net/url"
	"os"
	"testing"
)

// The same vectors check workload::is_slug: one rule for all. Each is [percent-encoded
// segment, whether it is a slug].
func TestIsSlug(t *testing.T) {
	data, err := os.ReadFile("../../workload/testdata/slugs.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors [][2]any
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 30 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		encoded, want := v[0].(string), v[1].(bool)
		segment, err := url.PathUnescape(encoded)
		if err != nil {
			t.Fatalf("vector %q: %v", encoded, err)
		}
		if got := IsSlug(segment); got != want {
			t.Errorf("IsSlug(%q) = %v, want %v", segment, got, want)
		}
	}
}
