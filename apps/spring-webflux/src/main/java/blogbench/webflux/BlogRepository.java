package blogbench.webflux;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import blogbench.webflux.CommentForm.Comment;
import blogbench.webflux.Views.CommentView;
import blogbench.webflux.Views.HomePage;
import blogbench.webflux.Views.PostCard;
import blogbench.webflux.Views.PostPage;
import blogbench.webflux.Views.TagLink;
import blogbench.webflux.Views.TagPage;
import io.r2dbc.spi.Readable;
import reactor.core.publisher.Mono;

import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * The blog in PostgreSQL through Spring's DatabaseClient: each page's view data
 * (docs/spec.md §3.1: the statements of {@link Queries} in the spec's order, each on a
 * connection the client takes from the pool for it, as Go's pool.Query does) and the
 * transaction that stores a comment (§3.9). An unknown slug is a
 * {@link NotFoundException}; a failure of the database a Spring DataAccessException or
 * TransactionException.
 */
@Repository
public class BlogRepository {

	private final DatabaseClient database;

	private final TransactionalOperator transactions;

	public BlogRepository(DatabaseClient database, TransactionalOperator transactions) {
		this.database = database;
		this.transactions = transactions;
	}

	/**
	 * The view data of / (3 statements).
	 * @return the home page
	 */
	public Mono<HomePage> findHome() {
		return this.database.sql(Queries.HOME_POSTS).map(PostSummary::of).all().collectList().flatMap((posts) -> {
			Integer[] ids = ids(posts);
			return tagsOfPosts(ids)
				.flatMap((tags) -> commentCounts(ids).map((counts) -> new HomePage(cards(posts, tags, counts))));
		});
	}

	// region: detail-page
	/**
	 * The view data of /posts/{slug} (3 statements), or a NotFoundException after one.
	 * @param slug the post's slug
	 * @return the post page
	 */
	public Mono<PostPage> findPost(String slug) {
		return this.database.sql(Queries.POST_BY_SLUG)
			.bind(0, slug)
			.map(Post::of)
			.one()
			.switchIfEmpty(Mono.error(NotFoundException::new))
			.flatMap((post) -> this.database.sql(Queries.TAGS_OF_POST)
				.bind(0, post.id())
				.map(BlogRepository::tagLink)
				.all()
				.collectList()
				.flatMap((tags) -> this.database.sql(Queries.COMMENTS_OF_POST)
					.bind(0, post.id())
					.map(BlogRepository::comment)
					.all()
					.collectList()
					.map((comments) -> new PostPage(post.title(), post.authorName(), Views.date(post.publishedAt()),
							tags, Views.paragraphs(post.body()), comments))));
	}
	// endregion

	/**
	 * The view data of /tags/{slug} (4 statements), or a NotFoundException after one.
	 * @param slug the tag's slug
	 * @return the tag page
	 */
	public Mono<TagPage> findTag(String slug) {
		return this.database.sql(Queries.TAG_BY_SLUG)
			.bind(0, slug)
			.map((row) -> new Tag(row.get("id", Integer.class), tagLink(row)))
			.one()
			.switchIfEmpty(Mono.error(NotFoundException::new))
			.flatMap((tag) -> this.database.sql(Queries.TAG_POSTS)
				.bind(0, tag.id())
				.map(PostSummary::of)
				.all()
				.collectList()
				.flatMap((posts) -> tagsOfPosts(ids(posts)).flatMap((tags) -> this.database.sql(Queries.TAG_POST_COUNT)
					.bind(0, tag.id())
					.map((row) -> row.get(0, Long.class))
					.one()
					.map((count) -> new TagPage(tag.link().name(), tag.link().slug(), count,
							cards(posts, tags, Map.of()))))));
	}

	// region: comment
	/**
	 * Stores a comment on the post slug in one transaction: 4 statements (BEGIN,
	 * POST_ID_BY_SLUG, INSERT_COMMENT, COMMIT), or a NotFoundException after a rollback.
	 * @param slug the post's slug
	 * @param comment the comment
	 * @return completes once committed
	 */
	public Mono<Void> addComment(String slug, Comment comment) {
		return this.database.sql(Queries.POST_ID_BY_SLUG)
			.bind(0, slug)
			.map((row) -> row.get("id", Integer.class))
			.one()
			.switchIfEmpty(Mono.error(NotFoundException::new))
			.flatMap((postId) -> this.database.sql(Queries.INSERT_COMMENT)
				.bind(0, postId)
				.bind(1, comment.authorName())
				.bind(2, comment.body())
				.then())
			.as(this.transactions::transactional);
	}
	// endregion

	private Mono<List<PostTag>> tagsOfPosts(Integer[] ids) {
		return this.database.sql(Queries.TAGS_OF_POSTS).bind(0, ids).map(PostTag::of).all().collectList();
	}

	private Mono<Map<Integer, Long>> commentCounts(Integer[] ids) {
		return this.database.sql(Queries.COMMENT_COUNTS)
			.bind(0, ids)
			.map((row) -> Map.entry(row.get("post_id", Integer.class), row.get("comment_count", Long.class)))
			.all()
			.collectMap(Map.Entry::getKey, Map.Entry::getValue);
	}

	private static TagLink tagLink(Readable row) {
		return new TagLink(row.get("name", String.class), row.get("slug", String.class));
	}

	private static CommentView comment(Readable row) {
		return new CommentView(row.get("author_name", String.class),
				Views.minute(row.get("created_at", OffsetDateTime.class)), row.get("body", String.class));
	}

	private static Integer[] ids(List<PostSummary> posts) {
		return posts.stream().map(PostSummary::id).toArray(Integer[]::new);
	}

	/**
	 * The list entries for posts, with their tags grouped by post id (in query order) and
	 * their comment counts (0 for a post with no row; none on the tag page).
	 */
	private static List<PostCard> cards(List<PostSummary> posts, List<PostTag> tags, Map<Integer, Long> counts) {
		Map<Integer, List<TagLink>> tagsByPost = new HashMap<>();
		for (PostTag tag : tags) {
			tagsByPost.computeIfAbsent(tag.postId(), (id) -> new ArrayList<>()).add(tag.link());
		}
		List<PostCard> cards = new ArrayList<>(posts.size());
		for (PostSummary post : posts) {
			cards.add(new PostCard(post.title(), post.slug(), post.authorName(), Views.date(post.publishedAt()),
					post.excerpt(), tagsByPost.getOrDefault(post.id(), List.of()), counts.getOrDefault(post.id(), 0L)));
		}
		return cards;
	}

	// The rows, as in shared-sql/src/lib.rs.

	private record PostSummary(int id, String title, String slug, String excerpt, OffsetDateTime publishedAt,
			String authorName) {

		static PostSummary of(Readable row) {
			return new PostSummary(row.get("id", Integer.class), row.get("title", String.class),
					row.get("slug", String.class), row.get("excerpt", String.class),
					row.get("published_at", OffsetDateTime.class), row.get("author_name", String.class));
		}

	}

	private record Post(int id, String title, String body, OffsetDateTime publishedAt, String authorName) {

		static Post of(Readable row) {
			return new Post(row.get("id", Integer.class), row.get("title", String.class), row.get("body", String.class),
					row.get("published_at", OffsetDateTime.class), row.get("author_name", String.class));
		}

	}

	private record PostTag(int postId, TagLink link) {

		static PostTag of(Readable row) {
			return new PostTag(row.get("post_id", Integer.class), tagLink(row));
		}

	}

	private record Tag(int id, TagLink link) {
	}

}
