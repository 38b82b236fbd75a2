package blogbench.webflux;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Rewrites a query string that java.net.URI refuses into one it takes and that the
 * /compute query rule (Go's url.ParseQuery, docs/spec.md §3.6) reads alike. Spring's
 * Reactor Netty adapter parses every request target with java.net.URI and answers a
 * refused one 400 with no body before any handler runs (ReactorHttpHandlerAdapter#apply
 * on a URISyntaxException), where Go reads a bad escape as an undecodable piece:
 * {@code /compute?x=%zz&n=10} is n = 10. So a '%' not followed by two hex digits becomes
 * ';', which makes its piece undecodable as well, and any other character URI refuses is
 * percent-encoded, which decodes to itself. The path is left as it is.
 */
@ChannelHandler.Sharable
final class QueryEscaper extends ChannelInboundHandlerAdapter {

	private static final String HEX = "0123456789ABCDEF";

	@Override
	public void channelRead(ChannelHandlerContext context, Object message) {
		if (message instanceof HttpRequest request) {
			String target = request.uri();
			int query = target.indexOf('?');
			if (query != -1 && needsEscaping(target, query + 1)) {
				request.setUri(target.substring(0, query + 1) + escape(target.substring(query + 1)));
			}
		}
		context.fireChannelRead(message);
	}

	private static boolean needsEscaping(String target, int from) {
		for (int i = from; i < target.length(); i++) {
			char c = target.charAt(i);
			if (c == '%' ? !escapeAt(target, i) : !allowed(c)) {
				return true;
			}
		}
		return false;
	}

	static String escape(String query) {
		StringBuilder out = new StringBuilder(query.length() + 16);
		for (int i = 0; i < query.length(); i++) {
			char c = query.charAt(i);
			if (c == '%') {
				out.append(escapeAt(query, i) ? '%' : ';');
			}
			else if (allowed(c)) {
				out.append(c);
			}
			else { // Netty reads the request line as ISO-8859-1: one char per byte
				out.append('%').append(HEX.charAt((c >> 4) & 0xF)).append(HEX.charAt(c & 0xF));
			}
		}
		return out.toString();
	}

	private static boolean escapeAt(String text, int percent) {
		return percent + 2 < text.length() && isHex(text.charAt(percent + 1)) && isHex(text.charAt(percent + 2));
	}

	private static boolean isHex(char c) {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	}

	/**
	 * Characters java.net.URI takes in a query as they are: unreserved and reserved ones.
	 */
	private static boolean allowed(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "-_.!~*'();/?:@&=+$,".indexOf(c) != -1;
	}

}
