import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Differential oracle for src/jackson.rs: reads each text the way Spring AI's
 * parseJsonToMap does (readValue(text, Object.class) with FAIL_ON_TRAILING_TOKENS
 * disabled) on Debian's Jackson 2.14 and prints one line per text:
 *
 *   OK <canonical value>      or      ERR <exception simple name> <message>
 *
 * Canonical value, shared with tests/jackson_diff.rs:
 *   n | t | f | i<decimal> | d<16 hex digits of the double's bits> | s"<string>"
 *   [v,v,...] | {s"k":v,...}
 * Strings: printable ASCII except '"' and '\' as is, every other UTF-16 unit as
 * \\uXXXX (lowercase hex); unpaired surrogates are first replaced by U+FFFD,
 * as the Rust model stores them. An integer of the wrong Java class for its
 * magnitude prints as i!<class>:<decimal>, which never matches.
 *
 * Usage: java Harness IN OUT, IN holding one JSON string literal per line.
 */
public class Harness {
    public static void main(String[] args) throws Exception {
        // Debian's backported JsonFactory ignores builder-supplied constraints,
        // so the process-wide default is the only way to get Jackson 3's depth 500.
        StreamReadConstraints.overrideDefaultStreamReadConstraints(
                StreamReadConstraints.builder().maxNestingDepth(500).build());
        // A fresh BufferRecycler per parser: a recycled, previously grown buffer
        // would move the Reader chunk boundaries of long texts (see the number
        // length quirk), making results depend on the order of texts.
        JsonFactory factory = JsonFactory.builder()
                .disable(JsonFactory.Feature.USE_THREAD_LOCAL_FOR_BUFFER_RECYCLING)
                .build();
        ObjectMapper mapper = JsonMapper.builder(factory)
                .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.ACCEPT_EMPTY_STRING_AS_NULL_OBJECT)
                .build();
        ObjectMapper decoder = new ObjectMapper();

        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                new FileInputStream(args[0]), StandardCharsets.UTF_8), 1 << 20);
             BufferedWriter out = new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(args[1]), StandardCharsets.UTF_8), 1 << 20)) {
            String line;
            while ((line = in.readLine()) != null) {
                String text = decodeLine(decoder, line);
                String result;
                try {
                    Object value = mapper.readValue(text, Object.class);
                    StringBuilder sb = new StringBuilder("OK ");
                    canon(value, sb);
                    result = sb.toString();
                } catch (Throwable e) {
                    result = "ERR " + e.getClass().getSimpleName() + " " + oneLine(e.getMessage());
                }
                out.write(result);
                out.write('\n');
            }
        }
    }

    /** The line is a JSON string literal; Jackson decodes it unless it is too
     *  long for the 20M string limit, which also applies to this decoder. */
    static String decodeLine(ObjectMapper decoder, String line) throws Exception {
        if (line.length() < 19_000_000) {
            return decoder.readValue(line, String.class);
        }
        return decodeManually(line);
    }

    static String decodeManually(String line) {
        StringBuilder sb = new StringBuilder(line.length());
        int end = line.length() - 1;
        if (line.charAt(0) != '"' || line.charAt(end) != '"') {
            throw new IllegalArgumentException("not a JSON string literal");
        }
        for (int i = 1; i < end; i++) {
            char c = line.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = line.charAt(++i);
            switch (e) {
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u':
                    sb.append((char) Integer.parseInt(line.substring(i + 1, i + 5), 16));
                    i += 4;
                    break;
                default: sb.append(e);
            }
        }
        return sb.toString();
    }

    static String oneLine(String message) {
        if (message == null) {
            return "";
        }
        String first = message.replace('\r', ' ').replace('\n', ' ');
        if (first.length() > 300) {
            first = first.substring(0, 300) + "...";
        }
        return first;
    }

    /** Recursion is bounded by the nesting depth limit (500). */
    static void canon(Object v, StringBuilder sb) {
        if (v == null) {
            sb.append('n');
        } else if (v instanceof Boolean) {
            sb.append(((Boolean) v) ? 't' : 'f');
        } else if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
            BigInteger big = new BigInteger(v.toString());
            // JACKSON.md B.2: Debian's backport returns BigInteger for every
            // 19-digit integer; Jackson 3 returns Long for those in range.
            if (v instanceof BigInteger && big.bitLength() < 64) {
                v = big.longValue();
            }
            String expected = big.bitLength() < 32 ? "Integer" : big.bitLength() < 64 ? "Long" : "BigInteger";
            if (!v.getClass().getSimpleName().equals(expected)) {
                sb.append("i!").append(v.getClass().getSimpleName()).append(':');
            } else {
                sb.append('i');
            }
            sb.append(big.toString());
        } else if (v instanceof Double) {
            String hex = Long.toHexString(Double.doubleToRawLongBits((Double) v));
            sb.append('d');
            for (int i = hex.length(); i < 16; i++) {
                sb.append('0');
            }
            sb.append(hex);
        } else if (v instanceof String) {
            canonString((String) v, sb);
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object item : (List<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                canon(item, sb);
            }
            sb.append(']');
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                canonString((String) e.getKey(), sb);
                sb.append(':');
                canon(e.getValue(), sb);
            }
            sb.append('}');
        } else {
            sb.append("?").append(v.getClass().getName());
        }
    }

    static void canonString(String s, StringBuilder sb) {
        sb.append("s\"");
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                appendUnit(c, sb);
                appendUnit(s.charAt(++i), sb);
            } else if (Character.isSurrogate(c)) {
                appendUnit('\uFFFD', sb);
            } else if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                sb.append(c);
            } else {
                appendUnit(c, sb);
            }
        }
        sb.append('"');
    }

    static void appendUnit(char c, StringBuilder sb) {
        sb.append("\\u");
        String hex = Integer.toHexString(c);
        for (int i = hex.length(); i < 4; i++) {
            sb.append('0');
        }
        sb.append(hex);
    }
}
