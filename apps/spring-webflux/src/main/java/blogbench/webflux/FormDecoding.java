package blogbench.webflux;

import java.io.ByteArrayOutputStream;

/**
 * Go's url.QueryUnescape on bytes, which both the /compute query and the comment form are
 * decoded by: '+' is a space, %XX that byte, and any other '%' makes the text
 * undecodable.
 */
final class FormDecoding {

	private FormDecoding() {
	}

	/**
	 * A piece of a query or form split at its first '=' (none: the value is empty), key
	 * and value each unescaped.
	 * @param piece the piece's bytes
	 * @return {key, value}, or null when either cannot be unescaped
	 */
	static byte[][] pair(byte[] piece) {
		int eq = indexOf(piece, (byte) '=');
		byte[] key = unescape(piece, 0, (eq == -1) ? piece.length : eq);
		byte[] value = (eq == -1) ? new byte[0] : unescape(piece, eq + 1, piece.length);
		return (key == null || value == null) ? null : new byte[][] { key, value };
	}

	private static byte[] unescape(byte[] text, int from, int to) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
		for (int i = from; i < to; i++) {
			byte c = text[i];
			if (c == '+') {
				out.write(' ');
			}
			else if (c != '%') {
				out.write(c);
			}
			else if (i + 2 < to && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
				out.write(hex(text[i + 1]) * 16 + hex(text[i + 2]));
				i += 2;
			}
			else {
				return null;
			}
		}
		return out.toByteArray();
	}

	private static int hex(byte c) {
		if (c >= '0' && c <= '9') {
			return c - '0';
		}
		if (c >= 'a' && c <= 'f') {
			return c - 'a' + 10;
		}
		if (c >= 'A' && c <= 'F') {
			return c - 'A' + 10;
		}
		return -1;
	}

	static int indexOf(byte[] bytes, byte b) {
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == b) {
				return i;
			}
		}
		return -1;
	}

}
