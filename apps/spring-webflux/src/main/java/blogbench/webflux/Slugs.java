package blogbench.webflux;

/**
 * The slug rule (docs/spec.md §3.1), this app's copy of go-shared/workload/slug.go.
 */
public final class Slugs {

	static final int MAX_LENGTH = 100;

	private Slugs() {
	}

	/**
	 * Whether a decoded path segment may be a slug: 1 to 100 bytes, each a-z, 0-9 or '-'.
	 * Anything else gets the 404 page before any query: PostgreSQL rejects a NUL or
	 * invalid UTF-8 in a text parameter, which would otherwise read as an outage.
	 * @param segment the decoded segment
	 * @return whether it may be a slug
	 */
	public static boolean isSlug(String segment) {
		int length = segment.length();
		if (length == 0 || length > MAX_LENGTH) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			char c = segment.charAt(i);
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
				return false;
			}
		}
		return true;
	}

}
