<?php

namespace App\Blog;

use InvalidArgumentException;

/**
 * The environment every blogbench app reads (docs/spec.md §1), parsed as
 * go-shared/workload/config.go parses it: an unset variable takes its default,
 * a set one (even to "") is a value, and a bad value names its variable.
 */
final class Settings
{
    public const DEFAULT_DATABASE_URL = 'postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable';
    public const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/0';
    public const DEFAULT_BIND = '127.0.0.1:8080';

    private const U32_MAX = 4294967295;

    private function __construct(
        public readonly string $databaseUrl,
        public readonly string $redisUrl,
        public readonly string $bind,
        public readonly int $workers,
        public readonly int $poolMax,
        public readonly int $poolMin,
        public readonly string $pingOnAcquire,
    ) {
    }

    /**
     * The settings in $environment (getenv()'s array).
     *
     * @param  array<string, string>  $environment
     *
     * @throws InvalidArgumentException naming the variable whose value is bad
     */
    public static function fromEnvironment(array $environment): self
    {
        $ping = $environment['PING_ON_ACQUIRE'] ?? 'idle';
        if (!in_array($ping, ['always', 'idle', 'never'], true)) {
            throw new InvalidArgumentException("PING_ON_ACQUIRE must be always, idle or never, got \"{$ping}\"");
        }
        $bind = $environment['BIND'] ?? self::DEFAULT_BIND;
        if (preg_match('/^(\[[^\]]*\]|[^:\[\]]*):([0-9]{1,5})$/D', $bind, $parts) !== 1 || (int) $parts[2] > 65535) {
            throw new InvalidArgumentException("BIND must be host:port, got \"{$bind}\"");
        }
        // The URLs' schemes are checked here, so that a wrong one stops the app
        // at start-up, as in Go; an empty DATABASE_URL is libpq's defaults.
        $databaseUrl = $environment['DATABASE_URL'] ?? self::DEFAULT_DATABASE_URL;
        $databaseScheme = parse_url($databaseUrl, PHP_URL_SCHEME);
        if ($databaseUrl !== '' && !in_array($databaseScheme, ['postgres', 'postgresql'], true)) {
            throw new InvalidArgumentException('DATABASE_URL must be a postgres:// or postgresql:// URL');
        }
        $redisUrl = $environment['REDIS_URL'] ?? self::DEFAULT_REDIS_URL;
        if (!in_array(parse_url($redisUrl, PHP_URL_SCHEME), ['redis', 'rediss'], true)) {
            throw new InvalidArgumentException('REDIS_URL must be a redis:// or rediss:// URL');
        }
        $poolMax = self::positive($environment, 'POOL_MAX', 16);
        $poolMin = self::positive($environment, 'POOL_MIN', 4);
        if ($poolMin > $poolMax) {
            throw new InvalidArgumentException("POOL_MIN ({$poolMin}) must not exceed POOL_MAX ({$poolMax})");
        }

        return new self(
            databaseUrl: $databaseUrl,
            redisUrl: $redisUrl,
            bind: $bind,
            workers: self::positive($environment, 'WORKERS', 4),
            poolMax: $poolMax,
            poolMin: $poolMin,
            pingOnAcquire: $ping,
        );
    }

    /**
     * The variable as an integer from 1 to 2^32 - 1 (decimal digits after an
     * optional "+", as Rust's str::parse::<u32> reads them), or $default when
     * it is not set.
     *
     * @param  array<string, string>  $environment
     */
    private static function positive(array $environment, string $name, int $default): int
    {
        if (!array_key_exists($name, $environment)) {
            return $default;
        }
        $value = $environment[$name];
        $digits = ltrim(substr($value, 0, 1) === '+' ? substr($value, 1) : $value, '0');
        if (
            preg_match('/^\+?[0-9]+$/D', $value) === 1
            && $digits !== ''
            && strlen($digits) <= 10
            && (int) $digits <= self::U32_MAX
        ) {
            return (int) $digits;
        }
        throw new InvalidArgumentException("{$name} must be a positive integer, got \"{$value}\"");
    }
}
