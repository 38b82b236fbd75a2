package blogbench.webflux;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * The /compute route's rules (docs/spec.md §3.6), this app's copy of
 * go-shared/workload/compute.go: the sum of the primes below n, and n read from the raw
 * query string by Go's url.ParseQuery rule.
 */
public final class Compute {

	static final long DEFAULT_N = 20_000;

	static final String BAD_N_MESSAGE = "n must be an integer from 2 to 1000000\n";

	private static final BigInteger MIN_N = BigInteger.TWO;

	private static final BigInteger MAX_N = BigInteger.valueOf(1_000_000);

	private Compute() {
	}

	/**
	 * The n of a raw query string (what follows '?', "" for none): the first decodable
	 * piece whose key is {@code n} decides and must be an integer from 2 to 1 000 000
	 * with an optional sign; with no {@code n}, the default, unless a piece was
	 * undecodable.
	 * @param rawQuery the query, still percent-encoded
	 * @return n, or empty for a bad n or a bad query
	 */
	public static OptionalLong parseN(String rawQuery) {
		boolean undecodable = false;
		for (String piece : rawQuery.split("&", -1)) {
			if (piece.isEmpty()) {
				continue;
			}
			// A ';' makes a piece undecodable, as a bad escape does.
			byte[][] pair = piece.contains(";") ? null : FormDecoding.pair(piece.getBytes(StandardCharsets.ISO_8859_1));
			if (pair == null) {
				undecodable = true;
			}
			else if (new String(pair[0], StandardCharsets.ISO_8859_1).equals("n")) {
				return integerInRange(new String(pair[1], StandardCharsets.ISO_8859_1));
			}
		}
		return undecodable ? OptionalLong.empty() : OptionalLong.of(DEFAULT_N);
	}

	/** As Go's strconv.ParseInt(value, 10, 64), then the range. */
	private static OptionalLong integerInRange(String value) {
		if (!value.matches("[+-]?[0-9]+")) {
			return OptionalLong.empty();
		}
		BigInteger n = new BigInteger(value);
		boolean inRange = n.compareTo(MIN_N) >= 0 && n.compareTo(MAX_N) <= 0;
		return inRange ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
	}

	/**
	 * The sum of the primes below n by trial division, on every call: each i divided by d
	 * from 2 while d * d <= i. The work is the point of /compute, so no sieve and no
	 * caching.
	 * @param n the bound
	 * @return the sum
	 */
	public static long sumOfPrimesBelow(long n) {
		long sum = 0;
		for (long i = 2; i < n; i++) {
			boolean prime = true;
			for (long d = 2; d * d <= i; d++) {
				if (i % d == 0) {
					prime = false;
					break;
				}
			}
			if (prime) {
				sum += i;
			}
		}
		return sum;
	}

}
