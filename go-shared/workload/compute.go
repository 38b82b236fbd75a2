package workload

import (
	"net/url"
	"strconv"
)

// DefaultN is the n of /compute when the query gives none.
const DefaultN = 20000

// BadNMessage is the 400 body for a bad n, byte for byte the Rust apps'
// (workload::BAD_N_MESSAGE).
const BadNMessage = "n must be an integer from 2 to 1000000\n"

// ParseN returns the n of a /compute query string: the default when n is absent, and
// ok=false when it is not a decimal integer from 2 to 1 000 000 (an empty n is a bad value,
// not an absent one). Like Rust's str::parse::<i64>, it accepts a leading '+' or '-'. When n
// is given more than once, the first value counts.
func ParseN(rawQuery string) (n int64, ok bool) {
	query, err := url.ParseQuery(rawQuery)
	values, present := query["n"]
	if !present {
		// ParseQuery drops the pairs it cannot decode (a bad %-escape, a ';'): n may be one.
		return DefaultN, err == nil
	}
	n, err = strconv.ParseInt(values[0], 10, 64)
	if err != nil || n < 2 || n > 1_000_000 {
		return 0, false
	}
	return n, true
}

// SumOfPrimesBelow adds up the primes below n by i64 trial division, on every call: the work
// is the point of /compute (docs/spec.md §3.6), so no sieve and no caching.
func SumOfPrimesBelow(n int64) int64 {
	var sum int64
	for i := int64(2); i < n; i++ {
		prime := true
		for d := int64(2); d*d <= i; d++ {
			if i%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			sum += i
		}
	}
	return sum
}

// ComputeBody is the body /compute answers for n: the sum in decimal and "\n"
// (workload::compute_body).
func ComputeBody(n int64) []byte {
	return append(strconv.AppendInt(nil, SumOfPrimesBelow(n), 10), '\n')
}
