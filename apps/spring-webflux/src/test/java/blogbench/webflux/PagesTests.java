package blogbench.webflux;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.mustache.autoconfigure.MustacheResourceTemplateLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Mustache templates print Go's bytes, whitespace included: the block and section
 * tags alone on a line print nothing, and the page ends with one newline.
 */
class PagesTests {

	private final Pages pages = new Pages(new TemplateConfiguration()
		.mustacheCompiler(new MustacheResourceTemplateLoader("classpath:/templates/", ".mustache")));

	@Test
	void theNotFoundPageIsGos() {
		assertThat(new String(this.pages.notFound(), StandardCharsets.UTF_8)).isEqualTo("""
				<!doctype html>
				<html lang="en">
				<head>
				<meta charset="utf-8">
				<title>Not found · blogbench</title>
				</head>
				<body>
				<header><a href="/">blogbench</a></header>
				<main>
				<h1>Not found</h1>
				<p>There is no page at this address. <a href="/">Back to the latest posts</a>.</p>
				</main>
				</body>
				</html>
				""");
	}

	@Test
	void aPostPage() {
		Views.PostPage post = new Views.PostPage("A & B", "Zoë", "2024-01-11",
				List.of(new Views.TagLink("C++", "cpp"), new Views.TagLink("Q&A", "qa")), List.of("One.", "", "Two."),
				List.of(new Views.CommentView("Ann", "2024-01-12 08:30", "<script>")));
		assertThat(new String(this.pages.post(post), StandardCharsets.UTF_8)).endsWith("""
				<title>A &amp; B · blogbench</title>
				</head>
				<body>
				<header><a href="/">blogbench</a></header>
				<main>
				<article>
				<h1>A &amp; B</h1>
				<p class="meta">by Zoë on <time>2024-01-11</time></p>
				<ul class="tags">
				<li><a href="/tags/cpp">C&#43;&#43;</a></li>
				<li><a href="/tags/qa">Q&amp;A</a></li>
				</ul>
				<p>One.</p>
				<p></p>
				<p>Two.</p>
				</article>
				<section class="comments">
				<h2>Comments (1)</h2>
				<div class="comment">
				<p class="meta">Ann at <time>2024-01-12 08:30</time></p>
				<p>&lt;script&gt;</p>
				</div>
				</section>
				</main>
				</body>
				</html>
				""");
	}

	@Test
	void aHomePageWithoutPosts() {
		assertThat(new String(this.pages.home(new Views.HomePage(List.of())), StandardCharsets.UTF_8))
			.contains("<main>\n<h1>Latest posts</h1>\n</main>\n");
	}

	@Test
	void aTagPage() {
		Views.PostCard card = new Views.PostCard("T", "t-1", "A", "2024-01-01", "E", List.of(), 0);
		assertThat(new String(this.pages.tag(new Views.TagPage("\"Quoted\"", "quoted", 7, List.of(card))),
				StandardCharsets.UTF_8))
			.contains("<title>Tag: &#34;Quoted&#34; · blogbench</title>")
			.contains("""
					<main>
					<h1>Posts tagged “&#34;Quoted&#34;”</h1>
					<p>7 posts in all; the latest 20:</p>
					<article>
					<h2><a href="/posts/t-1">T</a></h2>
					<p class="meta">by A on <time>2024-01-01</time></p>
					<p>E</p>
					<ul class="tags">
					</ul>
					</article>
					</main>
					""");
	}

}
