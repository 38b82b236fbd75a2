package workload

import (
	"encoding/json"
	"os"
	"testing"
)

func TestSumOfPrimesBelow(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{
		{2, 0}, {3, 2}, {10, 2 + 3 + 5 + 7}, {12, 2 + 3 + 5 + 7 + 11}, {DefaultN, 21171191},
	} {
		if got := SumOfPrimesBelow(c.n); got != c.want {
			t.Errorf("SumOfPrimesBelow(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	if got := string(ComputeBody(DefaultN)); got != "21171191\n" {
		t.Errorf("ComputeBody(%d) = %q, want the sum and a newline", DefaultN, got)
	}
}

// The same vectors check the Rust apps' parser (workload::parse_n_query): one rule for all.
// Each is [query, n], n = null for a bad query.
func TestParseN(t *testing.T) {
	data, err := os.ReadFile("../../workload/testdata/compute-queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors [][2]any
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 20 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		query := v[0].(string)
		n, ok := ParseN(query)
		switch want, good := v[1].(float64); {
		case !good && ok:
			t.Errorf("ParseN(%q) = %d, want a bad query", query, n)
		case good && (!ok || n != int64(want)):
			t.Errorf("ParseN(%q) = %d, %v; want %d", query, n, ok, int64(want))
		}
	}
}
