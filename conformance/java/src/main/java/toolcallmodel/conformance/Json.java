package toolcallmodel.conformance;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The runner's own JSON: vectors read as plain maps, lists and scalars (numbers
 * kept exact), results written with the same mapper. This is tooling, not the
 * code under test: Spring AI's own mappers are used wherever Spring parses.
 */
final class Json {

	static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxStringLength(Integer.MAX_VALUE)
			.maxNestingDepth(100_000)
			.maxNumberLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1L)
			.build())
		// Results nest as deep as a payload Jackson accepted (500) plus the
		// request and line around it, past the writer's default of 500.
		.streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(100_000).build())
		.build()).enable(tools.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

	private Json() {
	}

	static Object parse(String text) {
		return MAPPER.readValue(text, Object.class);
	}

	static String write(Object value) {
		return MAPPER.writeValueAsString(value);
	}

	/** A fault of the vector or of the runner: reported, never a result. */
	static final class Fault extends RuntimeException {

		Fault(String message) {
			super(message);
		}

	}

	/** A vector the real classes cannot express. */
	static final class OutOfScope extends RuntimeException {

		OutOfScope(String message) {
			super(message);
		}

	}

	@SuppressWarnings("unchecked")
	static Map<String, Object> obj(Object v, String where) {
		if (v == null) {
			return new LinkedHashMap<>();
		}
		if (!(v instanceof Map)) {
			throw new Fault(where + ": expected an object");
		}
		return (Map<String, Object>) v;
	}

	@SuppressWarnings("unchecked")
	static List<Object> arr(Object v, String where) {
		if (v == null) {
			return new ArrayList<>();
		}
		if (!(v instanceof List)) {
			throw new Fault(where + ": expected an array");
		}
		return (List<Object>) v;
	}

	static String str(Object v, String where) {
		if (v == null) {
			return null;
		}
		if (!(v instanceof String s)) {
			throw new Fault(where + ": expected a string");
		}
		return s;
	}

	static boolean bool(Object v, boolean dflt, String where) {
		if (v == null) {
			return dflt;
		}
		if (!(v instanceof Boolean b)) {
			throw new Fault(where + ": expected a boolean");
		}
		return b;
	}

	/** An integer that fits Java's int, or a fault. */
	static int javaInt(Object v, String where) {
		BigInteger big;
		if (v instanceof Integer i) {
			return i;
		}
		else if (v instanceof Long l) {
			big = BigInteger.valueOf(l);
		}
		else if (v instanceof BigInteger b) {
			big = b;
		}
		else if (v instanceof BigDecimal d) {
			try {
				big = d.toBigIntegerExact();
			}
			catch (ArithmeticException e) {
				throw new Fault(where + ": expected an integer");
			}
		}
		else {
			throw new Fault(where + ": expected an integer");
		}
		if (big.bitLength() > 31) {
			throw new Fault(where + ": " + big + " is not a Java int");
		}
		return big.intValue();
	}

	static Map<String, Object> map(Object... kv) {
		Map<String, Object> m = new LinkedHashMap<>();
		for (int i = 0; i < kv.length; i += 2) {
			m.put((String) kv[i], kv[i + 1]);
		}
		return m;
	}

}
