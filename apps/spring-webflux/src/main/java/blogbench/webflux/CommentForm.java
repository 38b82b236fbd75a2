package blogbench.webflux;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * The comment form's rule (docs/spec.md §3.9), this app's copy of
 * go-shared/workload/comment.go: which requests carry a form, how its body decodes, what
 * a valid comment is, and the answer to anything else.
 */
public final class CommentForm {

	static final String CONTENT_TYPE = "application/x-www-form-urlencoded";

	/** Bytes. */
	static final int LIMIT = 16 * 1024;

	private static final int AUTHOR_MAX_CHARS = 80;

	private static final int BODY_MAX_CHARS = 2000;

	// The refusals of the whole form, in the order the comment route checks them.
	static final Refusal NOT_A_FORM = new Refusal(415, "a comment must be sent as application/x-www-form-urlencoded\n");

	static final Refusal TOO_LARGE = new Refusal(413, "a comment form must be at most 16384 bytes\n");

	static final Refusal MALFORMED = new Refusal(400, "the comment form is not valid form encoding\n");

	// What Go's strings.TrimSpace trims: Unicode's White_Space characters.
	private static final String WHITE_SPACE = "\t\n\u000B\f\r \u0085\u00A0\u1680\u2000\u2001\u2002\u2003\u2004"
			+ "\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000";

	private CommentForm() {
	}

	/**
	 * A comment that passed the rule, its fields trimmed.
	 *
	 * @param authorName the author's name
	 * @param body the text
	 */
	public record Comment(String authorName, String body) {
	}

	/**
	 * A request that is not a valid comment: a 4xx with a plain-text body, and no query.
	 */
	public static final class Refusal extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final int status;

		Refusal(int status, String message) {
			super(message, null, false, false);
			this.status = status;
		}

		/**
		 * The answer's status.
		 * @return 400, 413 or 415
		 */
		public int status() {
			return this.status;
		}

	}

	/**
	 * Whether a Content-Type names a form: its media type (before any ';', without spaces
	 * or tabs around it) is application/x-www-form-urlencoded in any ASCII case.
	 * @param contentType the header's value, or null when there is none
	 * @return whether it is a form
	 */
	public static boolean isForm(String contentType) {
		if (contentType == null) {
			return false;
		}
		int semicolon = contentType.indexOf(';');
		String mediaType = trim((semicolon == -1) ? contentType : contentType.substring(0, semicolon), " \t");
		return mediaType.length() == CONTENT_TYPE.length() && asciiLowerCase(mediaType).equals(CONTENT_TYPE);
	}

	/**
	 * The comment in a form body. Pieces split on '&' (empty ones skipped) and at the
	 * first '='; a bad escape anywhere makes the form malformed; the first author_name
	 * and the first body count; then each field is checked, author_name first.
	 * @param form the body
	 * @return the comment
	 * @throws Refusal when the form is not a valid comment
	 */
	public static Comment parse(byte[] form) {
		if (form.length > LIMIT) {
			throw TOO_LARGE;
		}
		byte[] author = null;
		byte[] text = null;
		int start = 0;
		while (start <= form.length) {
			int end = start;
			while (end < form.length && form[end] != '&') {
				end++;
			}
			if (end > start) {
				byte[] piece = new byte[end - start];
				System.arraycopy(form, start, piece, 0, piece.length);
				byte[][] pair = FormDecoding.pair(piece);
				if (pair == null) {
					throw MALFORMED;
				}
				String key = new String(pair[0], StandardCharsets.ISO_8859_1);
				if (key.equals("author_name") && author == null) {
					author = pair[1];
				}
				else if (key.equals("body") && text == null) {
					text = pair[1];
				}
			}
			start = end + 1;
		}
		return new Comment(field("author_name", AUTHOR_MAX_CHARS, author), field("body", BODY_MAX_CHARS, text));
	}

	/**
	 * The trimmed field: present, UTF-8, without NUL (PostgreSQL's text cannot hold one),
	 * not empty after trimming white space, at most maxChars characters.
	 */
	private static String field(String name, int maxChars, byte[] value) {
		if (value == null) {
			throw new Refusal(400, name + " is required\n");
		}
		String text;
		try {
			text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(value)).toString();
		}
		catch (CharacterCodingException ex) {
			throw new Refusal(400, name + " must be valid UTF-8\n");
		}
		if (text.indexOf('\0') != -1) {
			throw new Refusal(400, name + " must not contain NUL characters\n");
		}
		String trimmed = trim(text, WHITE_SPACE);
		if (trimmed.isEmpty()) {
			throw new Refusal(400, name + " is required\n");
		}
		// Counted in code points (Go counts runes), not UTF-16 units.
		if (trimmed.codePointCount(0, trimmed.length()) > maxChars) {
			throw new Refusal(400, name + " must be at most " + maxChars + " characters\n");
		}
		return trimmed;
	}

	private static String trim(String text, String characters) {
		int start = 0;
		int end = text.length();
		while (start < end && characters.indexOf(text.charAt(start)) != -1) {
			start++;
		}
		while (end > start && characters.indexOf(text.charAt(end - 1)) != -1) {
			end--;
		}
		return text.substring(start, end);
	}

	private static String asciiLowerCase(String text) {
		StringBuilder lower = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			lower.append((c >= 'A' && c <= 'Z') ? (char) (c + ('a' - 'A')) : c);
		}
		return lower.toString();
	}

}
