package blogbench.webflux;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * The routes, their filter and their error answers (docs/spec.md §3), through the
 * application context with the repository mocked: no database, and a Redis that is down
 * (every cache lookup a miss).
 */
@SpringBootTest
@AutoConfigureWebTestClient
class BlogRouterTests {

	private static final String HTML = "text/html; charset=utf-8";

	private static final String TEXT = "text/plain; charset=utf-8";

	private static final String FORM = "application/x-www-form-urlencoded";

	@Autowired
	private WebTestClient client;

	@Autowired
	private Pages pages;

	@MockitoBean
	private BlogRepository repository;

	@TestConfiguration
	static class DownRedis {

		@Bean
		Settings settings() {
			return Settings.fromEnvironment(Map.of("REDIS_URL", "redis://127.0.0.1:1/0"));
		}

	}

	private static Views.PostPage post() {
		return new Views.PostPage("Title", "Author", "2024-01-01", List.of(), List.of("Body."), List.of());
	}

	@Test
	void aPost() {
		given(this.repository.findPost("a-post")).willReturn(Mono.just(post()));
		this.client.get()
			.uri("/posts/a-post")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("Content-Type", HTML)
			.expectHeader()
			.contentLength(this.pages.post(post()).length)
			.expectBody(byte[].class)
			.isEqualTo(this.pages.post(post()));
	}

	@Test
	void aCachedPostWithRedisDownIsRendered() {
		given(this.repository.findPost("a-post")).willReturn(Mono.just(post()));
		this.client.get().uri("/cached/posts/a-post").exchange().expectStatus().isOk();
	}

	@Test
	void aSegmentThatCannotBeASlugIsNotFoundBeforeAnyQuery() {
		for (String path : List.of("/posts/Upper", "/tags/a%20b", "/cached/posts/%00", "/posts/a%2Fb")) {
			notFound(this.client.get().uri(path).exchange());
		}
		notFound(this.client.post().uri("/posts/Upper/comments").header("Content-Type", FORM).exchange());
		verify(this.repository, never()).findPost(anyString());
		verify(this.repository, never()).findTag(anyString());
		verify(this.repository, never()).addComment(anyString(), any());
	}

	@Test
	void anUnknownSlugOrPathIsNotFound() {
		given(this.repository.findTag("no-such-tag")).willReturn(Mono.error(NotFoundException::new));
		notFound(this.client.get().uri("/tags/no-such-tag").exchange());
		for (String path : List.of("/no/such/page", "/posts", "/posts/", "/posts/a/b", "/cached/posts/", "/index.html",
				"/posts/a-post/comments")) {
			notFound(this.client.get().uri(path).exchange());
		}
	}

	@Test
	void aDatabaseFailureIs503() {
		given(this.repository.findHome()).willReturn(Mono.error(new DataAccessResourceFailureException("down")));
		text(this.client.get().uri("/").exchange(), 503, "database unavailable\n");
	}

	@Test
	void compute() {
		text(this.client.get().uri("/compute").exchange(), 200, "21171191\n");
		text(this.client.get().uri("/compute?n=10").exchange(), 200, "17\n");
		text(this.client.get().uri("/compute?n=abc").exchange(), 400, Compute.BAD_N_MESSAGE);
	}

	@Test
	void aComment() {
		given(this.repository.addComment("a-post", new CommentForm.Comment("Ann", "Hi there")))
			.willReturn(Mono.empty());
		this.client.post()
			.uri("/posts/a-post/comments")
			.header("Content-Type", FORM)
			.bodyValue("author_name=+Ann+&body=Hi+there")
			.exchange()
			.expectStatus()
			.isSeeOther()
			.expectHeader()
			.location("/posts/a-post")
			.expectHeader()
			.doesNotExist("Content-Type")
			.expectBody()
			.isEmpty();
	}

	@Test
	void aCommentRefused() {
		text(this.client.post().uri("/posts/a-post/comments").bodyValue("author_name=a&body=b").exchange(), 415,
				CommentForm.NOT_A_FORM.getMessage());
		text(this.client.post()
			.uri("/posts/a-post/comments")
			.header("Content-Type", "text/plain")
			.bodyValue("author_name=a&body=b")
			.exchange(), 415, CommentForm.NOT_A_FORM.getMessage());
		text(this.client.post()
			.uri("/posts/a-post/comments")
			.header("Content-Type", FORM)
			.bodyValue("author_name=a&body=" + "b".repeat(CommentForm.LIMIT))
			.exchange(), 413, CommentForm.TOO_LARGE.getMessage());
		text(this.client.post()
			.uri("/posts/a-post/comments")
			.header("Content-Type", FORM + "; charset=UTF-8")
			.bodyValue("author_name=a&body=%zz")
			.exchange(), 400, CommentForm.MALFORMED.getMessage());
		verify(this.repository, never()).addComment(anyString(), any());
	}

	@Test
	void aCommentOnAnUnknownPostIsNotFound() {
		given(this.repository.addComment(anyString(), any())).willReturn(Mono.error(NotFoundException::new));
		notFound(this.client.post()
			.uri("/posts/no-such-post/comments")
			.header("Content-Type", FORM)
			.bodyValue("author_name=a&body=b")
			.exchange());
	}

	private void notFound(WebTestClient.ResponseSpec response) {
		response.expectStatus()
			.isNotFound()
			.expectHeader()
			.valueEquals("Content-Type", HTML)
			.expectBody(byte[].class)
			.isEqualTo(this.pages.notFound());
	}

	private static void text(WebTestClient.ResponseSpec response, int status, String body) {
		response.expectStatus()
			.isEqualTo(status)
			.expectHeader()
			.valueEquals("Content-Type", TEXT)
			.expectBody(String.class)
			.isEqualTo(body);
	}

}
