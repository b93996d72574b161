/**
 * Prints the ranges of UTF-16 code units for which JDK's
 * Character.isJavaIdentifierPart(char) is true, as a Rust table.
 * The table in src/jackson.rs (JAVA_IDENT_PART) was produced with JDK 17
 * (Unicode 13): `javac GenIdentTable.java && java GenIdentTable`.
 * The differential test re-checks every BMP code unit against the running JDK.
 */
public class GenIdentTable {
    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        int start = -1;
        int n = 0;
        for (int c = 0; c <= 0x10000; c++) {
            boolean part = c < 0x10000 && Character.isJavaIdentifierPart((char) c);
            if (part && start < 0) {
                start = c;
            }
            if (!part && start >= 0) {
                if (n % 4 == 0) {
                    sb.append("\n    ");
                } else {
                    sb.append(' ');
                }
                sb.append(String.format("(0x%04X, 0x%04X),", start, c - 1));
                n++;
                start = -1;
            }
        }
        System.out.println("// " + n + " ranges, " + System.getProperty("java.version"));
        System.out.println("const JAVA_IDENT_PART: &[(u16, u16)] = &[" + sb + "\n];");
    }
}
