<?php

namespace App\Blog;

use Closure;
use Illuminate\Redis\Connections\Connection;
use Illuminate\Redis\RedisManager;
use Illuminate\Support\Facades\Log;
use Redis;
use RedisException;

/**
 * The Redis page cache of docs/spec.md §3.5, as go-shared/pagecache: pages
 * stored under "page:" + the uncached path, as their HTML bytes, with no
 * expiry. A Redis that fails or does not answer quickly is a miss, never the
 * client's problem.
 */
final class PageCache
{
    public const HOME_KEY = 'page:/';

    public function __construct(private readonly RedisManager $redis)
    {
    }

    public static function postKey(string $slug): string
    {
        return "page:/posts/{$slug}";
    }

    /**
     * The pages a new comment on post $slug makes stale: the post's (its
     * comments) and the home page (the counts).
     *
     * @return list<string>
     */
    public static function keysACommentChanges(string $slug): array
    {
        return [self::postKey($slug), self::HOME_KEY];
    }

    // region: cache
    /**
     * The page stored under $key: one GET on a hit; on a miss the page
     * rendered and stored with one SET. When Redis fails, the page is rendered
     * and nothing is stored.
     *
     * @param  Closure(): string  $render
     */
    public function remember(string $key, Closure $render): string
    {
        try {
            $redis = $this->connection();
            $page = $redis->get($key);
        } catch (RedisException $error) {
            self::unavailable($error);

            return $render();
        }
        if ($page !== null) {
            return $page;
        }
        $page = $render();
        try {
            $redis->set($key, $page);
        } catch (RedisException $error) {
            self::unavailable($error);
        }

        return $page;
    }
    // endregion

    /**
     * Deletes $keys with one DEL, after a write. Best effort: the write is
     * committed, so a Redis failure is logged and the answer stays the same.
     */
    public function forget(string ...$keys): void
    {
        try {
            $this->connection()->del(...$keys);
        } catch (RedisException $error) {
            self::unavailable($error);
        }
    }

    /**
     * The worker's persistent connection (config/database.php), which phpredis
     * checks for a close before reuse without a round trip. Its command retries
     * are off: phpredis would reconnect up to 10 times on a connection found
     * closed, each after the 250 ms connect timeout when Redis is unreachable.
     */
    private function connection(): Connection
    {
        $connection = $this->redis->connection();
        $connection->client()->setOption(Redis::OPT_MAX_RETRIES, 0);

        return $connection;
    }

    /**
     * Logs a failed command. PHP-FPM's workers share no memory, so unlike Go's
     * cache this cannot log only the first failure of an outage: it logs each.
     */
    private static function unavailable(RedisException $error): void
    {
        Log::warning('redis unavailable, rendering cached routes from the database: ' . $error->getMessage());
    }
}
