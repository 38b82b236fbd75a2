package blogbench.webflux;

import java.net.URI;
import java.util.OptionalLong;

import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The handler functions of the routes (docs/spec.md §3.1). Each page is rendered whole to
 * bytes and sent with its length; failures are errors, which {@link BlogRouter} answers.
 */
@Component
public class BlogHandler {

	// Written as headers, not as MediaType, which prints "text/html;charset=utf-8".
	static final String HTML = "text/html; charset=utf-8";

	static final String TEXT = "text/plain; charset=utf-8";

	private final BlogRepository repository;

	private final PageCache pageCache;

	private final Pages pages;

	public BlogHandler(BlogRepository repository, PageCache pageCache, Pages pages) {
		this.repository = repository;
		this.pageCache = pageCache;
		this.pages = pages;
	}

	Mono<ServerResponse> home(ServerRequest request) {
		return html(renderHome());
	}

	// region: detail-page
	/**
	 * A filter of the routes with a {slug}: a segment that cannot be a slug gets the 404
	 * page before any query, Redis command or body read (§3.1).
	 * @param request the request
	 * @param next the route's handler
	 * @return the response
	 */
	Mono<ServerResponse> requireSlug(ServerRequest request, HandlerFunction<ServerResponse> next) {
		String slug = request.pathVariables().get("slug");
		if (slug != null && !Slugs.isSlug(slug)) {
			return notFound();
		}
		return next.handle(request);
	}

	Mono<ServerResponse> post(ServerRequest request) {
		return html(renderPost(request.pathVariable("slug")));
	}

	private Mono<byte[]> renderPost(String slug) {
		return this.repository.findPost(slug).map(this.pages::post);
	}
	// endregion

	Mono<ServerResponse> tag(ServerRequest request) {
		return html(this.repository.findTag(request.pathVariable("slug")).map(this.pages::tag));
	}

	Mono<ServerResponse> cachedHome(ServerRequest request) {
		return html(this.pageCache.page(PageCache.HOME_KEY, renderHome()));
	}

	// region: cache
	Mono<ServerResponse> cachedPost(ServerRequest request) {
		String slug = request.pathVariable("slug");
		return html(this.pageCache.page(PageCache.postKey(slug), renderPost(slug)));
	}
	// endregion

	/** The sum of the primes below n, n read from the raw query string (§3.6). */
	Mono<ServerResponse> compute(ServerRequest request) {
		String query = request.uri().getRawQuery();
		OptionalLong n = Compute.parseN((query != null) ? query : "");
		if (n.isEmpty()) {
			return text(HttpStatus.BAD_REQUEST, Compute.BAD_N_MESSAGE);
		}
		return text(HttpStatus.OK, Compute.sumOfPrimesBelow(n.getAsLong()) + "\n");
	}

	// region: comment
	/**
	 * Stores a comment (§3.9): the Content-Type, the body (read up to Spring's codec
	 * limit, spring.codec.max-in-memory-size, 16 KiB) and the form are checked before
	 * anything else; the insert in one transaction, then the post's and the home page's
	 * cached copies deleted, and a 303 to the post. Once sent, the write and the
	 * invalidation are not cancelled when the client goes away: a committed comment whose
	 * pages stayed cached would be a stale page for every reader.
	 */
	Mono<ServerResponse> addComment(ServerRequest request) {
		String slug = request.pathVariable("slug");
		if (!CommentForm.isForm(request.headers().firstHeader(HttpHeaders.CONTENT_TYPE))) {
			return Mono.error(CommentForm.NOT_A_FORM);
		}
		return request.bodyToMono(byte[].class)
			.onErrorMap(DataBufferLimitException.class, (tooLarge) -> CommentForm.TOO_LARGE)
			.defaultIfEmpty(new byte[0])
			.map(CommentForm::parse)
			.flatMap((comment) -> Mono.fromFuture(this.repository.addComment(slug, comment)
				.then(this.pageCache.invalidate(PageCache.keysACommentChanges(slug)))
				.toFuture(), true))
			.then(ServerResponse.seeOther(URI.create("/posts/" + slug)).build());
	}
	// endregion

	Mono<ServerResponse> notFound(ServerRequest request) {
		return notFound();
	}

	/**
	 * The 404 page.
	 * @return the response
	 */
	Mono<ServerResponse> notFound() {
		return ServerResponse.status(HttpStatus.NOT_FOUND)
			.header(HttpHeaders.CONTENT_TYPE, HTML)
			.bodyValue(this.pages.notFound());
	}

	private Mono<byte[]> renderHome() {
		return this.repository.findHome().map(this.pages::home);
	}

	private static Mono<ServerResponse> html(Mono<byte[]> page) {
		return page.flatMap((bytes) -> ServerResponse.ok().header(HttpHeaders.CONTENT_TYPE, HTML).bodyValue(bytes));
	}

	static Mono<ServerResponse> text(HttpStatus status, String body) {
		return ServerResponse.status(status).header(HttpHeaders.CONTENT_TYPE, TEXT).bodyValue(body);
	}

}
