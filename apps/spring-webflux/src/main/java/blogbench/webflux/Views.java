package blogbench.webflux;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The data each page template renders, as go-shared/blog/views.go: dates are formatted
 * here (docs/spec.md §2: YYYY-MM-DD, comment times YYYY-MM-DD HH:MM, UTC), so no template
 * formats one.
 */
public final class Views {

	private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd");

	private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

	private Views() {
	}

	/**
	 * A tag as a page links it.
	 *
	 * @param name the tag's name
	 * @param slug the tag's slug
	 */
	public record TagLink(String name, String slug) {
	}

	/**
	 * A post in a list; the comment count is shown on the home page only.
	 *
	 * @param title the title
	 * @param slug the slug
	 * @param author the author's name
	 * @param date the publication date
	 * @param excerpt the excerpt
	 * @param tags the tags, by slug
	 * @param commentCount the number of comments
	 */
	public record PostCard(String title, String slug, String author, String date, String excerpt, List<TagLink> tags,
			long commentCount) {
	}

	/**
	 * The view data of /.
	 *
	 * @param posts the latest 20 posts
	 */
	public record HomePage(List<PostCard> posts) {
	}

	/**
	 * A comment as the post page shows it.
	 *
	 * @param author the author's name
	 * @param time when it was posted
	 * @param body the text
	 */
	public record CommentView(String author, String time, String body) {
	}

	/**
	 * The view data of /posts/{slug}.
	 *
	 * @param title the title
	 * @param author the author's name
	 * @param date the publication date
	 * @param tags the tags, by slug
	 * @param paragraphs the body split on blank lines, one {@code <p>} each
	 * @param comments the comments, oldest first
	 */
	public record PostPage(String title, String author, String date, List<TagLink> tags, List<String> paragraphs,
			List<CommentView> comments) {
	}

	/**
	 * The view data of /tags/{slug}.
	 *
	 * @param name the tag's name
	 * @param slug the tag's slug
	 * @param postCount how many posts carry the tag
	 * @param posts its latest 20 posts
	 */
	public record TagPage(String name, String slug, long postCount, List<PostCard> posts) {
	}

	static String date(OffsetDateTime time) {
		return DATE.format(time.withOffsetSameInstant(ZoneOffset.UTC));
	}

	static String minute(OffsetDateTime time) {
		return MINUTE.format(time.withOffsetSameInstant(ZoneOffset.UTC));
	}

	/** A post body split on blank lines, empty paragraphs kept (Go's strings.Split). */
	static List<String> paragraphs(String body) {
		return List.of(body.split("\n\n", -1));
	}

}
