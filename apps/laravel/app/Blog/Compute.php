<?php

namespace App\Blog;

/**
 * The /compute route's rule (docs/spec.md §3.6): n read from the raw query
 * string as Go's url.ParseQuery reads it, and the sum of the primes below n by
 * trial division, computed on every request.
 */
final class Compute
{
    public const DEFAULT_N = 20000;
    public const BAD_N_MESSAGE = "n must be an integer from 2 to 1000000\n";

    /**
     * The n of a raw query string: the default when no piece has the key n,
     * null (a 400) when n is not an integer from 2 to 1 000 000 or when no n
     * was found and a piece could not be decoded. The first n decides.
     */
    public static function parseN(string $rawQuery): ?int
    {
        $undecodable = false;
        foreach (explode('&', $rawQuery) as $piece) {
            if ($piece === '') {
                continue;
            }
            if (str_contains($piece, ';')) {
                $undecodable = true;
                continue;
            }
            [$rawKey, $rawValue] = array_pad(explode('=', $piece, 2), 2, '');
            $key = FormEncoding::unescape($rawKey);
            $value = FormEncoding::unescape($rawValue);
            if ($key === null || $value === null) {
                $undecodable = true;
                continue;
            }
            if ($key === 'n') {
                // As strconv.ParseInt: a sign, then decimal digits only.
                if (preg_match('/^[+-]?[0-9]+$/D', $value) !== 1 || strlen(ltrim($value, '+-0')) > 7) {
                    return null;
                }
                $n = (int) $value;

                return $n >= 2 && $n <= 1000000 ? $n : null;
            }
        }

        return $undecodable ? null : self::DEFAULT_N;
    }

    /**
     * The sum of the primes below $n: each i divided by d from 2 while
     * d * d <= i. The work is the point of the route, so no sieve and no cache.
     */
    public static function sumOfPrimesBelow(int $n): int
    {
        $sum = 0;
        for ($i = 2; $i < $n; $i++) {
            $prime = true;
            for ($d = 2; $d * $d <= $i; $d++) {
                if ($i % $d === 0) {
                    $prime = false;
                    break;
                }
            }
            if ($prime) {
                $sum += $i;
            }
        }

        return $sum;
    }

    /** The body /compute answers for $n: the sum in decimal and "\n". */
    public static function body(int $n): string
    {
        return self::sumOfPrimesBelow($n) . "\n";
    }
}
