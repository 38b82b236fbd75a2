package blogbench.webflux;

/** An unknown slug, or a segment that cannot be one: the 404 page. */
public class NotFoundException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public NotFoundException() {
		// Thrown on every unknown slug: no message, no stack trace.
		super(null, null, false, false);
	}

}
