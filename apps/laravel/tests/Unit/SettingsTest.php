<?php

namespace Tests\Unit;

use App\Blog\Settings;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;

/** The environment of docs/spec.md §1, read as go-shared/workload/config_test.go reads it. */
class SettingsTest extends TestCase
{
    public function test_an_empty_environment_takes_the_defaults(): void
    {
        $settings = Settings::fromEnvironment([]);
        $this->assertSame(Settings::DEFAULT_DATABASE_URL, $settings->databaseUrl);
        $this->assertSame(Settings::DEFAULT_REDIS_URL, $settings->redisUrl);
        $this->assertSame('127.0.0.1:8080', $settings->bind);
        $this->assertSame([4, 16, 4, 'idle'], [
            $settings->workers, $settings->poolMax, $settings->poolMin, $settings->pingOnAcquire,
        ]);
    }

    public function test_every_variable_is_read(): void
    {
        $settings = Settings::fromEnvironment([
            'WORKERS' => '2', 'BIND' => '[::1]:9000', 'POOL_MAX' => '+8', 'POOL_MIN' => '8',
            'DATABASE_URL' => 'postgres://x@h/db', 'REDIS_URL' => 'redis://h:1/2', 'PING_ON_ACQUIRE' => 'never',
            'UNRELATED' => 'x',
        ]);
        $this->assertSame(
            ['postgres://x@h/db', 'redis://h:1/2', '[::1]:9000', 2, 8, 8, 'never'],
            [
                $settings->databaseUrl, $settings->redisUrl, $settings->bind, $settings->workers,
                $settings->poolMax, $settings->poolMin, $settings->pingOnAcquire,
            ],
        );
        $this->assertSame(4294967295, Settings::fromEnvironment(['POOL_MAX' => '4294967295'])->poolMax);
    }

    /** @return array<string, array{string, string}> */
    public static function badValues(): array
    {
        return [
            'WORKERS four' => ['WORKERS', 'four'],
            'WORKERS empty' => ['WORKERS', ''],
            'WORKERS -1' => ['WORKERS', '-1'],
            'WORKERS spaced' => ['WORKERS', ' 4'],
            'POOL_MAX 0' => ['POOL_MAX', '0'],
            'POOL_MAX 2^32' => ['POOL_MAX', '4294967296'],
            'POOL_MIN 1.5' => ['POOL_MIN', '1.5'],
            'POOL_MIN over POOL_MAX' => ['POOL_MIN', '20'],
            'PING_ON_ACQUIRE 1' => ['PING_ON_ACQUIRE', '1'],
            'BIND no port' => ['BIND', '127.0.0.1'],
            'BIND port too large' => ['BIND', '127.0.0.1:65536'],
            'DATABASE_URL scheme' => ['DATABASE_URL', 'mysql://x@h/db'],
            'REDIS_URL scheme' => ['REDIS_URL', 'http://h:1'],
        ];
    }

    /** @dataProvider badValues */
    public function test_a_bad_value_names_its_variable(string $name, string $value): void
    {
        try {
            Settings::fromEnvironment([$name => $value]);
            $this->fail("{$name}={$value} accepted");
        } catch (InvalidArgumentException $error) {
            $this->assertStringStartsWith($name, $error->getMessage());
        }
    }
}
