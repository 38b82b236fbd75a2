package main

import "testing"

func TestSumOfPrimesBelow(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{
		{2, 0}, {3, 2}, {10, 2 + 3 + 5 + 7}, {12, 2 + 3 + 5 + 7 + 11}, {defaultN, 21171191},
	} {
		if got := sumOfPrimesBelow(c.n); got != c.want {
			t.Errorf("sumOfPrimesBelow(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func TestParseN(t *testing.T) {
	for query, want := range map[string]int64{
		"": 20000, "x=1": 20000, "n=2": 2, "n=1000000": 1000000, "n=%2B7": 7, "n=5&n=abc": 5,
	} {
		if n, ok := parseN(query); !ok || n != want {
			t.Errorf("parseN(%q) = %d, %v; want %d", query, n, ok, want)
		}
	}
	for _, bad := range []string{"", "abc", "1", "0", "-5", "1000001", "10000000", "2.5", "%207", "0x10", "1_000", "%zz", "5;x=1"} {
		if n, ok := parseN("n=" + bad); ok {
			t.Errorf("parseN(n=%s) = %d, want a bad value", bad, n)
		}
	}
}
