package blogbench.webflux;

import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Component;

/**
 * The Redis page cache of docs/spec.md §3.5, as go-shared/pagecache: pages stored under
 * "page:" + the uncached path, as their HTML bytes, with no expiry. A Redis that fails or
 * does not answer quickly is a miss, never the client's problem.
 */
@Component
public class PageCache {

	static final String HOME_KEY = "page:/";

	private static final Log logger = LogFactory.getLog(PageCache.class);

	private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

	/**
	 * One connection, made on first use (not at start-up: Redis may be down) and kept.
	 */
	private final Mono<RedisReactiveCommands<String, byte[]>> redis;

	/** Whether the last command failed, so that an outage is logged once. */
	private final AtomicBoolean failing = new AtomicBoolean();

	public PageCache(RedisClient client, RedisURI redisUri) {
		// A failed connection attempt is not cached: the next request tries again.
		this.redis = Mono.fromCompletionStage(() -> client.connectAsync(CODEC, redisUri))
			.map(StatefulRedisConnection::reactive)
			.cacheInvalidateIf((connection) -> false);
	}

	static String postKey(String slug) {
		return "page:/posts/" + slug;
	}

	/**
	 * The pages a new comment on post slug makes stale: the post's (its comments) and the
	 * home page (the counts).
	 */
	static String[] keysACommentChanges(String slug) {
		return new String[] { postKey(slug), HOME_KEY };
	}

	// region: cache
	/**
	 * The page stored under key: one GET on a hit; on a miss the page rendered and stored
	 * with one SET. When Redis fails, the page is rendered and nothing is stored.
	 * @param key the page's key
	 * @param render the page from the database
	 * @return the page's bytes
	 */
	public Mono<byte[]> page(String key, Mono<byte[]> render) {
		Mono<byte[]> stored = this.redis.flatMap((redis) -> redis.get(key))
			.doOnSuccess((page) -> note(null))
			.onErrorMap((error) -> {
				note(error);
				return new RedisUnavailable(error);
			});
		return stored.switchIfEmpty(render.flatMap((page) -> store(key, page)))
			.onErrorResume(RedisUnavailable.class, (unavailable) -> render);
	}

	private Mono<byte[]> store(String key, byte[] page) {
		return this.redis.flatMap((redis) -> redis.set(key, page))
			.doOnSuccess((ok) -> note(null))
			.onErrorResume((error) -> {
				note(error);
				return Mono.empty();
			})
			.thenReturn(page);
	}
	// endregion

	/**
	 * Deletes keys with one DEL, after a write. Best effort: the write is committed, so a
	 * Redis failure is logged (once) and the answer stays the same.
	 * @param keys the keys
	 * @return completes when done, never with an error
	 */
	public Mono<Void> invalidate(String... keys) {
		return this.redis.flatMap((redis) -> redis.del(keys))
			.doOnSuccess((deleted) -> note(null))
			.onErrorResume((error) -> {
				note(error);
				return Mono.empty();
			})
			.then();
	}

	/** Logs when Redis starts failing and when it answers again. */
	private void note(Throwable error) {
		if (error == null) {
			if (this.failing.get() && this.failing.compareAndSet(true, false)) {
				logger.warn("redis is back: caching pages again");
			}
		}
		else if (this.failing.compareAndSet(false, true)) {
			logger.warn("redis unavailable, rendering cached routes from the database: " + error.getMessage());
		}
	}

	/** A lookup that Redis could not answer: a miss that stores nothing. */
	private static final class RedisUnavailable extends RuntimeException {

		private static final long serialVersionUID = 1L;

		RedisUnavailable(Throwable cause) {
			super(null, cause, false, false);
		}

	}

}
